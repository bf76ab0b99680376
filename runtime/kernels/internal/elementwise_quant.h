// Integer and fixed-point arithmetic the reference element-wise kernels use on quantized tensors.
//
// Quantized kernels are compared byte for byte with TensorFlow Lite's built-in kernels, so every
// rounding step here follows the arithmetic those kernels are specified by: multipliers as a Q0.31
// integer and a power-of-two exponent, "saturating rounding doubling high multiply" followed by a
// rounding right shift (two roundings), gemmlowp-style fixed-point formats for tanh/logistic/exp,
// and 256- or 513-entry lookup tables built from a float function. The comments say what each step
// computes; the tests in runtime/kernels/reference/elementwise_test.cc and the op suite check it.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_QUANT_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_QUANT_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>

namespace touchstone {
namespace elementwise {

// ---------------------------------------------------------------------------------------------
// Wrapping integer arithmetic (two's complement, no undefined behaviour).

template <typename T>
inline T WrapAdd(T a, T b) {
  using U = typename std::make_unsigned<T>::type;
  using W = typename std::common_type<U, unsigned int>::type;
  return static_cast<T>(
      static_cast<U>(static_cast<W>(static_cast<U>(a)) + static_cast<W>(static_cast<U>(b))));
}
template <typename T>
inline T WrapSub(T a, T b) {
  using U = typename std::make_unsigned<T>::type;
  using W = typename std::common_type<U, unsigned int>::type;
  return static_cast<T>(
      static_cast<U>(static_cast<W>(static_cast<U>(a)) - static_cast<W>(static_cast<U>(b))));
}
template <typename T>
inline T WrapMul(T a, T b) {
  using U = typename std::make_unsigned<T>::type;
  using W = typename std::common_type<U, unsigned int>::type;
  return static_cast<T>(
      static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
}
template <typename T>
inline T WrapNeg(T a) {
  return WrapSub<T>(T(0), a);
}
// x * 2^shift for shift in [0, 31], wrapping like the 32-bit multiply it stands for.
inline int32_t ShiftLeftWrap(int32_t x, int shift) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) << shift);
}

// ---------------------------------------------------------------------------------------------
// Q0.31 multipliers.

// Splits a real multiplier into a Q0.31 significand and a power-of-two exponent:
// real ~= quantized * 2^(shift - 31). A zero multiplier gives (0, 0); magnitudes below 2^-31 flush
// to zero. The significand is rounded half away from zero.
inline void QuantizeMultiplier(double real, int32_t* quantized, int* shift) {
  if (real == 0.0 || !std::isfinite(real)) {
    *quantized = 0;
    *shift = 0;
    return;
  }
  const double q = std::frexp(real, shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  *quantized = static_cast<int32_t>(q_fixed);
}

// Round(a * b / 2^31) with ties away from zero; the single overflowing case (-1 * -1) saturates.
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}
inline int16_t SaturatingRoundingDoublingHighMul(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min())
    return std::numeric_limits<int16_t>::max();
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// x / 2^exponent rounded to nearest, ties away from zero (exponent in [0, 31]).
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}
inline int16_t RoundingDivideByPOT(int16_t x, int exponent) {
  return static_cast<int16_t>(RoundingDivideByPOT(static_cast<int32_t>(x), exponent));
}

// x * multiplier * 2^(shift - 31), rounded twice: once in the high multiply, once in the shift.
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(ShiftLeftWrap(x, left), multiplier),
                             right);
}

// True when x is (within 1e-3 in log2) a power of two; *log2 gets the rounded exponent.
inline bool CheckedLog2(float x, int* log2) {
  if (!(x > 0.0f)) return false;
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(x_log2);
  *log2 = static_cast<int>(rounded);
  return std::fabs(x_log2 - rounded) < 1e-3f;
}

inline int CountLeadingZeros32(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }
inline int CountLeadingSignBits32(int32_t x) {
  if (x >= 0) return CountLeadingZeros32(static_cast<uint32_t>(x)) - 1;
  if (x == std::numeric_limits<int32_t>::min()) return 0;
  return CountLeadingZeros32(2 * static_cast<uint32_t>(-x) - 1);
}

// ---------------------------------------------------------------------------------------------
// Fixed-point numbers in the gemmlowp convention: a signed integer `Raw` holding a value with
// IntBits integer bits (sign excluded) and the remaining bits fractional, range [-2^IntBits,
// 2^IntBits). Products use the saturating rounding doubling high multiply; sums wrap for 32-bit raw
// values except where a step asks for saturation.

template <typename Raw, int IntBits>
struct Fixed {
  static constexpr int kBits = 8 * static_cast<int>(sizeof(Raw));
  static constexpr int kFracBits = kBits - 1 - IntBits;
  Raw raw;
  static Fixed FromRaw(Raw r) { return Fixed{r}; }
  static Fixed Zero() { return Fixed{0}; }
  static Fixed One() {
    return Fixed{IntBits == 0 ? std::numeric_limits<Raw>::max()
                              : static_cast<Raw>(Raw(1) << kFracBits)};
  }
  // 2^exponent, exactly representable.
  static Fixed PowerOfTwo(int exponent) {
    return Fixed{static_cast<Raw>(Raw(1) << (kFracBits + exponent))};
  }
  // A constant given as a Q-format value on 32 bits (rounded down to 16 bits for int16 raws).
  static Fixed FromInt32Constant(int32_t v) {
    return Fixed{static_cast<Raw>(RoundingDivideByPOT(v, 32 - kBits))};
  }
};

template <typename Raw>
inline Raw RawAdd(Raw a, Raw b) {
  return WrapAdd<Raw>(a, b);
}
template <typename Raw>
inline Raw RawSub(Raw a, Raw b) {
  return WrapSub<Raw>(a, b);
}

template <typename Raw, int A, int B>
inline Fixed<Raw, A + B> operator*(Fixed<Raw, A> a, Fixed<Raw, B> b) {
  return Fixed<Raw, A + B>{SaturatingRoundingDoublingHighMul(a.raw, b.raw)};
}
template <typename Raw, int N>
inline Fixed<Raw, N> operator+(Fixed<Raw, N> a, Fixed<Raw, N> b) {
  return {RawAdd(a.raw, b.raw)};
}
template <typename Raw, int N>
inline Fixed<Raw, N> operator-(Fixed<Raw, N> a, Fixed<Raw, N> b) {
  return {RawSub(a.raw, b.raw)};
}
template <typename Raw, int N>
inline Fixed<Raw, N> operator-(Fixed<Raw, N> a) {
  return {WrapNeg(a.raw)};
}
template <typename Raw, int N>
inline Fixed<Raw, N> operator&(Fixed<Raw, N> a, Fixed<Raw, N> b) {
  return {static_cast<Raw>(a.raw & b.raw)};
}

// a + b, saturating when the raw type is 16 bits (plain wrapping addition for 32 bits).
template <typename Raw, int N>
inline Fixed<Raw, N> AddSaturatingIf16Bit(Fixed<Raw, N> a, Fixed<Raw, N> b) {
  if (sizeof(Raw) == 2) {
    const int32_t s = static_cast<int32_t>(a.raw) + static_cast<int32_t>(b.raw);
    return {static_cast<Raw>(std::min<int32_t>(32767, std::max<int32_t>(-32768, s)))};
  }
  return a + b;
}

// (a + b) / 2 rounded half away from zero.
template <typename Raw, int N>
inline Fixed<Raw, N> RoundingHalfSum(Fixed<Raw, N> a, Fixed<Raw, N> b) {
  const int64_t sum = static_cast<int64_t>(a.raw) + static_cast<int64_t>(b.raw);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return {static_cast<Raw>((sum + sign) / 2)};
}

// x * 2^exponent keeping the format: a saturating left shift or a rounding right shift.
template <typename Raw>
inline Raw SaturatingRoundingMultiplyByPOT(Raw x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0)
    return static_cast<Raw>(RoundingDivideByPOT(static_cast<int32_t>(x), -exponent));
  const int bits = 8 * static_cast<int>(sizeof(Raw));
  const int64_t threshold = (int64_t{1} << (bits - 1 - exponent)) - 1;
  if (x > threshold) return std::numeric_limits<Raw>::max();
  if (x < -threshold) return std::numeric_limits<Raw>::min();
  return static_cast<Raw>(static_cast<int64_t>(x) * (int64_t{1} << exponent));
}

// The same value in a format with Dst integer bits (saturating / rounding as needed).
template <int Dst, typename Raw, int Src>
inline Fixed<Raw, Dst> Rescale(Fixed<Raw, Src> x) {
  return {SaturatingRoundingMultiplyByPOT<Raw>(x.raw, Src - Dst)};
}
// Multiplies by 2^E by reinterpreting the format (exact).
template <int E, typename Raw, int N>
inline Fixed<Raw, N + E> ExactMulByPot(Fixed<Raw, N> x) {
  return {x.raw};
}

// exp(a) for a in [-1/4, 0): fourth-order Taylor expansion around -1/8.
template <typename Raw>
inline Fixed<Raw, 0> ExpOnQuarterInterval(Fixed<Raw, 0> a) {
  using F = Fixed<Raw, 0>;
  const F exp_minus_one_eighth = F::FromInt32Constant(1895147668);  // exp(-1/8)
  const F one_third = F::FromInt32Constant(715827883);
  const F x = a + F::PowerOfTwo(-3);
  const F x2 = x * x;
  const F x3 = x2 * x;
  const F x4 = x2 * x2;
  const F x4_over_4 = F::FromRaw(SaturatingRoundingMultiplyByPOT<Raw>(x4.raw, -2));
  const F poly = F::FromRaw(
      SaturatingRoundingMultiplyByPOT<Raw>((((x4_over_4 + x3) * one_third) + x2).raw, -1));
  return AddSaturatingIf16Bit(exp_minus_one_eighth, exp_minus_one_eighth * (x + poly));
}

// exp(a) for a <= 0: the fractional quarter through the polynomial above, then one multiplication
// by exp(-2^k) for every set bit k of the remaining magnitude.
template <typename Raw, int IntBits>
inline Fixed<Raw, 0> ExpOnNegativeValues(Fixed<Raw, IntBits> a) {
  using In = Fixed<Raw, IntBits>;
  using Out = Fixed<Raw, 0>;
  constexpr int kFrac = In::kFracBits;
  const In one_quarter = In::PowerOfTwo(-2);
  const In mask = one_quarter - In::FromRaw(1);
  const In a_mod_quarter_minus_quarter = (a & mask) - one_quarter;
  Out result = ExpOnQuarterInterval(Rescale<0>(a_mod_quarter_minus_quarter));
  const Raw remainder = (a_mod_quarter_minus_quarter - a).raw;
  struct Step {
    int exponent;
    int32_t multiplier;  // exp(-2^exponent) in Q0.31
  };
  static constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084},
                                    {1, 290630308},   {2, 39332535},    {3, 720401},
                                    {4, 242}};
  for (const Step& s : kSteps) {
    if (IntBits > s.exponent) {
      const int bit = kFrac + s.exponent;
      if (remainder & static_cast<Raw>(Raw(1) << bit))
        result = result * Out::FromInt32Constant(s.multiplier);
    }
  }
  if (IntBits > 5) {
    const int clamp_bit = 36 - IntBits;  // -32.0 in this format
    const In clamp = In::FromInt32Constant(-(int32_t{1} << clamp_bit));
    if (a.raw < clamp.raw) result = Out::Zero();
  }
  if (a.raw == 0) result = Out::One();
  return result;
}

// (1 - a) / (1 + a) for a in (0, 1): three Newton-Raphson steps on the half denominator.
template <typename Raw>
inline Fixed<Raw, 0> OneMinusXOverOnePlusX(Fixed<Raw, 0> a) {
  using F0 = Fixed<Raw, 0>;
  using F2 = Fixed<Raw, 2>;
  const F0 half_denominator = RoundingHalfSum(a, F0::One());
  const F2 c48_17 = F2::FromInt32Constant(1515870810);    // 48/17
  const F2 cm32_17 = F2::FromInt32Constant(-1010580540);  // -32/17
  F2 x = c48_17 + half_denominator * cm32_17;
  for (int i = 0; i < 3; ++i) {
    const F2 one_minus = F2::One() - half_denominator * x;
    x = x + Rescale<2>(x * one_minus);
  }
  return Rescale<0>(x - F2::One());
}

// 1 / (1 + a) for a in [0, 1): the same Newton-Raphson iteration, halved at the end.
template <typename Raw>
inline Fixed<Raw, 0> OneOverOnePlusX(Fixed<Raw, 0> a) {
  using F0 = Fixed<Raw, 0>;
  using F2 = Fixed<Raw, 2>;
  const F0 half_denominator = RoundingHalfSum(a, F0::One());
  const F2 c48_17 = F2::FromInt32Constant(1515870810);
  const F2 cm32_17 = F2::FromInt32Constant(-1010580540);
  F2 x = c48_17 + half_denominator * cm32_17;
  for (int i = 0; i < 3; ++i) {
    const F2 one_minus = F2::One() - half_denominator * x;
    x = x + Rescale<2>(x * one_minus);
  }
  return Rescale<0>(ExactMulByPot<-1>(x));
}

// tanh(a) in fixed point: (1 - exp(-2|a|)) / (1 + exp(-2|a|)) with the sign of a.
template <typename Raw, int IntBits>
inline Fixed<Raw, 0> FixedTanh(Fixed<Raw, IntBits> a) {
  using Out = Fixed<Raw, 0>;
  if (a.raw == 0) return Out::Zero();
  const bool negative = a.raw < 0;
  const Fixed<Raw, IntBits> n = negative ? a : -a;  // n <= 0
  const Out t = OneMinusXOverOnePlusX(ExpOnNegativeValues(ExactMulByPot<1>(n)));
  return negative ? -t : t;
}

// logistic(a) = 1 / (1 + exp(-a)) in fixed point.
template <typename Raw, int IntBits>
inline Fixed<Raw, 0> FixedLogistic(Fixed<Raw, IntBits> a) {
  using Out = Fixed<Raw, 0>;
  if (a.raw == 0) return Out::FromInt32Constant(1 << 30);  // 0.5
  const bool positive = a.raw > 0;
  const Fixed<Raw, IntBits> abs_a = positive ? a : -a;
  const Out if_positive = OneOverOnePlusX(ExpOnNegativeValues(-abs_a));
  return positive ? if_positive : Out::One() - if_positive;
}

// 1/x as a Q0.31 significand for x > 0 with x_integer_digits integer bits; *bits_over_unit gets the
// exponent to apply.
inline int32_t GetReciprocal(int32_t x, int x_integer_digits, int* bits_over_unit) {
  const int headroom_plus_one = CountLeadingZeros32(static_cast<uint32_t>(x));
  *bits_over_unit = x_integer_digits - headroom_plus_one;
  const int32_t shifted_minus_one =
      static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) - (uint32_t{1} << 31));
  return OneOverOnePlusX(Fixed<int32_t, 0>::FromRaw(shifted_minus_one)).raw;
}

// 1/sqrt(input) as a multiplier and exponent (Newton-Raphson in Q3.28). `reverse_shift` is -1 to
// return the exponent as a left shift. Inputs 0 and 1 give the largest multiplier.
inline void GetInvSqrtQuantizedMultiplierExp(int32_t input, int reverse_shift,
                                             int32_t* out_inv_sqrt, int* out_shift) {
  if (input <= 1) {
    *out_inv_sqrt = std::numeric_limits<int32_t>::max();
    *out_shift = 0;
    return;
  }
  *out_shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++*out_shift;
  }
  const unsigned max_left_shift_bits = CountLeadingZeros32(static_cast<uint32_t>(input)) - 1;
  const unsigned left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
  *out_shift -= static_cast<int>(left_shift_bit_pairs);
  input <<= 2 * left_shift_bit_pairs;
  using F3 = Fixed<int32_t, 3>;
  using F0 = Fixed<int32_t, 0>;
  const F3 fixed_input = F3::FromRaw(input >> 1);
  const F3 half_input = F3::FromRaw(SaturatingRoundingMultiplyByPOT<int32_t>(fixed_input.raw, -1));
  const F3 three_halves = F3::FromInt32Constant((1 << 28) + (1 << 27));
  F3 x = F3::One();
  for (int i = 0; i < 5; ++i) {
    const F3 x3 = Rescale<3>(x * x * x);
    x = Rescale<3>(three_halves * x - half_input * x3);
  }
  const F0 half_sqrt2 = F0::FromInt32Constant(1518500250);
  x = F3::FromRaw((x * half_sqrt2).raw);
  *out_inv_sqrt = x.raw;
  if (*out_shift < 0) {
    *out_inv_sqrt = ShiftLeftWrap(*out_inv_sqrt, -*out_shift);
    *out_shift = 0;
  }
  *out_shift *= reverse_shift;
}

// ---------------------------------------------------------------------------------------------
// Lookup tables built from a float function.

// 8-bit table: entry for quantized input v is quantize_out(f(dequantize_in(v))), rounded half away
// from zero and clamped. Indexed by the input's byte (int8 values cast to uint8).
template <typename T, typename F>
inline void PopulateLut8(float input_scale, int32_t input_zero_point, float output_scale,
                         int32_t output_zero_point, F f, uint8_t* lut) {
  static_assert(std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value,
                "8-bit types only");
  const float inverse_scale = 1 / output_scale;
  const int32_t lo = std::numeric_limits<T>::min();
  const int32_t hi = std::numeric_limits<T>::max();
  for (int32_t v = lo; v <= hi; ++v) {
    const float dequantized = input_scale * static_cast<float>(v - input_zero_point);
    const float transformed = f(dequantized);
    const float rescaled = std::round(transformed * inverse_scale);
    const int32_t q = static_cast<int32_t>(rescaled + static_cast<float>(output_zero_point));
    lut[static_cast<uint8_t>(static_cast<T>(v))] =
        static_cast<uint8_t>(static_cast<T>(std::max(std::min(hi, q), lo)));
  }
}

// 16-bit table: 512 segments over the input range plus one end point; lookups interpolate linearly
// on the low 7 bits. Each sample is nudged by half the error at its segment's midpoint so that the
// interpolation is centred.
template <typename F>
inline void PopulateLut16(float input_scale, int32_t input_zero_point, float output_scale,
                          int32_t output_zero_point, F f, int16_t* lut) {
  const float input_min =
      input_scale * static_cast<float>(std::numeric_limits<int16_t>::min() - input_zero_point);
  const float input_max =
      input_scale * static_cast<float>(std::numeric_limits<int16_t>::max() - input_zero_point);
  const float output_min =
      output_scale * static_cast<float>(std::numeric_limits<int16_t>::min() - output_zero_point);
  const float output_max =
      output_scale * static_cast<float>(std::numeric_limits<int16_t>::max() - output_zero_point);
  const int steps = 512;
  const float step = (input_max - input_min) / steps;
  const float half_step = step / 2;
  const float output_scaling_inv = static_cast<float>(65536) / (output_max - output_min);
  const float table_min = static_cast<float>(std::numeric_limits<int16_t>::min());
  const float table_max = static_cast<float>(std::numeric_limits<int16_t>::max());
  for (int i = 0; i < steps; ++i) {
    const float val = f(input_min + i * step);
    const float val_mid = f(input_min + i * step + half_step);
    const float val_next = f(input_min + (i + 1) * step);
    const float sample = std::round(val * output_scaling_inv);
    const float mid_interp =
        std::round((val_next * output_scaling_inv + std::round(val * output_scaling_inv)) / 2);
    const float mid_value = std::round(val_mid * output_scaling_inv);
    const float bias = std::round((mid_interp - mid_value) / 2);
    lut[i] = static_cast<int16_t>(std::min(std::max(sample - bias, table_min), table_max));
  }
  lut[steps] = static_cast<int16_t>(
      std::min(std::max(std::round(f(input_max) * output_scaling_inv), table_min), table_max));
}

inline int16_t Lut16Lookup(int16_t value, const int16_t* lut) {
  const int index = 256 + (value >> 7);
  const int16_t offset = value & 0x7f;
  const int16_t base = lut[index];
  const int16_t slope = static_cast<int16_t>(lut[index + 1] - lut[index]);
  const int delta = (slope * offset + 64) >> 7;
  return static_cast<int16_t>(base + delta);
}

// ---------------------------------------------------------------------------------------------
// 16-bit logistic and tanh by table interpolation (inputs rescaled so that 2^17 stands for 32/3).

// sigmoid(i / 24) in unsigned Q0.16, i = 0..255, as TensorFlow Lite's int16 logistic and tanh
// kernels tabulate it (the last entry saturates at 65535). Data, needed for bit-exact results.
inline const uint16_t* SigmoidTableQ16() {
  static const uint16_t kTable[256] = {
      32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
      41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
      48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
      54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
      58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
      61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
      63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
      64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
      64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
      65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
      65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
      65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
      65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
      65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
      65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
      65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
      65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
      65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
      65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
      65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};
  return kTable;
}

// Rescales a 16-bit input for the table: by (multiplier, right shift) when the input scale is not a
// power of two, else by 3 * 2^left_shift.
inline int32_t RescaleForSigmoidTable(int16_t x, int32_t multiplier, int shift) {
  if (multiplier == 0) return static_cast<int32_t>(x) * (3 << shift);
  const int32_t round = shift > 0 ? (1 << (shift - 1)) : 0;
  return (static_cast<int32_t>(x) * multiplier + round) >> shift;
}

// logistic on int16 (output Q0.15) by interpolation in the sigmoid table.
inline int16_t LogisticInt16ByTable(int16_t x, int32_t multiplier, int shift) {
  const uint16_t* table = SigmoidTableQ16();
  const int32_t v = RescaleForSigmoidTable(x, multiplier, shift);
  const uint32_t abs_v = static_cast<uint32_t>(std::abs(v));
  const uint32_t hi = abs_v >> 9;
  uint32_t result;
  if (hi >= 255) {
    result = 0x7FFFu << 10;
  } else {
    const uint32_t a = table[hi];
    const uint32_t b = table[hi + 1];
    const uint32_t frac = abs_v & 0x1ff;
    result = (a << 9) + frac * (b - a);
  }
  result = v >= 0 ? (result + (1u << 9)) : ((1u << (16 + 9)) - result + (1u << 9) - 1);
  return static_cast<int16_t>(result >> 10);
}

// tanh on int16 (output Q0.15) through tanh(x) = 2 * sigmoid(2x) - 1 in the same table.
inline int16_t TanhInt16ByTable(int16_t x, int32_t multiplier, int shift) {
  const uint16_t* table = SigmoidTableQ16();
  const int32_t v = RescaleForSigmoidTable(x, multiplier, shift);
  const uint32_t abs_v = static_cast<uint32_t>(std::abs(v));
  const uint32_t hi = abs_v >> 8;
  int32_t result;
  if (hi >= 255) {
    result = 0xFFFF << 8;
  } else {
    const uint32_t a = table[hi];
    const uint32_t b = table[hi + 1];
    const uint32_t frac = abs_v & 0xFF;
    result = static_cast<int32_t>((a << 8) + frac * (b - a));
  }
  result = v >= 0 ? (result - (1 << (14 + 9)) + (1 << (9 - 2)))
                  : (-result + (1 << (14 + 9)) + (1 << (9 - 2)) - 1);
  return static_cast<int16_t>(result >> (9 - 1));
}

}  // namespace elementwise
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_QUANT_H_
