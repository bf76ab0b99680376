// NEON int8 matrix-vector sets for arm64: plain NEON (vmull_s8: a product of two int8 values fits
// int16 exactly, then pairwise widening adds into int32) and ARMv8.2 dot products (SDOT, chosen
// where the auxiliary vector says the CPU has it: both operands are signed, so nothing is offset).
// Both keep the matrix as it is, four rows at a time sharing each load of x; int32 lanes wrap as
// the portable set's sums do.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/isa_target.h"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace touchstone {
namespace optimized {
namespace int8_gemv_neon_common {
namespace {

constexpr size_t kRows = 4;

size_t PackedSize(size_t rows, size_t depth) { return rows * depth; }

void Pack(const int8_t* matrix, size_t rows, size_t depth, uint8_t* packed) {
  std::memcpy(packed, matrix, rows * depth);
}

inline int32_t Tail(const int8_t* w, const int8_t* x, size_t begin, size_t depth, int32_t sum) {
  uint32_t total = static_cast<uint32_t>(sum);
  for (size_t k = begin; k < depth; ++k) total += static_cast<uint32_t>(int32_t{w[k]} * x[k]);
  return static_cast<int32_t>(total);
}

// acc + the 16 products of w and x, in four int32 lanes.
inline int32x4_t MulAccPlain(int32x4_t acc, int8x16_t w, int8x16_t x) {
  acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(w), vget_low_s8(x)));
  return vpadalq_s16(acc, vmull_high_s8(w, x));
}

TS_DOTPROD inline int32x4_t MulAccDot(int32x4_t acc, int8x16_t w, int8x16_t x) { return vdotq_s32(acc, w, x); }

// Always inlined, so that the dot-product instantiation's MulAcc lands in a function compiled
// with the extension (GemvDot).
template <int32x4_t (*MulAcc)(int32x4_t, int8x16_t, int8x16_t)>
__attribute__((always_inline)) inline void GemvRows(const int8_t* w, size_t rows, size_t depth, const int8_t* x,
                                                    int32_t* out) {
  size_t r = 0;
  for (; r + kRows <= rows; r += kRows, w += kRows * depth) {
    int32x4_t acc[kRows] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
    size_t k = 0;
    for (; k + 16 <= depth; k += 16) {
      const int8x16_t xv = vld1q_s8(x + k);
      for (size_t i = 0; i < kRows; ++i) acc[i] = MulAcc(acc[i], vld1q_s8(w + i * depth + k), xv);
    }
    for (size_t i = 0; i < kRows; ++i) out[r + i] = Tail(w + i * depth, x, k, depth, vaddvq_s32(acc[i]));
  }
  for (; r < rows; ++r, w += depth) {
    int32x4_t acc = vdupq_n_s32(0);
    size_t k = 0;
    for (; k + 16 <= depth; k += 16) acc = MulAcc(acc, vld1q_s8(w + k), vld1q_s8(x + k));
    out[r] = Tail(w, x, k, depth, vaddvq_s32(acc));
  }
}

void GemvPlain(const uint8_t* packed, size_t rows, size_t depth, const int8_t* x, int32_t* out) {
  GemvRows<MulAccPlain>(reinterpret_cast<const int8_t*>(packed), rows, depth, x, out);
}

TS_DOTPROD void GemvDot(const uint8_t* packed, size_t rows, size_t depth, const int8_t* x, int32_t* out) {
  GemvRows<MulAccDot>(reinterpret_cast<const int8_t*>(packed), rows, depth, x, out);
}

}  // namespace
}  // namespace int8_gemv_neon_common

namespace int8_gemv_neon {
const Int8GemvKernels* Table() {
  static const Int8GemvKernels table{"neon", int8_gemv_neon_common::PackedSize, int8_gemv_neon_common::Pack,
                                     int8_gemv_neon_common::GemvPlain};
  return &table;
}
}  // namespace int8_gemv_neon

namespace int8_gemv_neon_dotprod {
const Int8GemvKernels* Table() {
  static const Int8GemvKernels table{"neon+dotprod", int8_gemv_neon_common::PackedSize, int8_gemv_neon_common::Pack,
                                     int8_gemv_neon_common::GemvDot};
  return &table;
}
}  // namespace int8_gemv_neon_dotprod

}  // namespace optimized
}  // namespace touchstone

#endif  // __aarch64__
