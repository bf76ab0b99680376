// Tests of the reference CAST kernel (cast_ops.cc; helpers in elementwise_test_util.h).
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/reference/elementwise_test_util.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace elementwise_test;  // NOLINT(build/namespaces): elementwise_test_util.h's helpers

// ---------------------------------------------------------------------------------------------
// CAST.

// FLOAT16 both ways: rounding to nearest even, overflow to infinity, subnormals, and a half read
// back exactly before an integer cast truncates it.
TEST(ElementwiseTest, CastToAndFromFloat16) {
  OneOp to_half(B::CAST, {{kTfLiteFloat32, {6}}}, {kTfLiteFloat16});
  ASSERT_OK(to_half.Build());
  // 1 + 2^-11 is a tie (rounds to 1), 1 + 3*2^-11 rounds up to 1 + 2^-9; 65520 overflows; 2^-24 is
  // the smallest subnormal; NaN stays NaN.
  to_half.t().SetInput<float>(
      0, {1.0f + 0.00048828125f, 1.0f + 3 * 0.00048828125f, 65520.0f, -65504.0f, 5.9604645e-08f, std::nanf("")});
  ASSERT_OK(to_half.t().Invoke());
  EXPECT_EQ(to_half.t().GetOutput<uint16_t>(0),
            (std::vector<uint16_t>{0x3c00, 0x3c02, 0x7c00, 0xfbff, 0x0001, 0x7e00}));

  OneOp from_half(B::CAST, {{kTfLiteFloat16, {4}}}, {kTfLiteInt32});
  ASSERT_OK(from_half.Build());
  from_half.t().SetInput<uint16_t>(0, {0x3e00 /*1.5*/, 0xbe00 /*-1.5*/, 0x7bff /*65504*/, 0x0001});
  ASSERT_OK(from_half.t().Invoke());
  EXPECT_EQ(from_half.t().GetOutput<int32_t>(0), (std::vector<int32_t>{1, -1, 65504, 0}));
}

TEST(ElementwiseTest, CastConversions) {
  auto cast = [](TfLiteType from, TfLiteType to, int n) {
    return std::make_unique<OneOp>(B::CAST, std::vector<T>{{from, {n}}}, T{to});
  };
  auto i2f = cast(kTfLiteInt32, kTfLiteFloat32, 3);
  ASSERT_OK(i2f->Build());
  i2f->t().SetInput<int32_t>(0, {0, -7, 16777217});
  ASSERT_OK(i2f->t().Invoke());
  EXPECT_EQ(i2f->t().GetOutput<float>(0), (std::vector<float>{0, -7, 16777216}));

  auto f2i = cast(kTfLiteFloat32, kTfLiteInt32, 4);
  ASSERT_OK(f2i->Build());
  f2i->t().SetInput<float>(0, {1.7f, -1.7f, -0.5f, 3e9f});
  ASSERT_OK(f2i->t().Invoke());
  EXPECT_EQ(f2i->t().GetOutput<int32_t>(0),
            (std::vector<int32_t>{1, -1, 0, std::numeric_limits<int32_t>::min()}));  // truncation toward zero

  auto f2b = cast(kTfLiteFloat32, kTfLiteBool, 3);
  ASSERT_OK(f2b->Build());
  f2b->t().SetInput<float>(0, {0.0f, -0.0f, 0.25f});
  ASSERT_OK(f2b->t().Invoke());
  EXPECT_EQ(f2b->t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{0, 0, 1}));

  auto b2i = cast(kTfLiteBool, kTfLiteInt32, 2);
  ASSERT_OK(b2i->Build());
  b2i->t().SetInput<uint8_t>(0, {1, 0});
  ASSERT_OK(b2i->t().Invoke());
  EXPECT_EQ(b2i->t().GetOutput<int32_t>(0), (std::vector<int32_t>{1, 0}));

  auto wrap = cast(kTfLiteInt32, kTfLiteInt8, 3);
  ASSERT_OK(wrap->Build());
  wrap->t().SetInput<int32_t>(0, {300, -129, 127});
  ASSERT_OK(wrap->t().Invoke());
  EXPECT_EQ(wrap->t().GetOutput<int8_t>(0), (std::vector<int8_t>{44, 127, 127}));

  auto i64 = cast(kTfLiteInt64, kTfLiteFloat32, 1);
  ASSERT_OK(i64->Build());
  i64->t().SetInput<int64_t>(0, {int64_t{1} << 40});
  ASSERT_OK(i64->t().Invoke());
  EXPECT_EQ(i64->t().GetOutput<float>(0), std::vector<float>{1099511627776.0f});

  auto bad = cast(kTfLiteString, kTfLiteInt32, 1);
  EXPECT_FALSE(bad->Build().ok());
}

}  // namespace
}  // namespace touchstone
