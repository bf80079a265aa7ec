// Uses AutoReg<Foo> itself: its unit carries the same COMDAT group, so the
// registration runs whether the member is extracted or not.
#include "plugin.h"
void list_plugins();
int main() { (void)AutoReg<Foo>::token; list_plugins(); }
