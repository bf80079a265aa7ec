// Links Debian's libprotobuf.a and uses one message: the archive's members
// for the well-known types register descriptors and are left out (notes).
#include "reg.pb.h"
int main() { regdemo::Ping p; p.set_id(3); return p.id() == 3 ? 0 : 1; }
