// SSE2 microkernels: the x86-64 baseline (4 floats per register, multiply then add).
#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/baseline_lanes.h"
#include "runtime/kernels/optimized/isa_tables.h"
#include "runtime/kernels/optimized/microkernels.h"

#if defined(__x86_64__)
#include <emmintrin.h>

namespace touchstone {
namespace optimized {
namespace isa_sse2 {
namespace {

struct V : BaselineLanes<V> {
  using T = __m128;
  static constexpr int W = 4;
  static T load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, T v) { _mm_storeu_ps(p, v); }
  static T set1(float x) { return _mm_set1_ps(x); }
  static T zero() { return _mm_setzero_ps(); }
  static T min(T a, T b) { return _mm_min_ps(a, b); }
  static T max(T a, T b) { return _mm_max_ps(a, b); }
  static T fma(T a, T b, T c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static T round(T x) {
    const T magic = _mm_set1_ps(12582912.f);
    return _mm_sub_ps(_mm_add_ps(x, magic), magic);
  }
  static T pow2i(T n) {
    const __m128i e = _mm_add_epi32(_mm_cvtps_epi32(n), _mm_set1_epi32(127));
    return _mm_castsi128_ps(_mm_slli_epi32(e, 23));
  }
};

constexpr int kWideMr = 4;
constexpr int kNarrowMr = 8;
constexpr const char* kIsaName = "sse2";

}  // namespace

#include "runtime/kernels/optimized/microkernels_impl.inc"

}  // namespace isa_sse2
}  // namespace optimized
}  // namespace touchstone

#endif  // __x86_64__
