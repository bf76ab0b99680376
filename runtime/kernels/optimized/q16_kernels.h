// Microkernels of the optimized kernels for 16-bit quantized data and the element-wise quantized
// ops (quantized16.cc): an int16 x int16 GEMM tile, the output stages of the 16x8 and 16x16
// products, ADD and MUL of uint8/int8/int16, QUANTIZE and DEQUANTIZE. One set per instruction
// set: AVX-512 (with VNNI), AVX2 and portable C++. Every function computes exactly what the
// reference kernels compute, element for element:
//
// - The GEMM tile sums int16 products in int32 that wraps (vpdpwssd / vpmaddwd do), which is the
//   low 32 bits of the reference's 64-bit sum. Where the reference keeps all 64 bits (int16
//   activations with an int64 bias, int16 x int16 BATCH_MATMUL), the caller sums blocks of at
//   most kQ16BlockPairs pairs, each small enough not to wrap, into int64 (quantized16.cc).
// - Everything else is written once, as plain loops without branches, in q16_impl.inc, compiled
//   per instruction set (the compiler vectorises them). Each loop is the reference's arithmetic
//   step for step, in the integer and double operations the reference uses, so vectorising
//   changes nothing in the results.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_Q16_KERNELS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_Q16_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/c/common.h"
#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

// Pairs of k a block of the exact (64-bit) sums holds: 128 pairs of products below 2^23 in
// magnitude (int16 x [-255, 255], or the split halves of int16 x int16) stay below 2^31.
constexpr size_t kQ16BlockPairs = 128;

// The output stage of a GEMM, per output column (arrays of the panel-padded column count).
struct Q16Columns {
  // Stage of 32-bit sums, ruy's MultiplyByQuantizedMultiplierRoundingUp: bias added (wrapping),
  // shifted left by `left` (0 at 32 or more), rounding high multiply, rounding (ties up) right
  // shift by `right`.
  const int32_t* bias32 = nullptr;
  const int32_t* multiplier = nullptr;
  const int32_t* left = nullptr;
  const int32_t* right = nullptr;
  // Stage of 64-bit sums, MultiplyByQuantizedMultiplier's int64 overload: bias added, times the
  // multiplier rounded to 16 bits (`reduced`), plus `round`, shifted right arithmetically by
  // `shift` (counts already masked to 0..63 as the x86 shift masks them).
  const int64_t* bias64 = nullptr;
  const int64_t* reduced = nullptr;
  const int64_t* round = nullptr;
  const int64_t* shift = nullptr;
  // Then the zero point (wrapping) and the clamp.
  int32_t offset = 0;
  int32_t act_min = 0, act_max = 0;
};

// The arithmetic of a quantized ADD (reference arithmetic_ops.cc, QuantizedAddSubValue): each input
// plus its offset, shifted left by left_shift, through its multiplier; the sum through the
// output's; the zero point; the clamp. Multipliers are (multiplier, left, right) as
// MultiplyByQuantizedMultiplier splits its shift (left masked to 0..31). With `pot` (int16 with
// power-of-two scales) instead: input 1 (or 2, `pot_shift_first` false) rounded right by
// pot_shift, the two added and saturated to int16, then the clamp.
struct Q16AddParams {
  TfLiteType type = kTfLiteNoType;  // uint8, int8 or int16 (inputs and output)
  int32_t input1_offset = 0, input2_offset = 0;
  int left_shift = 0;
  int32_t input1_multiplier = 0, input2_multiplier = 0, output_multiplier = 0;
  int input1_left = 0, input1_right = 0, input2_left = 0, input2_right = 0;
  int output_left = 0, output_right = 0;
  int32_t output_offset = 0;
  int32_t act_min = 0, act_max = 0;
  bool pot = false;
  bool pot_shift_first = false;
  int pot_shift = 0;
};

// A quantized MUL: (a + input1_offset) * (b + input2_offset) through the output multiplier, the
// zero point, the clamp.
struct Q16MulParams {
  TfLiteType type = kTfLiteNoType;  // uint8, int8 or int16
  int32_t input1_offset = 0, input2_offset = 0;
  int32_t multiplier = 0;
  int left = 0, right = 0;
  int32_t output_offset = 0;
  int32_t act_min = 0, act_max = 0;
};

// QUANTIZE between integer types (Requantize): input less its zero point (wrapping), through the
// multiplier, plus the output zero point (wrapping), clamped to the output type.
struct Q16RequantizeParams {
  TfLiteType input_type = kTfLiteNoType;   // uint8, int8, int16 or int32
  TfLiteType output_type = kTfLiteNoType;  // uint8, int8, int16 or int32
  int32_t input_zero_point = 0, output_zero_point = 0;
  int32_t multiplier = 0;
  int left = 0, right = 0;
};

struct Q16Kernels {
  const char* name = "";
  int mr = 2;  // rows of A per gemm call, at most (even)
  int nr = 8;  // columns per packed panel
  // sums[r * nr + j] for r < rows, j < nr: the wrapping int32 sum over `pairs` pairs p of
  // a[r * a_stride + 2p] * b[(p * nr + j) * 2] + a[r * a_stride + 2p + 1] * b[(p * nr + j) * 2 + 1].
  // b is one panel (pack layout: per pair, per column, the two k values).
  void (*gemm)(const int16_t* a, size_t a_stride, int rows, const int16_t* b, size_t pairs, int32_t* sums) = nullptr;
  // `rows` output rows of n columns (out_stride elements apart) from 32-bit sums (sums_stride
  // apart; ruy's stage), the columns' constants from `first`: int8 (out16 false) or int16 outputs.
  void (*stage32)(const int32_t* sums, int rows, int sums_stride, int n, const Q16Columns& columns, int first,
                  bool out16, void* out, size_t out_stride) = nullptr;
  // The 64-bit sums: a block's int32 sums (rows of `stride`; with `split`, two per output row, the
  // high and low halves, recombined as 256 * high + low) added to (or, `assign`, stored in) totals.
  void (*accumulate64)(const int32_t* sums, bool split, bool assign, int rows, int stride, int64_t* totals) = nullptr;
  // The int64 stage over the last block's sums plus the earlier blocks' totals (`carried`, null
  // for none), int16 outputs.
  void (*stage64)(const int64_t* carried, const int32_t* sums, bool split, int rows, int stride, int n,
                  const Q16Columns& columns, int first, int16_t* out, size_t out_stride) = nullptr;
  // GEMM operands: a row of k int16 split into x >> 8 and x & 255 (zeros to kp); one pair of a
  // panel from two source rows (out[2j] = row0[j], out[2j + 1] = row1[j] or 0 without row1, zeros to
  // nr columns).
  void (*split_row)(const int16_t* row, size_t k, size_t kp, int16_t* high, int16_t* low) = nullptr;
  void (*interleave_rows)(const int16_t* row0, const int16_t* row1, int cols, int nr, int16_t* out) = nullptr;
  // n elements each: out = a (+) b with the node's parameters; the inputs as `type` stores them.
  void (*add)(const void* a, const void* b, int64_t n, const Q16AddParams& params, void* out) = nullptr;
  void (*mul)(const void* a, const void* b, int64_t n, const Q16MulParams& params, void* out) = nullptr;
  void (*requantize)(const void* in, int64_t n, const Q16RequantizeParams& params, void* out) = nullptr;
  // QUANTIZE float32 -> uint8/int8/int16, per tensor (AffineQuantize): round(x / double(scale))
  // half away from zero, as cvttsd2si converts it, plus the zero point (wrapping), clamped.
  void (*quantize)(const float* in, int64_t n, double scale, int32_t zero_point, TfLiteType type, void* out) = nullptr;
  // DEQUANTIZE uint8/int8/int16 -> float32, per tensor: float(double(scale) * (q - zero_point)).
  void (*dequantize)(const void* in, int64_t n, double scale, int32_t zero_point, TfLiteType type,
                     float* out) = nullptr;
};

// The set that goes with a float microkernel set, as QuantKernelsFor picks the 8-bit one (the
// same override, SelectKernelSet / TOUCHSTONE_CPU_KERNELS, forces each): AVX-512 where the 8-bit
// set is AVX-512 VNNI, AVX2 where it is AVX2, else the portable set.
const Q16Kernels& Q16KernelsFor(const MicroKernels& set);

namespace q16_scalar {
const Q16Kernels* Table();
}
#if defined(__x86_64__)
namespace q16_avx2 {
const Q16Kernels* Table();
}
namespace q16_avx512 {
const Q16Kernels* Table();
}
#endif

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_Q16_KERNELS_H_
