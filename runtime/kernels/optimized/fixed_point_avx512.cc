// The fixed-point logistic and tanh on AVX-512 BW: 32 int16 lanes (fixed_point_impl.inc). Handed
// out only where the CPU has AVX-512 BW (FixedPointKernelsFor); enabled per function (target
// pragma).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/fixed_point_kernels.h"
#include "runtime/kernels/optimized/isa_target.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_TARGET_BEGIN("avx512f,avx512bw,avx2,avx")

namespace touchstone {
namespace optimized {
namespace fixed_point_avx512 {
namespace {

struct VI {
  using T = __m512i;
  static constexpr size_t W = 32;
  static T load(const int16_t* p) { return _mm512_loadu_si512(p); }
  static void store(int16_t* p, T v) { _mm512_storeu_si512(p, v); }
  static T set1(int16_t x) { return _mm512_set1_epi16(x); }
  static T zero() { return _mm512_setzero_si512(); }
  static T add(T a, T b) { return _mm512_add_epi16(a, b); }
  static T sub(T a, T b) { return _mm512_sub_epi16(a, b); }
  static T adds(T a, T b) { return _mm512_adds_epi16(a, b); }
  static T and_(T a, T b) { return _mm512_and_si512(a, b); }
  static T or_(T a, T b) { return _mm512_or_si512(a, b); }
  static T xor_(T a, T b) { return _mm512_xor_si512(a, b); }
  template <int N>
  static T srai(T x) {
    return _mm512_srai_epi16(x, N);
  }
  template <int N>
  static T slli(T x) {
    return _mm512_slli_epi16(x, N);
  }
  // Comparisons give mask registers; as vectors of all-ones lanes they fit the shared code (the
  // compiler keeps them in mask registers where it can).
  static T cmpeq(T a, T b) { return _mm512_movm_epi16(_mm512_cmpeq_epi16_mask(a, b)); }
  static T cmpgt(T a, T b) { return _mm512_movm_epi16(_mm512_cmpgt_epi16_mask(a, b)); }
  static T select(T mask, T a, T b) { return _mm512_mask_blend_epi16(_mm512_movepi16_mask(mask), b, a); }
  static T mulhrs(T a, T b) { return _mm512_mulhrs_epi16(a, b); }
};

constexpr const char* kIsaName = "avx512bw";

}  // namespace

#include "runtime/kernels/optimized/fixed_point_impl.inc"

}  // namespace fixed_point_avx512
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
