// AVX2 16-bit microkernels: the GEMM tile on vpmaddwd (two int16 products summed per int32 lane;
// only four -32768 operands overflow it, to -2^31, which is the true sum 2^31 modulo 2^32, so the
// wrapping sums stay exact), 4 rows x 16 columns; q16_impl.inc's loops vectorised for AVX2.
// Enabled per function (target pragma).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/kernels/optimized/isa_target.h"
#include "runtime/kernels/optimized/q16_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_TARGET_BEGIN("avx2,avx,fma")

namespace touchstone {
namespace optimized {
namespace q16_avx2 {
namespace {

#include "runtime/kernels/optimized/q16_impl.inc"

constexpr int kMr = 4;
constexpr int kNr = 16;

template <int R>
void Tile(const int16_t* a, size_t a_stride, const int16_t* b, size_t pairs, int32_t* sums) {
  __m256i acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (size_t p = 0; p < pairs; ++p) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * kNr * 2));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * kNr * 2 + 16));
    for (int r = 0; r < R; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * a_stride + 2 * p, sizeof(pair));
      const __m256i x = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, b0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, b1));
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + r * kNr), acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + r * kNr + 8), acc[r][1]);
  }
}

void Gemm(const int16_t* a, size_t a_stride, int rows, const int16_t* b, size_t pairs, int32_t* sums) {
  switch (rows) {
    case 1:
      Tile<1>(a, a_stride, b, pairs, sums);
      break;
    case 2:
      Tile<2>(a, a_stride, b, pairs, sums);
      break;
    case 3:
      Tile<3>(a, a_stride, b, pairs, sums);
      break;
    default:
      Tile<4>(a, a_stride, b, pairs, sums);
      break;
  }
}

}  // namespace

const Q16Kernels* Table() {
  static const Q16Kernels table = MakeTable("avx2", kMr, kNr, Gemm);
  return &table;
}

}  // namespace q16_avx2
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
