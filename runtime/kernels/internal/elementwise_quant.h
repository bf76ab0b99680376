// Integer arithmetic the reference element-wise kernels use on quantized tensors, beyond the
// fixed-point primitives they share with the other quantized kernels (quantization_util.h):
// wrapping integer ops, the reciprocal DIV uses, 8-bit lookup tables built from a float function,
// and the sigmoid table TFLite's int16 tanh and logistic interpolate in. Quantized kernels are
// compared byte for byte with TensorFlow Lite's, so every rounding step follows TFLite's; the tests
// of runtime/kernels/reference (arithmetic_ops_test.cc, activation_ops_test.cc, ...) and the op
// suite check it.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_QUANT_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_QUANT_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "runtime/kernels/internal/quantization_util.h"

namespace touchstone {
namespace elementwise {

// x * 2^shift for shift in [0, 31], wrapping like the 32-bit multiply it stands for.
inline int32_t ShiftLeftWrap(int32_t x, int shift) { return static_cast<int32_t>(static_cast<uint32_t>(x) << shift); }

inline int CountLeadingZeros32(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }
inline int CountLeadingSignBits32(int32_t x) {
  if (x >= 0) return CountLeadingZeros32(static_cast<uint32_t>(x)) - 1;
  if (x == std::numeric_limits<int32_t>::min()) return 0;
  return CountLeadingZeros32(2 * static_cast<uint32_t>(-x) - 1);
}

// 1/x as a Q0.31 significand for x > 0 with x_integer_digits integer bits; *bits_over_unit gets the
// exponent to apply.
inline int32_t GetReciprocal(int32_t x, int x_integer_digits, int* bits_over_unit) {
  const int headroom_plus_one = CountLeadingZeros32(static_cast<uint32_t>(x));
  *bits_over_unit = x_integer_digits - headroom_plus_one;
  const int32_t shifted_minus_one =
      static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) - (uint32_t{1} << 31));
  namespace fp = quantization_util::fixed_point;
  return fp::OneOverOnePlusXForXIn01(fp::FixedPoint<int32_t, 0>::FromRaw(shifted_minus_one)).raw;
}

// ---------------------------------------------------------------------------------------------
// Lookup tables built from a float function.

// 8-bit table: entry for quantized input v is quantize_out(f(dequantize_in(v))), rounded half away
// from zero and clamped. Indexed by the input's byte (int8 values cast to uint8).
template <typename T, typename F>
inline void PopulateLut8(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                         F f, uint8_t* lut) {
  static_assert(std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value, "8-bit types only");
  const float inverse_scale = 1 / output_scale;
  const int32_t lo = std::numeric_limits<T>::min();
  const int32_t hi = std::numeric_limits<T>::max();
  for (int32_t v = lo; v <= hi; ++v) {
    const float dequantized = input_scale * static_cast<float>(v - input_zero_point);
    const float transformed = f(dequantized);
    const float rescaled = std::round(transformed * inverse_scale);
    const int32_t q = static_cast<int32_t>(rescaled + static_cast<float>(output_zero_point));
    lut[static_cast<uint8_t>(static_cast<T>(v))] = static_cast<uint8_t>(static_cast<T>(std::max(std::min(hi, q), lo)));
  }
}

// ---------------------------------------------------------------------------------------------
// 16-bit logistic and tanh by table interpolation (inputs rescaled so that 2^17 stands for 32/3).

// sigmoid(i / 24) in unsigned Q0.16, i = 0..255, as TensorFlow Lite's int16 logistic and tanh
// kernels tabulate it (the last entry saturates at 65535). Data, needed for bit-exact results.
inline const uint16_t* SigmoidTableQ16() {
  static const uint16_t kTable[256] = {
      32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
      43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
      51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
      57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
      61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
      63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
      64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
      64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
      65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
      65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
      65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
      65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
      65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
      65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
      65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
      65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};
  return kTable;
}

// Rescales a 16-bit input for the table: by (multiplier, right shift) when the input scale is not a
// power of two, else by 3 * 2^left_shift.
inline int32_t RescaleForSigmoidTable(int16_t x, int32_t multiplier, int shift) {
  if (multiplier == 0) return static_cast<int32_t>(x) * (3 << shift);
  const int32_t round = shift > 0 ? (1 << (shift - 1)) : 0;
  return (static_cast<int32_t>(x) * multiplier + round) >> shift;
}

// The sigmoid table at |v|, which has `frac_bits` fractional bits, interpolated linearly and scaled
// by 2^frac_bits; `saturated` past the table's last entry.
inline uint32_t InterpolateSigmoidTable(uint32_t abs_v, int frac_bits, uint32_t saturated) {
  const uint32_t index = abs_v >> frac_bits;
  if (index >= 255) return saturated;
  const uint16_t* table = SigmoidTableQ16();
  const uint32_t a = table[index];
  const uint32_t b = table[index + 1];
  const uint32_t frac = abs_v & ((1u << frac_bits) - 1);
  return (a << frac_bits) + frac * (b - a);
}

// logistic on int16 (output Q0.15) by interpolation in the sigmoid table.
inline int16_t LogisticInt16ByTable(int16_t x, int32_t multiplier, int shift) {
  const int32_t v = RescaleForSigmoidTable(x, multiplier, shift);
  uint32_t result = InterpolateSigmoidTable(static_cast<uint32_t>(std::abs(v)), 9, 0x7FFFu << 10);
  result = v >= 0 ? (result + (1u << 9)) : ((1u << (16 + 9)) - result + (1u << 9) - 1);
  return static_cast<int16_t>(result >> 10);
}

// tanh on int16 (output Q0.15) through tanh(x) = 2 * sigmoid(2x) - 1 in the same table.
inline int16_t TanhInt16ByTable(int16_t x, int32_t multiplier, int shift) {
  const int32_t v = RescaleForSigmoidTable(x, multiplier, shift);
  int32_t result = static_cast<int32_t>(InterpolateSigmoidTable(static_cast<uint32_t>(std::abs(v)), 8, 0xFFFFu << 8));
  result = v >= 0 ? (result - (1 << (14 + 9)) + (1 << (9 - 2))) : (-result + (1 << (14 + 9)) + (1 << (9 - 2)) - 1);
  return static_cast<int16_t>(result >> (9 - 1));
}

}  // namespace elementwise
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_QUANT_H_
