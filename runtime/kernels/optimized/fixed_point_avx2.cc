// The fixed-point logistic and tanh on AVX2: 16 int16 lanes (fixed_point_impl.inc). Handed out
// only where the CPU has AVX2 (FixedPointKernelsFor); enabled per function (target pragma).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/fixed_point_kernels.h"
#include "runtime/kernels/optimized/isa_target.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_TARGET_BEGIN("avx2,avx")

namespace touchstone {
namespace optimized {
namespace fixed_point_avx2 {
namespace {

struct VI {
  using T = __m256i;
  static constexpr size_t W = 16;
  static T load(const int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(int16_t* p, T v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static T set1(int16_t x) { return _mm256_set1_epi16(x); }
  static T zero() { return _mm256_setzero_si256(); }
  static T add(T a, T b) { return _mm256_add_epi16(a, b); }
  static T sub(T a, T b) { return _mm256_sub_epi16(a, b); }
  static T adds(T a, T b) { return _mm256_adds_epi16(a, b); }
  static T and_(T a, T b) { return _mm256_and_si256(a, b); }
  static T or_(T a, T b) { return _mm256_or_si256(a, b); }
  static T xor_(T a, T b) { return _mm256_xor_si256(a, b); }
  template <int N>
  static T srai(T x) {
    return _mm256_srai_epi16(x, N);
  }
  template <int N>
  static T slli(T x) {
    return _mm256_slli_epi16(x, N);
  }
  static T cmpeq(T a, T b) { return _mm256_cmpeq_epi16(a, b); }
  static T cmpgt(T a, T b) { return _mm256_cmpgt_epi16(a, b); }
  // Mask lanes are all ones or all zeros, so a byte blend selects whole lanes.
  static T select(T mask, T a, T b) { return _mm256_blendv_epi8(b, a, mask); }
  static T mulhrs(T a, T b) { return _mm256_mulhrs_epi16(a, b); }
};

constexpr const char* kIsaName = "avx2";

}  // namespace

#include "runtime/kernels/optimized/fixed_point_impl.inc"

}  // namespace fixed_point_avx2
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
