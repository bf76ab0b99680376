// binary16 <-> binary32 as TFLite converts them: exact values, ties to even, overflow, NaN and
// subnormals, and a round trip of every half.
#include "runtime/kernels/internal/float16.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

namespace touchstone {
namespace float16 {
namespace {

TEST(Float16Test, ExactValuesRoundTrip) {
  for (float v : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f /* smallest normal */,
                  5.9604644775390625e-08f /* smallest subnormal */, 0.333251953125f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(v)), v) << v;
  }
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
}

TEST(Float16Test, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: ties to even (1 + 2^-9).
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
  // Overflow, infinities, NaN, underflow.
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);
  EXPECT_EQ(FloatToHalf(-1e9f), 0xfc00);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::nanf("")))));
  EXPECT_EQ(FloatToHalf(1e-9f), 0x0000);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25) * 1.5f), 0x0001);
}

TEST(Float16Test, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(FloatToHalf(f), h) << std::hex << h;
  }
}

// Every half against the field-by-field definition, bit for bit (NaN payloads included).
TEST(Float16Test, EveryHalfMatchesItsDefinition) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    uint32_t expected;
    if (exponent == 0x1fu) {
      expected = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
      expected = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    } else {
      const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
      std::memcpy(&expected, &magnitude, sizeof(expected));
      expected |= sign;
    }
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    EXPECT_EQ(bits, expected) << std::hex << h;
  }
}

}  // namespace
}  // namespace float16
}  // namespace touchstone
