// The archive member: registers Foo through AutoReg<Foo>, and nothing
// references it.
#include "plugin.h"
int foo_plugin_token() { return AutoReg<Foo>::token; }
