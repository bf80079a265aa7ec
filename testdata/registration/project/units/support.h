#pragma once
#include <string>
struct Widget { Widget(); ~Widget(); int n; };
struct Logger { static Logger& get(const char* name); int level; };
std::string compute_name();
template <class T> struct Counter { static T value; };
template <class T> T Counter<T>::value = T(static_cast<int>(compute_name().size()));
