// Products of an int8 matrix with int8 vectors, in int32 that wraps (the low 32 bits of the exact
// sums, which is what TFLite's integer kernels keep), for the integer LSTM: one set per instruction
// set, each with its own packed layout of the matrix. AVX-512 VNNI multiplies the vector's bytes
// offset by 128 (vpdpbusd takes one unsigned operand) and subtracts 128 times each row's sum, packed
// with the rows; AVX2 multiplies int16 pairs (vpmaddwd); arm64 NEON multiplies bytes with SDOT where
// the CPU has dot products, else vmull_s8; the portable set runs plain loops.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_INT8_GEMV_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_INT8_GEMV_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

struct Int8GemvKernels {
  const char* name = "";
  // Bytes of the packed form of a {rows, depth} matrix, and the packing (plain C++, once).
  size_t (*packed_size)(size_t rows, size_t depth) = nullptr;
  void (*pack)(const int8_t* matrix, size_t rows, size_t depth, uint8_t* packed) = nullptr;
  // out[r] = sum over k < depth of matrix[r][k] * x[k], for r < rows, from the packed matrix.
  void (*gemv)(const uint8_t* packed, size_t rows, size_t depth, const int8_t* x, int32_t* out) = nullptr;
};

// The set that goes with a float microkernel set (SelectKernelSet / TOUCHSTONE_CPU_KERNELS):
// "avx512" takes AVX-512 VNNI where the CPU has it, "avx512" and "avx_fma" AVX2 where it has
// that, "neon" the dot-product set where the CPU has dot products and plain NEON elsewhere, every
// other set the portable one.
const Int8GemvKernels& Int8GemvKernelsFor(const MicroKernels& set);

namespace int8_gemv_portable {
const Int8GemvKernels* Table();
}
#if defined(__x86_64__)
namespace int8_gemv_avx2 {
const Int8GemvKernels* Table();
}
namespace int8_gemv_avx512 {
const Int8GemvKernels* Table();
}
#endif
#if defined(__aarch64__)
namespace int8_gemv_neon {
const Int8GemvKernels* Table();
}
// Only where CpuHasDotProd() (quant_kernels.h).
namespace int8_gemv_neon_dotprod {
const Int8GemvKernels* Table();
}
#endif

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_INT8_GEMV_H_
