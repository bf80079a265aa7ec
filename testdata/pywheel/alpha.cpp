#include <map>
#include <mutex>
#include <string>
#include <memory>
std::mutex m;
std::map<std::string, int> table;
int alpha(const std::string& k) { std::lock_guard<std::mutex> g(m); table.emplace(std::piecewise_construct, std::forward_as_tuple(k), std::forward_as_tuple(1)); return table.size(); }
std::shared_ptr<int> alpha_ptr() { return std::make_shared<int>(1); }
