// AVX + FMA microkernels (8 floats per register, fused multiply-add), for x86-64 CPUs that report
// both (dispatch.cc checks with __builtin_cpu_supports before calling Table()). Only this file's
// own functions get the instruction set: headers are included before the target pragma, and
// everything after it lives in this file's namespace.
#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/isa_tables.h"
#include "runtime/kernels/optimized/isa_target.h"
#include "runtime/kernels/optimized/microkernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_TARGET_BEGIN("avx,fma")

namespace touchstone {
namespace optimized {
namespace isa_avx_fma {
namespace {

struct V {
  using T = __m256;
  static constexpr int W = 8;
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
  // The first n (< W) lanes; the others read as 0 / are left untouched.
  static __m256i Mask(size_t n) {
    static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - n));
  }
  static T load_partial(const float* p, size_t n) { return _mm256_maskload_ps(p, Mask(n)); }
  static void store_partial(float* p, T v, size_t n) { _mm256_maskstore_ps(p, Mask(n), v); }
  static T set1(float x) { return _mm256_set1_ps(x); }
  static T zero() { return _mm256_setzero_ps(); }
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  static T sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T div(T a, T b) { return _mm256_div_ps(a, b); }
  static T min(T a, T b) { return _mm256_min_ps(a, b); }
  static T max(T a, T b) { return _mm256_max_ps(a, b); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T round(T x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static T pow2i(T n) {
    // AVX without AVX2 has no 256-bit integer arithmetic: build each half with SSE2.
    const __m128i bias = _mm_set1_epi32(127);
    const __m128i lo = _mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(_mm256_castps256_ps128(n)), bias), 23);
    const __m128i hi = _mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(_mm256_extractf128_ps(n, 1)), bias), 23);
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_castsi128_ps(lo)), _mm_castsi128_ps(hi), 1);
  }
};

constexpr int kWideMr = 6;
constexpr int kNarrowMr = 8;
constexpr const char* kIsaName = "avx_fma";

}  // namespace

#include "runtime/kernels/optimized/microkernels_impl.inc"

}  // namespace isa_avx_fma
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
