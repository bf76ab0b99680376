// The portable int8 matrix-vector set (the matrix as it is, plain loops) and the choice between the
// sets.
#include <cstring>

#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/quant_kernels.h"

namespace touchstone {
namespace optimized {
namespace int8_gemv_portable {
namespace {

size_t PackedSize(size_t rows, size_t depth) { return rows * depth; }

void Pack(const int8_t* matrix, size_t rows, size_t depth, uint8_t* packed) {
  std::memcpy(packed, matrix, rows * depth);
}

void Gemv(const uint8_t* packed, size_t rows, size_t depth, const int8_t* x, int32_t* out) {
  const int8_t* w = reinterpret_cast<const int8_t*>(packed);
  for (size_t r = 0; r < rows; ++r, w += depth) {
    uint32_t sum = 0;  // wraps, as the reference's truncation of its exact sum does
    for (size_t k = 0; k < depth; ++k) sum += static_cast<uint32_t>(int32_t{w[k]} * x[k]);
    out[r] = static_cast<int32_t>(sum);
  }
}

}  // namespace

const Int8GemvKernels* Table() {
  static const Int8GemvKernels table{"portable", PackedSize, Pack, Gemv};
  return &table;
}

}  // namespace int8_gemv_portable

const Int8GemvKernels& Int8GemvKernelsFor(const MicroKernels& set) {
#if defined(__x86_64__)
  static const bool vnni = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vnni");
  }();
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  const bool avx512_set = std::strcmp(set.name, "avx512") == 0;
  if (avx512_set && vnni) return *int8_gemv_avx512::Table();
  if ((avx512_set || std::strcmp(set.name, "avx_fma") == 0) && avx2) return *int8_gemv_avx2::Table();
#elif defined(__aarch64__)
  if (std::strcmp(set.name, "neon") == 0) {
    return CpuHasDotProd() ? *int8_gemv_neon_dotprod::Table() : *int8_gemv_neon::Table();
  }
#else
  (void)set;
#endif
  return *int8_gemv_portable::Table();
}

}  // namespace optimized
}  // namespace touchstone
