// Lists the message types the generated pool holds of units/reg.proto.
#include <cstdio>
#include <google/protobuf/descriptor.h>
int main() {
  if (google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName("regdemo.Ping")) std::puts("regdemo.Ping");
}
