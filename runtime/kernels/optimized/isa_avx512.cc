// AVX-512F microkernels (16 floats per register, 32 registers), for x86-64 CPUs that report
// AVX-512F (dispatch.cc checks before calling Table()). Same structure as isa_avx_fma.cc.
#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/isa_tables.h"
#include "runtime/kernels/optimized/isa_target.h"
#include "runtime/kernels/optimized/microkernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_AVX512_TARGET_BEGIN("avx512f,avx2,avx,fma")

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
  static T round(T x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static T pow2i(T n) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
  }
};

constexpr int kWideMr = 8;
constexpr int kNarrowMr = 8;
constexpr const char* kIsaName = "avx512";

// ---- PlanarConvFn: 16 output pixels per register, one register per output channel; a transpose
// turns the 8 registers into pixel-major order for the NHWC output.

// The 8x16 -> 16x8 transpose in three stages of two-source permutes. Registers R[g] hold channel g
// of pixels p = 0..15; the result OUT[j] holds pixels 2j (lanes 0-7) and 2j + 1 (lanes 8-15),
// channels 0-7. Stage 1 pairs R[2m], R[2m+1] into S1[m][h] (pixels 8h..8h+7, lane jj * 4 +
// pb * 2 + gb for pixel 2(4h + jj) + pb, channel 2m + gb); stage 2 pairs S1[2n][h], S1[2n+1][h]
// into S2[n][h][e] (pixels 8h + 4e..+3, lane jj * 8 + pb * 4 + g for channel 4n + g); stage 3
// pairs S2[0][h][e], S2[1][h][e] into OUT[4h + 2e + f] (lane pb * 8 + g).
struct TransposeIndex {
  __m512i stage1[2], stage2[2], stage3[2];
};

const TransposeIndex& Transpose8x16Index() {
  static const TransposeIndex index = [] {
    TransposeIndex t;
    alignas(64) int32_t lanes[16];
    for (int h = 0; h < 2; ++h) {
      for (int jj = 0; jj < 4; ++jj) {
        for (int pb = 0; pb < 2; ++pb) {
          for (int gb = 0; gb < 2; ++gb) lanes[jj * 4 + pb * 2 + gb] = gb * 16 + 2 * (4 * h + jj) + pb;
        }
      }
      t.stage1[h] = _mm512_load_si512(lanes);
    }
    for (int e = 0; e < 2; ++e) {
      for (int jj = 0; jj < 2; ++jj) {
        for (int pb = 0; pb < 2; ++pb) {
          for (int g = 0; g < 4; ++g) {
            lanes[jj * 8 + pb * 4 + g] = (g / 2) * 16 + (2 * e + jj) * 4 + pb * 2 + g % 2;
          }
        }
      }
      t.stage2[e] = _mm512_load_si512(lanes);
    }
    for (int f = 0; f < 2; ++f) {
      for (int pb = 0; pb < 2; ++pb) {
        for (int g = 0; g < 8; ++g) lanes[pb * 8 + g] = (g / 4) * 16 + f * 8 + pb * 4 + g % 4;
      }
      t.stage3[f] = _mm512_load_si512(lanes);
    }
    return t;
  }();
  return index;
}

// Writes `pixels` (<= 16) pixels of 8 channels, held channel-major in r[0..7], to out (8 floats
// per pixel).
__attribute__((always_inline)) inline void StoreTransposed(const TransposeIndex& t, const __m512 (&r)[8], size_t pixels,
                                                           float* out) {
  __m512 s1[4][2], s2[2][2][2];
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) s1[m][h] = _mm512_permutex2var_ps(r[2 * m], t.stage1[h], r[2 * m + 1]);
  }
#pragma GCC unroll 2
  for (int n = 0; n < 2; ++n) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
      for (int e = 0; e < 2; ++e) {
        s2[n][h][e] = _mm512_permutex2var_ps(s1[2 * n][h], t.stage2[e], s1[2 * n + 1][h]);
      }
    }
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
    for (int e = 0; e < 2; ++e) {
#pragma GCC unroll 2
      for (int f = 0; f < 2; ++f) {
        const size_t j = 4 * h + 2 * e + f;
        if (2 * j >= pixels) return;
        const __m512 pair = _mm512_permutex2var_ps(s2[0][h][e], t.stage3[f], s2[1][h][e]);
        // Pixels 2j and 2j + 1, or only 2j at the end of an odd row.
        _mm512_mask_storeu_ps(out + 16 * j, 2 * j + 1 < pixels ? 0xFFFF : 0x00FF, pair);
      }
    }
  }
}

// PX registers of 16 output pixels from x.
template <int PX>
__attribute__((always_inline)) inline void PlanarConvBlock(const PlanarConvArgs& p, const TransposeIndex& t, size_t x) {
  __m512 acc[PX][8];
#pragma GCC unroll 8
  for (int g = 0; g < 8; ++g) {
    const __m512 b = _mm512_set1_ps(p.bias != nullptr ? p.bias[g] : 0.f);
#pragma GCC unroll 2
    for (int i = 0; i < PX; ++i) acc[i][g] = b;
  }
  for (size_t tap = 0; tap < p.taps; ++tap) {
    const float* in = p.tap_in[tap] + x;
    const float* w = p.tap_w[tap];
    __m512 v[PX];
#pragma GCC unroll 2
    for (int i = 0; i < PX; ++i) v[i] = _mm512_loadu_ps(in + 16 * i);
#pragma GCC unroll 8
    for (int g = 0; g < 8; ++g) {
      const __m512 wg = _mm512_set1_ps(w[g]);
#pragma GCC unroll 2
      for (int i = 0; i < PX; ++i) acc[i][g] = _mm512_fmadd_ps(v[i], wg, acc[i][g]);
    }
  }
  const __m512 vmin = _mm512_set1_ps(p.min);
  const __m512 vmax = _mm512_set1_ps(p.max);
#pragma GCC unroll 2
  for (int i = 0; i < PX; ++i) {
    __m512 r[8];
#pragma GCC unroll 8
    for (int g = 0; g < 8; ++g) r[g] = _mm512_min_ps(_mm512_max_ps(acc[i][g], vmin), vmax);
    const size_t first = x + 16 * i;
    const size_t count = p.pixels - first < 16 ? p.pixels - first : 16;
    StoreTransposed(t, r, count, p.out + first * 8);
  }
}

void PlanarConv(const PlanarConvArgs& p) {
  const TransposeIndex& t = Transpose8x16Index();
  size_t x = 0;
  for (; x + 32 <= p.pixels; x += 32) PlanarConvBlock<2>(p, t, x);
  for (; x < p.pixels; x += 16) PlanarConvBlock<1>(p, t, x);
}

// PlanarSplit3x2Fn: each plane's 16 elements come from 96 consecutive floats (six registers):
// one two-source permute per pair of registers picks the elements that lie in it, and two masked
// moves merge the three.
struct SplitIndex {
  __m512i index[6][3];
  __mmask16 mask[6][3];
};

const SplitIndex& Split3x2Index() {
  static const SplitIndex split = [] {
    SplitIndex t;
    alignas(64) int32_t lanes[16];
    for (int k = 0; k < 6; ++k) {
      for (int q = 0; q < 3; ++q) {
        uint32_t mask = 0;
        for (int e = 0; e < 16; ++e) {
          const int position = 6 * e + k - 32 * q;
          const bool inside = position >= 0 && position < 32;
          lanes[e] = inside ? position : 0;
          if (inside) mask |= 1u << e;
        }
        t.index[k][q] = _mm512_load_si512(lanes);
        t.mask[k][q] = static_cast<__mmask16>(mask);
      }
    }
    return t;
  }();
  return split;
}

void PlanarSplit3x2(const float* in, size_t elements, float* const* planes) {
  const SplitIndex& t = Split3x2Index();
  for (size_t e = 0; e < elements; e += 16, in += 96) {
    __m512 pairs[3][2];
    for (int q = 0; q < 3; ++q) {
      pairs[q][0] = _mm512_loadu_ps(in + 32 * q);
      pairs[q][1] = _mm512_loadu_ps(in + 32 * q + 16);
    }
    for (int k = 0; k < 6; ++k) {
      __m512 v = _mm512_permutex2var_ps(pairs[0][0], t.index[k][0], pairs[0][1]);
      v = _mm512_mask_mov_ps(v, t.mask[k][1], _mm512_permutex2var_ps(pairs[1][0], t.index[k][1], pairs[1][1]));
      v = _mm512_mask_mov_ps(v, t.mask[k][2], _mm512_permutex2var_ps(pairs[2][0], t.index[k][2], pairs[2][1]));
      _mm512_storeu_ps(planes[k] + e, v);
    }
  }
}

}  // namespace

#define TS_PLANAR_CONV PlanarConv
#define TS_PLANAR_SPLIT_3X2 PlanarSplit3x2

#include "runtime/kernels/optimized/microkernels_impl.inc"
#undef TS_PLANAR_CONV
#undef TS_PLANAR_SPLIT_3X2

}  // namespace isa_avx512
}  // namespace optimized
}  // namespace touchstone

TS_AVX512_TARGET_END

#endif  // __x86_64__
