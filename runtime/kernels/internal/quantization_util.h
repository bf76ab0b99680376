// Fixed-point helpers shared by the quantized kernels, bit-exact with TensorFlow Lite 2.14.1
// (tensorflow/lite/kernels/internal/quantization_util.cc and common.h, gemmlowp's fixedpoint.h).
//
// A real multiplier is held as a Q0.31 significand and a power-of-two exponent. Applying it is the
// "double rounding" scheme TFLite's x86 builds use (TFLITE_SINGLE_ROUNDING is not defined there):
// a saturating rounding doubling high multiply, then a rounding right shift.
//
// Where TFLite's C++ relies on behaviour the language leaves undefined (signed overflow, shifts by
// 32 or more, float-to-int conversion out of range) these helpers spell out what the x86-64 code
// it compiles to does, so hostile models give TFLite's answer rather than undefined behaviour.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_QUANTIZATION_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_QUANTIZATION_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

namespace touchstone {
namespace quantization_util {

// static_cast<int32_t>(double) as x86-64's cvttsd2si computes it: truncation toward zero, and
// INT32_MIN (the "integer indefinite" value) for NaN and anything outside the int32 range.
inline int32_t TruncateToInt32LikeX86(double value) {
  if (!(value > -2147483649.0 && value < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(value);
}

// Same for a conversion to int64_t (cvttsd2si with a 64-bit destination).
inline int64_t TruncateToInt64LikeX86(double value) {
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(value);
}

// Two's-complement arithmetic (what TFLite's overflowing integer expressions compute), done in
// unsigned arithmetic of at least int's width so that no signed overflow happens; floating-point
// types get the plain operation.
template <typename T, typename Op>
inline T WrappingOp(T a, T b, Op op) {
  if constexpr (std::is_integral<T>::value) {
    using U = std::make_unsigned_t<T>;
    using W = std::common_type_t<U, unsigned int>;
    return static_cast<T>(static_cast<U>(op(static_cast<W>(static_cast<U>(a)), static_cast<W>(static_cast<U>(b)))));
  } else {
    return op(a, b);
  }
}
template <typename T>
inline T WrappingAdd(T a, T b) {
  return WrappingOp(a, b, std::plus<>());
}
template <typename T>
inline T WrappingSub(T a, T b) {
  return WrappingOp(a, b, std::minus<>());
}
template <typename T>
inline T WrappingMul(T a, T b) {
  return WrappingOp(a, b, std::multiplies<>());
}
template <typename T>
inline T WrappingNeg(T a) {
  return WrappingSub<T>(T(0), a);
}

// QuantizeMultiplier below as TFLite computes it: frexp, then round(significand * 2^31) in double.
inline void QuantizeMultiplierWithLibm(double real, int32_t* multiplier, int* shift) {
  if (real == 0.0 || !std::isfinite(real)) {
    *multiplier = 0;
    *shift = 0;
    return;
  }
  const double significand = std::frexp(real, shift);
  int64_t fixed = TruncateToInt64LikeX86(std::round(significand * static_cast<double>(1LL << 31)));
  if (fixed == (1LL << 31)) {
    fixed /= 2;
    ++*shift;
  }
  // All bits would be shifted out; TFLite says so with a zero multiplier instead.
  if (*shift < -31) {
    *shift = 0;
    fixed = 0;
  }
  *multiplier = static_cast<int32_t>(fixed);
}

// Splits `real` into a Q0.31 significand and an exponent: real ~= multiplier * 2^(shift - 31).
// Zero gives (0, 0); magnitudes below 2^-32 flush to (0, 0). A non-finite `real` also gives (0, 0):
// that is what TFLite's frexp/round/int64 conversion chain produces on x86-64.
// The same result as QuantizeMultiplierWithLibm, from the double's bits: a normal double is
// m * 2^(e - 1075) with a 53-bit m, so frexp gives m / 2^53 and e - 1022, and the significand times
// 2^31 is m / 2^22, rounded half away from zero in integers. Prepare calls it per output channel,
// where the two library calls cost more than the rest of the work together.
inline void QuantizeMultiplier(double real, int32_t* multiplier, int* shift) {
  uint64_t bits;
  static_assert(sizeof(bits) == sizeof(real), "double is 64 bits");
  std::memcpy(&bits, &real, sizeof(bits));
  const int biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  // Zero, subnormals, infinities and NaN: the library path.
  if (biased_exponent == 0 || biased_exponent == 0x7ff) {
    QuantizeMultiplierWithLibm(real, multiplier, shift);
    return;
  }
  const uint64_t m = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int64_t magnitude = static_cast<int64_t>((m + (uint64_t{1} << 21)) >> 22);  // in [2^30, 2^31]
  int64_t fixed = (bits >> 63) != 0 ? -magnitude : magnitude;
  *shift = biased_exponent - 1022;
  if (fixed == (1LL << 31)) {
    fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    fixed = 0;
  }
  *multiplier = static_cast<int32_t>(fixed);
}

// The three multipliers of TFLite's quantized ADD and SUB: each input onto twice the larger input
// scale, and the sum, shifted left by `left_shift` bits, back onto the output scale. The float and
// double steps are TFLite's (add.cc), so the multipliers match its bit for bit.
inline void QuantizeAddMultipliers(float input1_scale, float input2_scale, float output_scale, int left_shift,
                                   int32_t* input1_multiplier, int* input1_shift, int32_t* input2_multiplier,
                                   int* input2_shift, int32_t* output_multiplier, int* output_shift) {
  const double twice_max_input_scale = 2.0f * std::max(input1_scale, input2_scale);
  QuantizeMultiplier(input1_scale / twice_max_input_scale, input1_multiplier, input1_shift);
  QuantizeMultiplier(input2_scale / twice_max_input_scale, input2_multiplier, input2_shift);
  QuantizeMultiplier(twice_max_input_scale / (static_cast<float>(1 << left_shift) * output_scale), output_multiplier,
                     output_shift);
}

// round(a * b / 2^31), ties away from zero; the one overflowing case (INT32_MIN squared)
// saturates to INT32_MAX.
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t product = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = product >= 0 ? (1LL << 30) : (1 - (1LL << 30));
  return static_cast<int32_t>((product + nudge) / (1LL << 31));
}
inline int16_t SaturatingRoundingDoublingHighMul(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) {
    return std::numeric_limits<int16_t>::max();
  }
  const int32_t product = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int32_t nudge = product >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((product + nudge) / (1 << 15));
}

// x / 2^exponent rounded to nearest, ties away from zero; exponent in [0, 31].
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x * multiplier * 2^(shift - 31), rounded as TFLite's MultiplyByQuantizedMultiplier rounds it.
// A left shift is applied to x first and wraps like the int32 multiply TFLite writes (the x86
// shift instruction uses the count modulo 32).
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << (left_shift & 31));
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, multiplier), right_shift);
}

// x * multiplier * 2^(shift - 31) for a 64-bit accumulator, as TFLite's int64_t overload computes
// it for the 16x8 kernels: the multiplier is first rounded to 16 bits, then one rounding right
// shift (ties toward +infinity). Shift counts outside [0, 63] wrap like the x86 shift instruction.
inline int32_t MultiplyByQuantizedMultiplier(int64_t x, int32_t multiplier, int shift) {
  const int32_t reduced_multiplier =
      multiplier < 0x7FFF0000 ? static_cast<int32_t>((static_cast<int64_t>(multiplier) + (1 << 15)) >> 16) : 0x7FFF;
  const int total_shift = 15 - shift;
  const int64_t round = static_cast<int64_t>(uint64_t{1} << ((total_shift - 1) & 63));
  const int64_t result = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(reduced_multiplier) +
                                              static_cast<uint64_t>(round));
  return static_cast<int32_t>(result >> (total_shift & 63));
}

// x * multiplier * 2^(shift - 31) as the x86 (AVX2) kernels of the ruy version TFLite 2.14 builds
// with apply the output multiplier of an integer GEMM (TFLite's x86 build runs the int8 and int16
// matrix products of CONV_2D, FULLY_CONNECTED and BATCH_MATMUL through ruy): x is shifted left
// first (wrapping at 32 bits; a count of 32 or more gives 0, as vpsllvd), multiplied and rounded to
// the high 32 bits (ties toward +infinity), then shifted right rounding ties toward +infinity too
// (not away from zero as MultiplyByQuantizedMultiplier does); where adding the rounding nudge would
// overflow, the result is 2^(31 - right shift), as ruy's overflow fixup writes it.
inline int32_t MultiplyByQuantizedMultiplierRoundingUp(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted = left_shift >= 32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  const int64_t product = static_cast<int64_t>(shifted) * multiplier;
  const int32_t high =
      static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(product + (int64_t{1} << 30)) >> 31));
  if (right_shift <= 0) return high;
  if (right_shift >= 32) return high >> 31;  // ruy's shift counts stay below 32; keep it defined
  const int32_t nudge = int32_t{1} << (right_shift - 1);
  if (high > std::numeric_limits<int32_t>::max() - nudge) return int32_t{1} << (31 - right_shift);
  return (high + nudge) >> right_shift;
}

// true when x is a power of two (within 1e-3 in log2, as TFLite's CheckedLog2 tests it); *log2
// gets the rounded exponent.
inline bool CheckedLog2(float x, int* log2) {
  if (!(x > 0.0f)) return false;  // TFLite's NaN comparison says the same
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float x_log2_rounded = std::round(x_log2);
  *log2 = static_cast<int>(x_log2_rounded);
  return std::abs(x_log2 - x_log2_rounded) < 1e-3f;
}

// gemmlowp's fixed-point numbers (fixedpoint.h) on int16_t or int32_t raw values: IntegerBits
// integer bits besides the sign, the rest fractional. Sums wrap like gemmlowp's scalar code does on
// x86-64; products are saturating rounding doubling high multiplies. The transcendental functions
// below are gemmlowp's, step for step, because TFLite's integer LSTM and softmax-style kernels
// depend on their exact rounding.
namespace fixed_point {

template <typename Raw>
inline Raw Truncate(int64_t value) {
  return static_cast<Raw>(static_cast<uint64_t>(value));
}

// x * 2^exponent: a saturating left shift, or a rounding right shift for a negative exponent.
template <typename Raw>
inline Raw SaturatingRoundingMultiplyByPOT(Raw x, int exponent) {
  if (exponent < 0) return static_cast<Raw>(RoundingDivideByPOT(x, -exponent));
  if (exponent == 0) return x;
  const int32_t threshold = (1 << (8 * static_cast<int>(sizeof(Raw)) - 1 - exponent)) - 1;
  if (x > threshold) return std::numeric_limits<Raw>::max();
  if (x < -threshold) return std::numeric_limits<Raw>::min();
  return Truncate<Raw>(static_cast<int64_t>(x) * (int64_t{1} << exponent));
}

template <typename Raw, int IntegerBits>
struct FixedPoint {
  static constexpr int kTotalBits = 8 * static_cast<int>(sizeof(Raw));
  static constexpr int kFractionalBits = kTotalBits - 1 - IntegerBits;
  static_assert(IntegerBits >= 0 && IntegerBits < kTotalBits, "bad IntegerBits");

  Raw raw;

  static FixedPoint FromRaw(Raw raw) { return FixedPoint{raw}; }
  static FixedPoint Zero() { return FixedPoint{0}; }
  static FixedPoint One() {
    return FixedPoint{IntegerBits == 0 ? std::numeric_limits<Raw>::max()
                                       : Truncate<Raw>(int64_t{1} << kFractionalBits)};
  }
  // 2^Exponent, exactly representable.
  template <int Exponent>
  static FixedPoint ConstantPOT() {
    return FixedPoint{Truncate<Raw>(int64_t{1} << (kFractionalBits + Exponent))};
  }
  // A constant written as a 32-bit raw value, rounded to this raw type's width
  // (gemmlowp's GEMMLOWP_CHECKED_FIXEDPOINT_CONSTANT).
  static FixedPoint Constant(int32_t raw32) {
    return FixedPoint{static_cast<Raw>(RoundingDivideByPOT(raw32, 32 - kTotalBits))};
  }
};

template <typename Raw, int A, int B>
inline FixedPoint<Raw, A + B> operator*(FixedPoint<Raw, A> a, FixedPoint<Raw, B> b) {
  return {SaturatingRoundingDoublingHighMul(a.raw, b.raw)};
}
template <typename Raw, int N>
inline FixedPoint<Raw, N> operator+(FixedPoint<Raw, N> a, FixedPoint<Raw, N> b) {
  return {Truncate<Raw>(static_cast<int64_t>(a.raw) + b.raw)};
}
template <typename Raw, int N>
inline FixedPoint<Raw, N> operator-(FixedPoint<Raw, N> a, FixedPoint<Raw, N> b) {
  return {Truncate<Raw>(static_cast<int64_t>(a.raw) - b.raw)};
}
template <typename Raw, int N>
inline FixedPoint<Raw, N> operator-(FixedPoint<Raw, N> a) {
  return {Truncate<Raw>(-static_cast<int64_t>(a.raw))};
}
template <typename Raw, int N>
inline FixedPoint<Raw, N> operator&(FixedPoint<Raw, N> a, FixedPoint<Raw, N> b) {
  return {static_cast<Raw>(a.raw & b.raw)};
}

// (a + b) / 2 rounded half away from zero.
template <typename Raw, int N>
inline FixedPoint<Raw, N> RoundingHalfSum(FixedPoint<Raw, N> a, FixedPoint<Raw, N> b) {
  const int64_t sum = static_cast<int64_t>(a.raw) + b.raw;
  return {static_cast<Raw>((sum + (sum >= 0 ? 1 : -1)) / 2)};
}

// a + b, saturating for 16-bit raw values and wrapping for 32-bit ones.
template <typename Raw, int N>
inline FixedPoint<Raw, N> AddSaturatingIf16Bit(FixedPoint<Raw, N> a, FixedPoint<Raw, N> b) {
  if (sizeof(Raw) != 2) return a + b;
  const int32_t sum = static_cast<int32_t>(a.raw) + b.raw;
  return {static_cast<Raw>(std::min<int32_t>(32767, std::max<int32_t>(-32768, sum)))};
}

// The same value with Dst integer bits.
template <int Dst, typename Raw, int Src>
inline FixedPoint<Raw, Dst> Rescale(FixedPoint<Raw, Src> x) {
  return {SaturatingRoundingMultiplyByPOT<Raw>(x.raw, Src - Dst)};
}

// Multiplies by 2^Exponent by changing the format only.
template <int Exponent, typename Raw, int N>
inline FixedPoint<Raw, N + Exponent> ExactMulByPot(FixedPoint<Raw, N> x) {
  return {x.raw};
}

// exp(a) for a in [-1/4, 0): Taylor expansion around -1/8.
template <typename Raw>
inline FixedPoint<Raw, 0> ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(FixedPoint<Raw, 0> a) {
  using F = FixedPoint<Raw, 0>;
  const F constant_term = F::Constant(1895147668);  // exp(-1/8)
  const F constant_1_over_3 = F::Constant(715827883);
  const F x = a + F::template ConstantPOT<-3>();
  const F x2 = x * x;
  const F x3 = x2 * x;
  const F x4 = x2 * x2;
  const F x4_over_4 = F::FromRaw(SaturatingRoundingMultiplyByPOT<Raw>(x4.raw, -2));
  const F x4_over_24_plus_x3_over_6_plus_x2_over_2 =
      F::FromRaw(SaturatingRoundingMultiplyByPOT<Raw>((((x4_over_4 + x3) * constant_1_over_3) + x2).raw, -1));
  return AddSaturatingIf16Bit(constant_term, constant_term * (x + x4_over_24_plus_x3_over_6_plus_x2_over_2));
}

// exp(a) for a <= 0.
template <typename Raw, int IntegerBits>
inline FixedPoint<Raw, 0> ExpOnNegativeValues(FixedPoint<Raw, IntegerBits> a) {
  using InputF = FixedPoint<Raw, IntegerBits>;
  using ResultF = FixedPoint<Raw, 0>;
  constexpr int kFractionalBits = InputF::kFractionalBits;
  const InputF one_quarter = InputF::template ConstantPOT<-2>();
  const InputF mask = one_quarter - InputF::FromRaw(1);
  const InputF a_mod_quarter_minus_one_quarter = (a & mask) - one_quarter;
  ResultF result = ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(Rescale<0>(a_mod_quarter_minus_one_quarter));
  const Raw remainder = (a_mod_quarter_minus_one_quarter - a).raw;
  // One multiplication by exp(-2^exponent) for each set bit of the remainder (the barrel shifter).
  struct Step {
    int exponent;
    int32_t multiplier;
  };
  constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                             {2, 39332535},    {3, 720401},      {4, 242}};
  for (const Step& step : kSteps) {
    if (IntegerBits > step.exponent) {
      const Raw bit = Truncate<Raw>(int64_t{1} << (kFractionalBits + step.exponent));
      if ((remainder & bit) != 0) result = result * ResultF::Constant(step.multiplier);
    }
  }
  if (IntegerBits > 5) {
    const InputF clamp = InputF::Constant(-(1 << (IntegerBits > 5 ? 36 - IntegerBits : 0)));
    if (a.raw < clamp.raw) result = ResultF::Zero();
  }
  if (a.raw == 0) result = ResultF::One();
  return result;
}

// Newton-Raphson iterations for 1 / (1 + a), a in (0, 1), on half the denominator.
template <typename Raw>
inline FixedPoint<Raw, 2> ReciprocalOfHalfDenominator(FixedPoint<Raw, 0> half_denominator) {
  using F2 = FixedPoint<Raw, 2>;
  const F2 constant_48_over_17 = F2::Constant(1515870810);
  const F2 constant_neg_32_over_17 = F2::Constant(-1010580540);
  F2 x = constant_48_over_17 + half_denominator * constant_neg_32_over_17;
  for (int i = 0; i < 3; ++i) {
    const F2 half_denominator_times_x = half_denominator * x;
    const F2 one_minus_half_denominator_times_x = F2::One() - half_denominator_times_x;
    x = x + Rescale<2>(x * one_minus_half_denominator_times_x);
  }
  return x;
}

// (1 - a) / (1 + a) for a in (0, 1).
template <typename Raw>
inline FixedPoint<Raw, 0> OneMinusXOverOnePlusXForXIn01(FixedPoint<Raw, 0> a) {
  using F0 = FixedPoint<Raw, 0>;
  using F2 = FixedPoint<Raw, 2>;
  const F2 x = ReciprocalOfHalfDenominator(RoundingHalfSum(a, F0::One()));
  return Rescale<0>(x - F2::One());
}

// 1 / (1 + a) for a in (0, 1).
template <typename Raw>
inline FixedPoint<Raw, 0> OneOverOnePlusXForXIn01(FixedPoint<Raw, 0> a) {
  using F0 = FixedPoint<Raw, 0>;
  return Rescale<0>(ExactMulByPot<-1>(ReciprocalOfHalfDenominator(RoundingHalfSum(a, F0::One()))));
}

// tanh(a) for any a (gemmlowp::tanh).
template <typename Raw, int IntegerBits>
inline FixedPoint<Raw, 0> Tanh(FixedPoint<Raw, IntegerBits> a) {
  using ResultF = FixedPoint<Raw, 0>;
  if (a.raw == 0) return ResultF::Zero();
  const bool negative = a.raw < 0;
  const FixedPoint<Raw, IntegerBits> n = negative ? a : -a;
  const ResultF t = OneMinusXOverOnePlusXForXIn01(ExpOnNegativeValues(ExactMulByPot<1>(n)));
  return negative ? -t : t;
}

// 1 / (1 + exp(-a)) for any a (gemmlowp::logistic).
template <typename Raw, int IntegerBits>
inline FixedPoint<Raw, 0> Logistic(FixedPoint<Raw, IntegerBits> a) {
  using ResultF = FixedPoint<Raw, 0>;
  if (a.raw == 0) return ResultF::Constant(1 << 30);  // 0.5
  const bool positive = a.raw > 0;
  const FixedPoint<Raw, IntegerBits> abs_input = positive ? a : -a;
  const ResultF result_if_positive = OneOverOnePlusXForXIn01(ExpOnNegativeValues(-abs_input));
  return positive ? result_if_positive : ResultF::One() - result_if_positive;
}

}  // namespace fixed_point

// 1 / sqrt(input) as a Q0.31 multiplier and a shift (TFLite's GetInvSqrtQuantizedMultiplierExp:
// Newton-Raphson in Q3.28). reverse_shift -1 returns the shift as a left shift, as
// MultiplyByQuantizedMultiplier takes it. Inputs 0 and 1 give the largest multiplier.
inline void GetInvSqrtQuantizedMultiplierExp(int32_t input, int reverse_shift, int32_t* output_inv_sqrt,
                                             int* output_shift) {
  if (input <= 1) {
    *output_inv_sqrt = std::numeric_limits<int32_t>::max();
    *output_shift = 0;
    return;
  }
  *output_shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++*output_shift;
  }
  const unsigned max_left_shift_bits = __builtin_clz(static_cast<uint32_t>(input)) - 1;
  const unsigned max_left_shift_bit_pairs = max_left_shift_bits / 2;
  const unsigned left_shift_bit_pairs = max_left_shift_bit_pairs - 1;
  *output_shift -= static_cast<int>(left_shift_bit_pairs);
  input <<= 2 * left_shift_bit_pairs;
  using F3 = fixed_point::FixedPoint<int32_t, 3>;
  using F0 = fixed_point::FixedPoint<int32_t, 0>;
  const F3 fixedpoint_input = F3::FromRaw(input >> 1);
  const F3 fixedpoint_half_input =
      F3::FromRaw(fixed_point::SaturatingRoundingMultiplyByPOT<int32_t>(fixedpoint_input.raw, -1));
  const F3 fixedpoint_half_three = F3::Constant((1 << 28) + (1 << 27));
  F3 x = F3::One();
  for (int i = 0; i < 5; ++i) {
    const F3 x3 = fixed_point::Rescale<3>(x * x * x);
    x = fixed_point::Rescale<3>(fixedpoint_half_three * x - fixedpoint_half_input * x3);
  }
  const F0 fixedpoint_half_sqrt_2 = F0::Constant(1518500250);
  x = x * fixedpoint_half_sqrt_2;
  *output_inv_sqrt = x.raw;
  if (*output_shift < 0) {
    *output_inv_sqrt = static_cast<int32_t>(static_cast<uint32_t>(*output_inv_sqrt) << (-*output_shift));
    *output_shift = 0;
  }
  *output_shift *= reverse_shift;
}

// TFLite's int16 lookup tables (LUTPopulate / LUTLookup in common.h): 512 segments over the int16
// input range plus one end point, interpolated on the low 7 bits of the input. Each sample is
// nudged by half the interpolation error at its segment's midpoint. Real is the precision the table
// is computed in: float for the element-wise ops, double where TFLite computes in double (softmax).
template <typename Real, typename F>
inline void PopulateLut16(Real input_scale, int32_t input_zero_point, Real output_scale, int32_t output_zero_point, F f,
                          int16_t* lut) {
  constexpr int32_t kMin = std::numeric_limits<int16_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int16_t>::max();
  const Real input_min = input_scale * static_cast<Real>(kMin - input_zero_point);
  const Real input_max = input_scale * static_cast<Real>(kMax - input_zero_point);
  const Real output_min = output_scale * static_cast<Real>(kMin - output_zero_point);
  const Real output_max = output_scale * static_cast<Real>(kMax - output_zero_point);
  const int steps = 512;
  const Real step = (input_max - input_min) / steps;
  const Real half_step = step / 2;
  const Real output_scaling_inv = static_cast<Real>(kMax - kMin + 1) / (output_max - output_min);
  const Real table_min = static_cast<Real>(kMin);
  const Real table_max = static_cast<Real>(kMax);
  for (int i = 0; i < steps; ++i) {
    const Real value = f(input_min + i * step);
    const Real value_midpoint = f(input_min + i * step + half_step);
    const Real value_next = f(input_min + (i + 1) * step);
    const Real sample = std::round(value * output_scaling_inv);
    const Real midpoint_interpolated =
        std::round((value_next * output_scaling_inv + std::round(value * output_scaling_inv)) / 2);
    const Real midpoint = std::round(value_midpoint * output_scaling_inv);
    const Real bias = std::round((midpoint_interpolated - midpoint) / 2);
    lut[i] = static_cast<int16_t>(std::min(std::max(sample - bias, table_min), table_max));
  }
  lut[steps] =
      static_cast<int16_t>(std::min(std::max(std::round(f(input_max) * output_scaling_inv), table_min), table_max));
}

inline int16_t Lut16Lookup(int16_t value, const int16_t* lut) {
  const int index = 256 + (value >> 7);
  const int16_t offset = value & 0x7f;
  const int16_t base = lut[index];
  const int16_t slope = static_cast<int16_t>(lut[index + 1] - lut[index]);
  const int delta = (slope * offset + 64) >> 7;
  return static_cast<int16_t>(base + delta);
}

// ---- Float rows quantized to int8 for the hybrid kernels (float activations, int8 weights): one
// scale per row, as tensor_utils' portable functions (which TFLite's x86 build uses) compute it.

// How a row's minimum and maximum are found. Both give the same on a row without NaN; on one with a
// NaN each gives what the TFLite kernel that uses it gives.
enum class MinMaxScan {
  kRunningMinMax,  // std::min and std::max folded from the first value (convolutions, FULLY_CONNECTED)
  kMinMaxElement,  // std::minmax_element (LSTM)
};

// The minimum and maximum of values[0, size), size > 0, found as `scan` finds them.
inline void FloatRowRange(const float* values, int size, MinMaxScan scan, float* min_value, float* max_value) {
  if (scan == MinMaxScan::kMinMaxElement) {
    const auto minmax = std::minmax_element(values, values + size);
    *min_value = *minmax.first;
    *max_value = *minmax.second;
    return;
  }
  float lowest = values[0], highest = values[0];
  for (int i = 1; i < size; ++i) {
    lowest = std::min(lowest, values[i]);
    highest = std::max(highest, values[i]);
  }
  *min_value = lowest;
  *max_value = highest;
}

// Symmetric: scale = max|x| / 127, q = round(x / scale) clamped to [-127, 127]; an all-zero (or
// empty) row gets scale 1.
inline void SymmetricQuantizeFloats(const float* values, int size, int8_t* quantized, float* scaling_factor,
                                    MinMaxScan scan = MinMaxScan::kRunningMinMax) {
  if (size <= 0) {
    *scaling_factor = 1;
    return;
  }
  float min_value, max_value;
  FloatRowRange(values, size, scan, &min_value, &max_value);
  const float range = std::max(std::abs(min_value), std::abs(max_value));
  if (range == 0) {
    std::memset(quantized, 0, size);
    *scaling_factor = 1;
    return;
  }
  *scaling_factor = range / 127;
  const float scaling_factor_inv = 127 / range;
  for (int i = 0; i < size; ++i) {
    const float rounded = std::round(values[i] * scaling_factor_inv);
    const int32_t q = TruncateToInt32LikeX86(rounded);
    quantized[i] = static_cast<int8_t>(std::min(127, std::max(-127, q)));
  }
}

// Asymmetric: the row's range (widened to include 0) over [-128, 127] with a nudged zero point,
// computed in double as TFLite does; an all-zero (or empty) row gets scale 1 and offset 0.
inline void AsymmetricQuantizeFloats(const float* values, int size, int8_t* quantized, float* scaling_factor,
                                     int32_t* offset, MinMaxScan scan = MinMaxScan::kRunningMinMax) {
  if (size <= 0) {
    *scaling_factor = 1;
    *offset = 0;
    return;
  }
  float min_value, max_value;
  FloatRowRange(values, size, scan, &min_value, &max_value);
  const double qmin = -128, qmax = 127;
  const double rmin = std::fmin(0, min_value);
  const double rmax = std::fmax(0, max_value);
  if (rmin == rmax) {
    std::memset(quantized, 0, size);
    *scaling_factor = 1;
    *offset = 0;
    return;
  }
  const double scale = (rmax - rmin) / (qmax - qmin);
  const double zero_point_from_min = qmin - rmin / scale;
  const double zero_point_from_max = qmax - rmax / scale;
  const double zero_point_from_min_error = std::abs(qmin) + std::abs(rmin / scale);
  const double zero_point_from_max_error = std::abs(qmax) + std::abs(rmax / scale);
  const double zero_point =
      zero_point_from_min_error < zero_point_from_max_error ? zero_point_from_min : zero_point_from_max;
  int32_t nudged_zero_point;
  if (zero_point <= qmin) {
    nudged_zero_point = -128;
  } else if (zero_point >= qmax) {
    nudged_zero_point = 127;
  } else {
    nudged_zero_point = static_cast<int32_t>(std::round(zero_point));
  }
  *scaling_factor = static_cast<float>(scale);
  *offset = nudged_zero_point;
  const float scaling_factor_inv = static_cast<float>(1.0 / *scaling_factor);
  for (int i = 0; i < size; ++i) {
    const float rounded = std::round(static_cast<float>(*offset) + values[i] * scaling_factor_inv);
    const int32_t q = TruncateToInt32LikeX86(rounded);
    quantized[i] = static_cast<int8_t>(std::min(127, std::max(-128, q)));
  }
}

// tensor_utils::BatchQuantizeFloats, the input of every hybrid kernel: each of the `rows` rows of
// `depth` values on its own, asymmetrically (zero_points[r] its zero point) or symmetrically
// (zero_points left as they are).
inline void BatchQuantizeFloats(const float* values, int64_t rows, int depth, int8_t* quantized, float* scaling_factors,
                                int32_t* zero_points, bool asymmetric, MinMaxScan scan = MinMaxScan::kRunningMinMax) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t offset = r * depth;
    if (asymmetric) {
      AsymmetricQuantizeFloats(values + offset, depth, quantized + offset, &scaling_factors[r], &zero_points[r], scan);
    } else {
      SymmetricQuantizeFloats(values + offset, depth, quantized + offset, &scaling_factors[r], scan);
    }
  }
}

}  // namespace quantization_util
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_QUANTIZATION_UTIL_H_
