// gemmlowp's fixed-point logistic and tanh on int16 vectors, for the integer LSTM's gates and the
// int16 LOGISTIC and TANH: byte for byte what the reference computes one value at a time
// (quantization_util.h's fixed_point::Logistic and Tanh), one set per instruction set. The AVX2 and
// AVX-512 sets compute the same steps in 16 or 32 int16 lanes (vpmulhrsw is gemmlowp's rounding
// doubling high multiply, save the one overflowing product, which they fix up); every other set
// runs the reference functions. The functions depend on nothing but their int16 input, so
// fixed_point_kernels_test compares every one of the 65536 inputs.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_FIXED_POINT_KERNELS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_FIXED_POINT_KERNELS_H_

#include <cstddef>

#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

// The largest integer-bit count of a tanh input (LSTM cell states of scale 2^-15 to 2^-9).
constexpr int kMaxTanhIntegerBits = 6;

struct FixedPointKernels {
  const char* name = "";
  // out[i] = Logistic(in[i] as Q3.12), Q0.15 (in == out allowed).
  void (*sigmoid)(const int16_t* in, size_t n, int16_t* out) = nullptr;
  // out[i] = Tanh(in[i] with `integer_bits` integer bits, 0..kMaxTanhIntegerBits), Q0.15.
  void (*tanh)(int integer_bits, const int16_t* in, size_t n, int16_t* out) = nullptr;
};

// The set that goes with a float microkernel set (one override hook for all, SelectKernelSet /
// TOUCHSTONE_CPU_KERNELS): "avx512" takes AVX-512 BW where the CPU has it, "avx512" and "avx_fma"
// AVX2 where it has that, every other set the portable one.
const FixedPointKernels& FixedPointKernelsFor(const MicroKernels& set);

namespace fixed_point_portable {
const FixedPointKernels* Table();
}
#if defined(__x86_64__)
namespace fixed_point_avx2 {
const FixedPointKernels* Table();
}
namespace fixed_point_avx512 {
const FixedPointKernels* Table();
}
#endif

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_FIXED_POINT_KERNELS_H_
