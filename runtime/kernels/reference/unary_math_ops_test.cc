// Tests of the reference unary math kernels (unary_math_ops.cc; helpers in
// elementwise_test_util.h).
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
// Unary math.

TEST(ElementwiseTest, FloatUnaryMath) {
  const std::vector<float> x = {0.25f, 1.0f, 2.0f, 9.0f};
  ExpectNear(RunFloatUnary(B::ABS, {-1.5f, 0, 2}), {1.5, 0, 2});
  ExpectNear(RunFloatUnary(B::NEG, {-1.5f, 0, 2}), {1.5, 0, -2});
  ExpectNear(RunFloatUnary(B::SQRT, x), {0.5, 1, std::sqrt(2.0), 3});
  ExpectNear(RunFloatUnary(B::RSQRT, x), {2, 1, 1 / std::sqrt(2.0), 1.0 / 3});
  ExpectNear(RunFloatUnary(B::SQUARE, {-3, 0.5f}), {9, 0.25});
  ExpectNear(RunFloatUnary(B::EXP, {0, 1, -2}), {1, std::exp(1.0), std::exp(-2.0)});
  ExpectNear(RunFloatUnary(B::LOG, {1, 2, 0, -1}), {0, std::log(2.0), -INFINITY, NAN});
  ExpectNear(RunFloatUnary(B::SIN, {0, 1, -3}), {0, std::sin(1.0), std::sin(-3.0)});
  ExpectNear(RunFloatUnary(B::COS, {0, 1, -3}), {1, std::cos(1.0), std::cos(-3.0)});
  ExpectNear(RunFloatUnary(B::FLOOR, {1.5f, -1.5f, 2}), {1, -2, 2});
  ExpectNear(RunFloatUnary(B::CEIL, {1.5f, -1.5f, 2}), {2, -1, 2});
}

TEST(ElementwiseTest, RoundIsRoundHalfToEven) {
  EXPECT_EQ(RunFloatUnary(B::ROUND, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f}),
            (std::vector<float>{0, 2, 2, -0.0f, -2, -2, 2, 3}));
}

TEST(ElementwiseTest, IntegerAbsAndNeg) {
  OneOp abs(B::ABS, {{kTfLiteInt32, {3}}}, {kTfLiteInt32});
  ASSERT_OK(abs.Build());
  abs.t().SetInput<int32_t>(0, {-5, 0, 7});
  ASSERT_OK(abs.t().Invoke());
  EXPECT_EQ(abs.t().GetOutput<int32_t>(0), (std::vector<int32_t>{5, 0, 7}));

  OneOp neg(B::NEG, {{kTfLiteInt64, {2}}}, {kTfLiteInt64});
  ASSERT_OK(neg.Build());
  neg.t().SetInput<int64_t>(0, {-5, int64_t{1} << 40});
  ASSERT_OK(neg.t().Invoke());
  EXPECT_EQ(neg.t().GetOutput<int64_t>(0), (std::vector<int64_t>{5, -(int64_t{1} << 40)}));
}

TEST(ElementwiseTest, RefusesUnsupportedUnaryTypes) {
  // TFLite's NEG refuses int8 only when it runs.
  OneOp neg(B::NEG, {{kTfLiteInt8, {2}, 0.5f, 0}}, {kTfLiteInt8, {}, 0.5f, 0});
  ASSERT_OK(neg.Build());
  EXPECT_FALSE(neg.t().Invoke().ok());
  OneOp sqrt(B::SQRT, {{kTfLiteInt32, {2}}}, {kTfLiteInt32});
  EXPECT_FALSE(sqrt.Build().ok());
  OneOp type_change(B::EXP, {{kTfLiteFloat32, {2}}}, {kTfLiteInt32});
  EXPECT_FALSE(type_change.Build().ok());
}

TEST(ElementwiseTest, QuantizedInt8AbsRescales) {
  OneOp op(B::ABS, {{kTfLiteInt8, {4}, 0.5f, 10}}, {kTfLiteInt8, {}, 0.25f, -100});
  ASSERT_OK(op.Build());
  op.t().SetInput<int8_t>(0, {10, 6, 14, -128});  // 0, -2, 2, -69
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutput<int8_t>(0), (std::vector<int8_t>{-100, -92, -92, 127}));  // 0, 2, 2, 69 (saturates)
}

}  // namespace
}  // namespace touchstone
