#include "runtime/kernels/internal/quantization_util.h"

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace touchstone {
namespace quantization_util {
namespace {

double FromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

void ExpectSameAsLibm(double real) {
  int32_t multiplier = 0, libm_multiplier = 0;
  int shift = 0, libm_shift = 0;
  QuantizeMultiplier(real, &multiplier, &shift);
  QuantizeMultiplierWithLibm(real, &libm_multiplier, &libm_shift);
  ASSERT_EQ(multiplier, libm_multiplier) << real;
  ASSERT_EQ(shift, libm_shift) << real;
}

TEST(QuantizeMultiplierTest, KnownValues) {
  int32_t multiplier;
  int shift;
  QuantizeMultiplier(0.25, &multiplier, &shift);
  EXPECT_EQ(multiplier, 1 << 30);
  EXPECT_EQ(shift, -1);
  QuantizeMultiplier(-0.75, &multiplier, &shift);
  EXPECT_EQ(multiplier, -(3 << 29));
  EXPECT_EQ(shift, 0);
}

// The bit-level path gives frexp/round's answer everywhere: signs, every exponent, the rounding ties
// and the significands that round up to 2^31, subnormals, zero, infinities and NaN.
TEST(QuantizeMultiplierTest, MatchesLibmPath) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(),
                                std::ldexp(1.0, -32),
                                std::ldexp(1.0, -31),
                                std::ldexp(1.0, -33),
                                std::nextafter(std::ldexp(1.0, -32), 0.0)};
  std::mt19937_64 random(7);
  for (int exponent = 0; exponent < 0x800; ++exponent) {
    for (uint64_t low : {uint64_t{0}, uint64_t{1} << 21, (uint64_t{1} << 21) - 1, (uint64_t{1} << 21) + 1,
                         (uint64_t{1} << 22) - 1, (uint64_t{1} << 52) - 1, (uint64_t{1} << 52) - (uint64_t{1} << 21),
                         (uint64_t{1} << 52) - (uint64_t{1} << 21) - 1, random() & ((uint64_t{1} << 52) - 1)}) {
      for (uint64_t sign : {uint64_t{0}, uint64_t{1} << 63}) {
        values.push_back(FromBits(sign | (static_cast<uint64_t>(exponent) << 52) | low));
      }
    }
  }
  for (int i = 0; i < 100000; ++i) values.push_back(FromBits(random()));
  // Scale ratios as models have them: input * weights / output scales.
  std::uniform_real_distribution<float> scale(1e-6f, 1.0f);
  for (int i = 0; i < 100000; ++i) {
    values.push_back(static_cast<double>(scale(random)) * scale(random) / static_cast<double>(scale(random)));
  }
  for (double value : values) ExpectSameAsLibm(value);
}

}  // namespace
}  // namespace quantization_util
}  // namespace touchstone
