#include <string>
extern "C" int inner_value(void);
/* std::string in a shared library: GLIBCXX and CXXABI versions from libstdc++ */
extern "C" int outer_value(const char *s) { return (int)std::string(s).size() + inner_value(); }
