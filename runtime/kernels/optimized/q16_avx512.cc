// AVX-512 16-bit microkernels: the GEMM tile on vpdpwssd (two int16 products summed into each
// int32 lane), 12 rows x 32 columns; q16_impl.inc's loops vectorised for AVX-512. Handed out only
// where the 8-bit set is AVX-512 VNNI (Q16KernelsFor), which checks the CPU. Enabled per function
// (target pragma): the build has no global -m flags.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/kernels/optimized/isa_target.h"
#include "runtime/kernels/optimized/q16_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_AVX512_TARGET_BEGIN("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,avx,fma")

namespace touchstone {
namespace optimized {
namespace q16_avx512 {
namespace {

#include "runtime/kernels/optimized/q16_impl.inc"

constexpr int kMr = 12;
constexpr int kNr = 32;

// acc + a.lo * b.lo + a.hi * b.hi per int32 lane. GCC 12's builtin copies the accumulator around
// each instruction (and spills a tile's 24 of them); the asm form accumulates in place. Clang keeps
// the builtin.
inline __m512i DotWords(__m512i acc, __m512i a, __m512i b) {
#if defined(__clang__)
  return _mm512_dpwssd_epi32(acc, a, b);
#else
  asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
#endif
}

template <int R>
void Tile(const int16_t* a, size_t a_stride, const int16_t* b, size_t pairs, int32_t* sums) {
  __m512i acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (size_t p = 0; p < pairs; ++p) {
    const __m512i b0 = _mm512_loadu_si512(b + p * kNr * 2);
    const __m512i b1 = _mm512_loadu_si512(b + p * kNr * 2 + 32);
    for (int r = 0; r < R; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * a_stride + 2 * p, sizeof(pair));
      const __m512i x = _mm512_set1_epi32(pair);
      acc[r][0] = DotWords(acc[r][0], x, b0);
      acc[r][1] = DotWords(acc[r][1], x, b1);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_si512(sums + r * kNr, acc[r][0]);
    _mm512_storeu_si512(sums + r * kNr + 16, acc[r][1]);
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
    case 4:
      Tile<4>(a, a_stride, b, pairs, sums);
      break;
    case 5:
      Tile<5>(a, a_stride, b, pairs, sums);
      break;
    case 6:
      Tile<6>(a, a_stride, b, pairs, sums);
      break;
    case 7:
      Tile<7>(a, a_stride, b, pairs, sums);
      break;
    case 8:
      Tile<8>(a, a_stride, b, pairs, sums);
      break;
    case 9:
      Tile<9>(a, a_stride, b, pairs, sums);
      break;
    case 10:
      Tile<10>(a, a_stride, b, pairs, sums);
      break;
    case 11:
      Tile<11>(a, a_stride, b, pairs, sums);
      break;
    default:
      Tile<12>(a, a_stride, b, pairs, sums);
      break;
  }
}

}  // namespace

const Q16Kernels* Table() {
  static const Q16Kernels table = MakeTable("avx512vnni", kMr, kNr, Gemm);
  return &table;
}

}  // namespace q16_avx512
}  // namespace optimized
}  // namespace touchstone

TS_AVX512_TARGET_END

#endif  // __x86_64__
