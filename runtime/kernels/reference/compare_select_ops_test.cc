// Tests of the reference comparison, logical and selection kernels (compare_select_ops.cc; helpers
// in elementwise_test_util.h).
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
// SELECT, SELECT_V2.

TEST(ElementwiseTest, SelectSameShapeAndRankOneCondition) {
  OneOp same(B::SELECT, {{kTfLiteBool, {4}}, {kTfLiteInt32, {4}}, {kTfLiteInt32, {4}}}, {kTfLiteInt32});
  ASSERT_OK(same.Build());
  same.t().SetInput<uint8_t>(0, {1, 0, 0, 1});
  same.t().SetInput<int32_t>(1, {1, 2, 3, 4});
  same.t().SetInput<int32_t>(2, {-1, -2, -3, -4});
  ASSERT_OK(same.t().Invoke());
  EXPECT_EQ(same.t().GetOutput<int32_t>(0), (std::vector<int32_t>{1, -2, -3, 4}));

  OneOp rows(B::SELECT, {{kTfLiteBool, {2}}, {kTfLiteFloat32, {2, 2}}, {kTfLiteFloat32, {2, 2}}}, {kTfLiteFloat32});
  ASSERT_OK(rows.Build());
  rows.t().SetInput<uint8_t>(0, {0, 1});
  rows.t().SetInput<float>(1, {1, 2, 3, 4});
  rows.t().SetInput<float>(2, {5, 6, 7, 8});
  ASSERT_OK(rows.t().Invoke());
  EXPECT_EQ(rows.t().GetOutput<float>(0), (std::vector<float>{5, 6, 3, 4}));

  // SELECT (v1) does not broadcast x against y.
  OneOp bad(B::SELECT, {{kTfLiteBool, {2}}, {kTfLiteFloat32, {2}}, {kTfLiteFloat32, {1}}}, {kTfLiteFloat32});
  EXPECT_FALSE(bad.Build().ok());
}

TEST(ElementwiseTest, SelectV2BroadcastsAllThree) {
  // Condition [2, 1], x [1, 3], y scalar -> [2, 3].
  OneOp op(B::SELECT_V2, {{kTfLiteBool, {2, 1}}, {kTfLiteFloat32, {1, 3}}, {kTfLiteFloat32, {}}}, {kTfLiteFloat32});
  ASSERT_OK(op.Build());
  op.t().SetInput<uint8_t>(0, {1, 0});
  op.t().SetInput<float>(1, {1, 2, 3});
  op.t().SetInput<float>(2, {-9});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(op.t().GetOutput<float>(0), (std::vector<float>{1, 2, 3, -9, -9, -9}));

  OneOp not_bool(B::SELECT_V2, {{kTfLiteInt32, {2}}, {kTfLiteFloat32, {2}}, {kTfLiteFloat32, {2}}}, {kTfLiteFloat32});
  EXPECT_FALSE(not_bool.Build().ok());
}

// ---------------------------------------------------------------------------------------------
// Comparisons and logic.

TEST(ElementwiseTest, ComparisonsBroadcast) {
  struct Case {
    B code;
    std::vector<uint8_t> want;
  };
  const std::vector<Case> cases = {{B::LESS, {1, 0, 0}},    {B::LESS_EQUAL, {1, 1, 0}},
                                   {B::GREATER, {0, 0, 1}}, {B::GREATER_EQUAL, {0, 1, 1}},
                                   {B::EQUAL, {0, 1, 0}},   {B::NOT_EQUAL, {1, 0, 1}}};
  for (const Case& c : cases) {
    OneOp op(c.code, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {}}}, {kTfLiteBool});
    ASSERT_OK(op.Build());
    op.t().SetInput<float>(0, {1, 2, 3});
    op.t().SetInput<float>(1, {2});
    ASSERT_OK(op.t().Invoke());
    EXPECT_EQ(op.t().GetOutput<uint8_t>(0), c.want) << fb::EnumNameBuiltinOperator(c.code);
  }
}

TEST(ElementwiseTest, QuantizedComparisonUsesRealValues) {
  // 10 steps of 0.5 (5.0) against 20 steps of 0.25 (5.0), etc.
  OneOp op(B::EQUAL, {{kTfLiteUInt8, {3}, 0.5f, 0}, {kTfLiteUInt8, {3}, 0.25f, 0}}, {kTfLiteBool});
  ASSERT_OK(op.Build());
  op.t().SetInput<uint8_t>(0, {10, 10, 0});
  op.t().SetInput<uint8_t>(1, {20, 10, 0});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(ElementwiseTest, EqualOnBoolAndRefusesOrderingOnBool) {
  OneOp eq(B::NOT_EQUAL, {{kTfLiteBool, {2}}, {kTfLiteBool, {2}}}, {kTfLiteBool});
  ASSERT_OK(eq.Build());
  eq.t().SetInput<uint8_t>(0, {1, 0});
  eq.t().SetInput<uint8_t>(1, {1, 1});
  ASSERT_OK(eq.t().Invoke());
  EXPECT_EQ(eq.t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{0, 1}));

  // TFLite's LESS refuses bool when it runs.
  OneOp less(B::LESS, {{kTfLiteBool, {2}}, {kTfLiteBool, {2}}}, {kTfLiteBool});
  ASSERT_OK(less.Build());
  EXPECT_FALSE(less.t().Invoke().ok());
}

TEST(ElementwiseTest, LogicalOps) {
  OneOp op_and(B::LOGICAL_AND, {{kTfLiteBool, {2, 2}}, {kTfLiteBool, {2}}}, {kTfLiteBool});
  ASSERT_OK(op_and.Build());
  op_and.t().SetInput<uint8_t>(0, {1, 1, 0, 0});
  op_and.t().SetInput<uint8_t>(1, {1, 0});
  ASSERT_OK(op_and.t().Invoke());
  EXPECT_EQ(op_and.t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{1, 0, 0, 0}));

  OneOp op_or(B::LOGICAL_OR, {{kTfLiteBool, {2, 2}}, {kTfLiteBool, {2}}}, {kTfLiteBool});
  ASSERT_OK(op_or.Build());
  op_or.t().SetInput<uint8_t>(0, {1, 1, 0, 0});
  op_or.t().SetInput<uint8_t>(1, {1, 0});
  ASSERT_OK(op_or.t().Invoke());
  EXPECT_EQ(op_or.t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{1, 1, 1, 0}));

  OneOp op_not(B::LOGICAL_NOT, {{kTfLiteBool, {3}}}, {kTfLiteBool});
  ASSERT_OK(op_not.Build());
  op_not.t().SetInput<uint8_t>(0, {1, 0, 1});
  ASSERT_OK(op_not.t().Invoke());
  EXPECT_EQ(op_not.t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{0, 1, 0}));

  OneOp wrong(B::LOGICAL_AND, {{kTfLiteInt32, {2}}, {kTfLiteInt32, {2}}}, {kTfLiteBool});
  EXPECT_FALSE(wrong.Build().ok());
}

}  // namespace
}  // namespace touchstone
