#include <future>
#include <string>
int beta(int x) { auto f = std::async(std::launch::deferred, [x]{ return x * 2; }); return f.get(); }
