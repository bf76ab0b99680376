// AVX-512F microkernels (16 floats per register, 32 registers), for x86-64 CPUs that report
// AVX-512F (dispatch.cc checks before calling Table()). Same structure as isa_avx_fma.cc.
#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/isa_tables.h"
#include "runtime/kernels/optimized/microkernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,avx,fma")
// GCC 12's _mm512_max_ps/_mm512_min_ps pass _mm512_undefined_ps() as the unused merge operand, which
// -Wmaybe-uninitialized (or, where inlined into a template, -Wuninitialized) reports at every use
// (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace touchstone {
namespace optimized {
namespace isa_avx512 {
namespace {

struct V {
  using T = __m512;
  static constexpr int W = 16;
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
  // The first n (< W) lanes; the others read as 0 / are left untouched.
  static __mmask16 Mask(size_t n) { return static_cast<__mmask16>((1u << n) - 1); }
  static T load_partial(const float* p, size_t n) { return _mm512_maskz_loadu_ps(Mask(n), p); }
  static void store_partial(float* p, T v, size_t n) { _mm512_mask_storeu_ps(p, Mask(n), v); }
  static T set1(float x) { return _mm512_set1_ps(x); }
  static T zero() { return _mm512_setzero_ps(); }
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  static T sub(T a, T b) { return _mm512_sub_ps(a, b); }
  static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T div(T a, T b) { return _mm512_div_ps(a, b); }
  static T min(T a, T b) { return _mm512_min_ps(a, b); }
  static T max(T a, T b) { return _mm512_max_ps(a, b); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T round(T x) {
    return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static T pow2i(T n) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
  }
};

constexpr int kWideMr = 8;
constexpr int kNarrowMr = 8;
constexpr const char* kIsaName = "avx512";

}  // namespace

#include "runtime/kernels/optimized/microkernels_impl.inc"

}  // namespace isa_avx512
}  // namespace optimized
}  // namespace touchstone

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

#endif  // __x86_64__
