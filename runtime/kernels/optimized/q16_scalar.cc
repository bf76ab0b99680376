// The portable 16-bit microkernels: plain C++ (q16_impl.inc and a plain GEMM tile). Every build
// has them; they are the fallback on CPUs without AVX2, and the set the SIMD ones are tested
// against.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/kernels/optimized/count_dispatch.h"
#include "runtime/kernels/optimized/q16_kernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"

namespace touchstone {
namespace optimized {
namespace q16_scalar {
namespace {

#include "runtime/kernels/optimized/q16_impl.inc"

constexpr int kMr = 2;
constexpr int kNr = 8;

void Gemm(const int16_t* a, size_t a_stride, int rows, const int16_t* b, size_t pairs, int32_t* sums) {
  for (int r = 0; r < rows; ++r) {
    const int16_t* x = a + r * a_stride;
    uint32_t acc[kNr] = {};
    for (size_t p = 0; p < pairs; ++p) {
      const int32_t x0 = x[2 * p], x1 = x[2 * p + 1];
      const int16_t* step = b + p * kNr * 2;
      for (int j = 0; j < kNr; ++j) {
        acc[j] += static_cast<uint32_t>(x0 * step[2 * j]) + static_cast<uint32_t>(x1 * step[2 * j + 1]);
      }
    }
    for (int j = 0; j < kNr; ++j) sums[r * kNr + j] = static_cast<int32_t>(acc[j]);
  }
}

}  // namespace

const Q16Kernels* Table() {
  static const Q16Kernels table = MakeTable("scalar", kMr, kNr, Gemm);
  return &table;
}

}  // namespace q16_scalar

const Q16Kernels& Q16KernelsFor(const MicroKernels& set) {
  const char* name = QuantKernelsFor(set).name;
#if defined(__x86_64__)
  if (std::strcmp(name, "avx512vnni") == 0) return *q16_avx512::Table();
  if (std::strcmp(name, "avx2") == 0) return *q16_avx2::Table();
#else
  (void)name;
#endif
  return *q16_scalar::Table();
}

}  // namespace optimized
}  // namespace touchstone
