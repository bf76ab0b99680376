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
// keep their payload. Branch-free (each case computed, one selected) so that loops over weight
// tensors (DEQUANTIZE of float16 constants at Prepare) compile to straight-line code: the branchy
// form with ldexp for zeros cost ~6 ns a value, most of hand_landmark_lite's Init.
inline float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t magnitude = half & 0x7fffu;
  // All ones where the condition holds (a mask rather than a branch, so loops vectorize).
  const uint32_t is_normal_or_more = 0u - static_cast<uint32_t>(magnitude >= 0x0400u);
  const uint32_t is_inf_or_nan = 0u - static_cast<uint32_t>(magnitude >= 0x7c00u);
  // Normal: the exponent rebiased from 15 to 127; infinity or NaN: rebiased once more, so the
  // field goes from 31 to 255.
  const uint32_t wide = (magnitude << 13) + ((127u - 15u) << 23) + (is_inf_or_nan & ((127u - 15u) << 23));
  // Zero or subnormal: mantissa * 2^-24, exactly representable as a (normal) float.
  const float small = static_cast<float>(magnitude) * 0x1p-24f;
  uint32_t small_bits;
  std::memcpy(&small_bits, &small, sizeof(small_bits));
  const uint32_t bits = sign | (wide & is_normal_or_more) | (small_bits & ~is_normal_or_more);
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

// out[i] = HalfToFloat(in[i]) for i < count; in blocks of a fixed size, which compilers vectorize
// at -O2 where they leave an open-ended loop scalar.
inline void HalfsToFloats(const uint16_t* __restrict in, int64_t count, float* __restrict out) {
  constexpr int kBlock = 16;
  int64_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    for (int j = 0; j < kBlock; ++j) out[i + j] = HalfToFloat(in[i + j]);
  }
  for (; i < count; ++i) out[i] = HalfToFloat(in[i]);
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
