// flatbuffers_lite.h: a header-only template both sides instantiate, as the
// real wheel and torch both compile flatbuffers' headers. The explicit
// instantiation in each library is a weak (vague linkage) definition that
// the dynamic loader will bind process-wide to whichever copy comes first.
#pragma once
#include <stdint.h>
#include <string.h>

namespace flatbuffers {
template <typename T>
T ReadScalar(const void* p) {
  T t;
  memcpy(&t, p, sizeof(T));
  return t;
}
}  // namespace flatbuffers
