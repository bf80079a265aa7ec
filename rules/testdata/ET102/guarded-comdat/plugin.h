// A plugin registry whose registrations are template static data members:
// AutoReg<T>::token's dynamic initializer is a guarded initializer in a
// COMDAT group, emitted by every unit that uses it and run once.
extern "C" void plugin_register(const char* name, void (*run)());
template <class T> struct AutoReg {
  static inline int token = (plugin_register(T::name(), &T::run), 1);
};
struct Foo {
  static const char* name() { return "foo"; }
  static void run() {}
};
