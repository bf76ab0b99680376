// AVX-512 16-bit microkernels: the GEMM tile on vpdpwssd (two int16 products summed into each
// int32 lane), 12 rows x 32 columns; q16_impl.inc's loops vectorised for AVX-512. Handed out only
// where the 8-bit set is AVX-512 VNNI (Q16KernelsFor), which checks the CPU. Enabled per function
// (target pragma): the build has no global -m flags.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/kernels/optimized/count_dispatch.h"
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

#include "runtime/kernels/optimized/avx512_dot.inc"

// The GEMM tile's vectors (q16_impl.inc, TiledGemm): vpdpwssd.
struct Lanes {
  using Vec = __m512i;
  static constexpr int kLanes = 16;
  static Vec Zero() { return _mm512_setzero_si512(); }
  static Vec Load(const int16_t* p) { return _mm512_loadu_si512(p); }
  static void Store(int32_t* p, Vec v) { _mm512_storeu_si512(p, v); }
  static Vec Broadcast(int32_t x) { return _mm512_set1_epi32(x); }
  static Vec Dot(Vec acc, Vec a, Vec b) { return DotWords(acc, a, b); }
};

}  // namespace

const Q16Kernels* Table() {
  static const Q16Kernels table = MakeTable("avx512vnni", kMr, 2 * Lanes::kLanes, TiledGemm<Lanes, kMr>);
  return &table;
}

}  // namespace q16_avx512
}  // namespace optimized
}  // namespace touchstone

TS_AVX512_TARGET_END

#endif  // __x86_64__
