// AVX2 16-bit microkernels: the GEMM tile on vpmaddwd (two int16 products summed per int32 lane;
// only four -32768 operands overflow it, to -2^31, which is the true sum 2^31 modulo 2^32, so the
// wrapping sums stay exact), 4 rows x 16 columns; q16_impl.inc's loops vectorised for AVX2.
// Enabled per function (target pragma).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/kernels/optimized/count_dispatch.h"
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

// The GEMM tile's vectors (q16_impl.inc, TiledGemm): vpmaddwd, then a wrapping add.
struct Lanes {
  using Vec = __m256i;
  static constexpr int kLanes = 8;
  static Vec Zero() { return _mm256_setzero_si256(); }
  static Vec Load(const int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void Store(int32_t* p, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Vec Broadcast(int32_t x) { return _mm256_set1_epi32(x); }
  static Vec Dot(Vec acc, Vec a, Vec b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
};

}  // namespace

const Q16Kernels* Table() {
  static const Q16Kernels table = MakeTable("avx2", kMr, 2 * Lanes::kLanes, TiledGemm<Lanes, kMr>);
  return &table;
}

}  // namespace q16_avx2
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
