// IEEE 754 binary16 (TFLite's FLOAT16 tensors) to and from binary32, as TFLite converts them (the
// FP16 library's fp16_ieee_to_fp32_value and fp16_ieee_from_fp32_value).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_FLOAT16_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_FLOAT16_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace touchstone {
namespace float16 {

// Exact for every value: subnormal halves become normal floats, infinities stay infinite and NaNs
// keep their payload.
inline float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  } else {
    // Zero or subnormal: mantissa * 2^-24, exactly representable as a float.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    std::memcpy(&bits, &magnitude, sizeof(bits));
    bits |= sign;
  }
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

// Rounds to nearest, ties to even; above the largest half the result is infinite; a NaN stays a
// (quiet) NaN.
inline uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent < -14) {
    // Subnormal half (or zero): the value in units of 2^-24, rounded to nearest even.
    const float scaled = std::ldexp(std::fabs(value), 24);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  // Normal: keep 10 of the 23 mantissa bits, rounding the 13 dropped to nearest even (a carry
  // into the exponent is the right result).
  uint32_t half = (static_cast<uint32_t>(exponent + 15) << 10) | ((magnitude >> 13) & 0x3ffu);
  const uint32_t dropped = magnitude & 0x1fffu;
  if (dropped > 0x1000u || (dropped == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

}  // namespace float16
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_FLOAT16_H_
