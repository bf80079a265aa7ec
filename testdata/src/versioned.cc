// versioned.cc: the feature-rich fixture libversioned.so.1 (see ../build.sh).
// Every definition below exists to give the ELF reader one symbol shape.
#include <math.h>
#include <string.h>

extern "C" {

// foo@V1 (old, non-default) and foo@@V2 (default) from two implementations.
// The implementation names themselves are made local by versioned.map.
int foo_v1(int x) { return x + 1; }
int foo_v2(int x) { return x + 2; }
__asm__(".symver foo_v1,foo@V1");
__asm__(".symver foo_v2,foo@@V2");

// Named in the V2 node: exported as v2_only@@V2.
int v2_only(int x) { return x * 3; }

// Not named in versioned.map, which has no "local: *": exported with
// VER_NDX_GLOBAL, i.e. unversioned (nm -D prints no @).
int unversioned_fn(int x) { return x - 1; }

// STV_PROTECTED: exported, but references from inside the library bind locally.
__attribute__((visibility("protected"))) int protected_fn(int x) { return x ^ 5; }

// STV_HIDDEN: must not appear in .dynsym.
__attribute__((visibility("hidden"))) int hidden_fn(int x) { return x | 8; }

// STB_WEAK definition.
__attribute__((weak)) int weak_fn(int x) { return hidden_fn(x); }

// STT_TLS.
__thread int tls_counter = 7;

// STT_GNU_IFUNC: the resolver picks an implementation at load time.
static int ifunc_impl(int x) { return x + 40; }
typedef int (*ifunc_fn_t)(int);
static ifunc_fn_t resolve_ifunc_fn(void) { return ifunc_impl; }
int ifunc_fn(int x) __attribute__((ifunc("resolve_ifunc_fn")));

// An exported OBJECT.
int exported_table[4] = {1, 2, 3, 4};

// Undefined references to versioned glibc symbols: exp from libm (which also
// keeps DT_NEEDED libm.so.6) and memcpy from libc.
double use_libm(double x) { return exp(x); }
void copy_bytes(void* dst, const void* src, unsigned long n) { memcpy(dst, src, n); }

}  // extern "C"

// STB_GNU_UNIQUE: a C++17 inline static data member of a class template.
template <typename T> struct Registry {
  static inline int count = 0;
};
int bump_registry() { return ++Registry<int>::count; }

// An explicit template instantiation: a weak (vague linkage) C++ definition.
template <typename T> T twice(T x) { return x + x; }
template int twice<int>(int);
