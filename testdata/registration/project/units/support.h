#pragma once
#include <map>
#include <string>
// A class defined in another unit whose constructor fills a map of its own.
struct Widget { Widget(); ~Widget(); int n; std::map<int, std::string> parts; };
struct Logger { static Logger& get(const char* name); int level; };
std::string compute_name();
std::map<int, int> build_table();
template <class T> struct Counter { static T value; };
template <class T> T Counter<T>::value = T(static_cast<int>(compute_name().size()));
