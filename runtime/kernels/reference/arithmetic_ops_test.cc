// Tests of the reference binary arithmetic kernels (arithmetic_ops.cc): broadcasting, arithmetic,
// and a RoPE-style chain of element-wise ops (helpers in elementwise_test_util.h).
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
// Broadcasting and shapes.

TEST(ElementwiseTest, AddFloatBroadcastsRank3WithRank1AndAppliesRelu) {
  OneOp op(B::ADD, {{kTfLiteFloat32, {2, 1, 3}}, {kTfLiteFloat32, {3}}}, {kTfLiteFloat32},
           AddOpts(ActivationFunctionType::RELU));
  ASSERT_OK(op.Build());
  op.t().SetInput<float>(0, {1, 2, 3, -4, -5, -6});
  op.t().SetInput<float>(1, {0.5f, 1.0f, 1.5f});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{2, 1, 3}));
  EXPECT_EQ(op.t().GetOutput<float>(0), (std::vector<float>{1.5f, 3.0f, 4.5f, 0.0f, 0.0f, 0.0f}));
}

TEST(ElementwiseTest, MulBroadcastsBothWays) {
  // [2, 1] x [1, 3] -> [2, 3]
  OneOp op(B::MUL, {{kTfLiteInt32, {2, 1}}, {kTfLiteInt32, {1, 3}}}, {kTfLiteInt32},
           MulOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  op.t().SetInput<int32_t>(0, {2, -3});
  op.t().SetInput<int32_t>(1, {1, 10, 100});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(op.t().GetOutput<int32_t>(0), (std::vector<int32_t>{2, 20, 200, -3, -30, -300}));
}

TEST(ElementwiseTest, ScalarRankZeroOperandsWork) {
  // While-loop bodies: 0-D int32 and float tensors.
  OneOp add(B::ADD, {{kTfLiteInt32, {}}, {kTfLiteInt32, {}}}, {kTfLiteInt32}, AddOpts(ActivationFunctionType::NONE));
  ASSERT_OK(add.Build());
  add.t().SetInput<int32_t>(0, {41});
  add.t().SetInput<int32_t>(1, {1});
  ASSERT_OK(add.t().Invoke());
  EXPECT_EQ(add.t().GetOutputShape(0), std::vector<int>{});
  EXPECT_EQ(add.t().GetOutput<int32_t>(0), std::vector<int32_t>{42});

  OneOp less(B::LESS, {{kTfLiteInt32, {}}, {kTfLiteInt32, {}}}, {kTfLiteBool});
  ASSERT_OK(less.Build());
  less.t().SetInput<int32_t>(0, {3});
  less.t().SetInput<int32_t>(1, {10});
  ASSERT_OK(less.t().Invoke());
  EXPECT_EQ(less.t().GetOutput<uint8_t>(0), std::vector<uint8_t>{1});

  OneOp eq(B::EQUAL, {{kTfLiteFloat32, {}}, {kTfLiteFloat32, {}}}, {kTfLiteBool});
  ASSERT_OK(eq.Build());
  eq.t().SetInput<float>(0, {2.0f});
  eq.t().SetInput<float>(1, {2.0f});
  ASSERT_OK(eq.t().Invoke());
  EXPECT_EQ(eq.t().GetOutput<uint8_t>(0), std::vector<uint8_t>{1});

  OneOp mul(B::MUL, {{kTfLiteFloat32, {}}, {kTfLiteFloat32, {2, 2}}}, {kTfLiteFloat32},
            MulOpts(ActivationFunctionType::NONE));
  ASSERT_OK(mul.Build());
  mul.t().SetInput<float>(0, {3.0f});
  mul.t().SetInput<float>(1, {1, 2, 3, 4});
  ASSERT_OK(mul.t().Invoke());
  EXPECT_EQ(mul.t().GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(mul.t().GetOutput<float>(0), (std::vector<float>{3, 6, 9, 12}));
}

TEST(ElementwiseTest, BroadcastsUpToRank8) {
  const std::vector<int> a_shape = {2, 1, 1, 1, 1, 1, 1, 2};
  const std::vector<int> b_shape = {1, 1, 1, 1, 1, 1, 3, 1};
  OneOp op(B::SUB, {{kTfLiteFloat32, a_shape}, {kTfLiteFloat32, b_shape}}, {kTfLiteFloat32},
           SubOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  op.t().SetInput<float>(0, {10, 20, 30, 40});
  op.t().SetInput<float>(1, {1, 2, 3});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{2, 1, 1, 1, 1, 1, 3, 2}));
  EXPECT_EQ(op.t().GetOutput<float>(0), (std::vector<float>{9, 19, 8, 18, 7, 17, 29, 39, 28, 38, 27, 37}));
}

TEST(ElementwiseTest, RefusesRankAbove8AndIncompatibleShapes) {
  OneOp too_deep(B::ADD, {{kTfLiteFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 2}}, {kTfLiteFloat32, {2}}}, {kTfLiteFloat32},
                 AddOpts(ActivationFunctionType::NONE));
  EXPECT_FALSE(too_deep.Build().ok());

  OneOp mismatch(B::ADD, {{kTfLiteFloat32, {2, 3}}, {kTfLiteFloat32, {2}}}, {kTfLiteFloat32},
                 AddOpts(ActivationFunctionType::NONE));
  EXPECT_FALSE(mismatch.Build().ok());
}

TEST(ElementwiseTest, ZeroSizedBroadcastGivesEmptyOutput) {
  OneOp op(B::ADD, {{kTfLiteFloat32, {0}}, {kTfLiteFloat32, {1}}}, {kTfLiteFloat32},
           AddOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  op.t().SetInput<float>(1, {1.0f});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), std::vector<int>{0});
  EXPECT_TRUE(op.t().GetOutput<float>(0).empty());
}

TEST(ElementwiseTest, ResizedInputsReshapeTheOutput) {
  OneOp op(B::ADD, {{kTfLiteFloat32, {1, 2}}, {kTfLiteFloat32, {2}}}, {kTfLiteFloat32},
           AddOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  ASSERT_OK(op.t().ResizeInput(0, {3, 2}));
  ASSERT_OK(op.t().AllocateTensors());
  op.t().SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  op.t().SetInput<float>(1, {10, 20});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(op.t().GetOutput<float>(0), (std::vector<float>{11, 22, 13, 24, 15, 26}));
}

// ---------------------------------------------------------------------------------------------
// Arithmetic.

TEST(ElementwiseTest, FloatArithmeticClampsToActivationAndFiniteRange) {
  // As in TensorFlow Lite, ADD/SUB/MUL/DIV clamp even without an activation, to the finite range:
  // division by zero gives +-FLT_MAX, not an infinity.
  OneOp div(B::DIV, {{kTfLiteFloat32, {4}}, {kTfLiteFloat32, {4}}}, {kTfLiteFloat32},
            DivOpts(ActivationFunctionType::NONE));
  ASSERT_OK(div.Build());
  div.t().SetInput<float>(0, {1, -1, 7, 1});
  div.t().SetInput<float>(1, {0, 0, 2, 3});
  ASSERT_OK(div.t().Invoke());
  EXPECT_EQ(div.t().GetOutput<float>(0), (std::vector<float>{kFloatMax, -kFloatMax, 3.5f, 1.0f / 3.0f}));

  OneOp relu6(B::MUL, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {3}}}, {kTfLiteFloat32},
              MulOpts(ActivationFunctionType::RELU6));
  ASSERT_OK(relu6.Build());
  relu6.t().SetInput<float>(0, {2, -2, 0.5f});
  relu6.t().SetInput<float>(1, {4, 4, 4});
  ASSERT_OK(relu6.t().Invoke());
  EXPECT_EQ(relu6.t().GetOutput<float>(0), (std::vector<float>{6, 0, 2}));

  OneOp n1to1(B::SUB, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {3}}}, {kTfLiteFloat32},
              SubOpts(ActivationFunctionType::RELU_N1_TO_1));
  ASSERT_OK(n1to1.Build());
  n1to1.t().SetInput<float>(0, {5, -5, 0.25f});
  n1to1.t().SetInput<float>(1, {0, 0, 0});
  ASSERT_OK(n1to1.t().Invoke());
  EXPECT_EQ(n1to1.t().GetOutput<float>(0), (std::vector<float>{1, -1, 0.25f}));
}

// TFLite's ADD takes a TANH (or SIGN_BIT) fused activation and clamps nothing for it.
TEST(ElementwiseTest, FusedTanhOnAddClampsNothing) {
  OneOp op(B::ADD, {{kTfLiteFloat32, {2}}, {kTfLiteFloat32, {2}}}, {kTfLiteFloat32},
           AddOpts(ActivationFunctionType::TANH));
  ASSERT_OK(op.Build());
  op.t().SetInput<float>(0, {3.f, -5.f});
  op.t().SetInput<float>(1, {4.f, -1.f});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutput<float>(0), (std::vector<float>{7.f, -6.f}));
}

TEST(ElementwiseTest, IntegerDivTruncatesTowardZeroAndRefusesZeroDivisor) {
  OneOp div(B::DIV, {{kTfLiteInt32, {4}}, {kTfLiteInt32, {4}}}, {kTfLiteInt32}, DivOpts(ActivationFunctionType::NONE));
  ASSERT_OK(div.Build());
  div.t().SetInput<int32_t>(0, {7, -7, 7, std::numeric_limits<int32_t>::min()});
  div.t().SetInput<int32_t>(1, {2, 2, -2, -1});
  ASSERT_OK(div.t().Invoke());
  EXPECT_EQ(div.t().GetOutput<int32_t>(0),
            (std::vector<int32_t>{3, -3, -3, std::numeric_limits<int32_t>::min()}));  // INT_MIN / -1 wraps
  div.t().SetInput<int32_t>(1, {2, 0, 1, 1});
  EXPECT_FALSE(div.t().Invoke().ok());
}

TEST(ElementwiseTest, Int64AddAndSub) {
  OneOp op(B::SUB, {{kTfLiteInt64, {2}}, {kTfLiteInt64, {1}}}, {kTfLiteInt64}, SubOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  op.t().SetInput<int64_t>(0, {int64_t{1} << 40, -5});
  op.t().SetInput<int64_t>(1, {1});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutput<int64_t>(0), (std::vector<int64_t>{(int64_t{1} << 40) - 1, -6}));
}

TEST(ElementwiseTest, QuantizedUint8AddIsExactOnExactScales) {
  // Inputs and output with scale 0.5: real sums are representable, so the result is exact.
  OneOp op(B::ADD, {{kTfLiteUInt8, {4}, 0.5f, 128}, {kTfLiteUInt8, {4}, 0.5f, 100}}, {kTfLiteUInt8, {}, 0.5f, 10},
           AddOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  op.t().SetInput<uint8_t>(0, {128, 130, 120, 255});  // 0, 1, -4, 63.5
  op.t().SetInput<uint8_t>(1, {100, 104, 101, 255});  // 0, 2, 0.5, 77.5
  ASSERT_OK(op.t().Invoke());
  // 0 -> 10, 3 -> 16, -3.5 -> 3, 141 -> saturates at 255.
  EXPECT_EQ(op.t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{10, 16, 3, 255}));
}

TEST(ElementwiseTest, QuantizedInt8MulWithRelu) {
  // 0.25 * 0.25 / 0.0625 = 1: the product of the offset inputs is the output step count.
  OneOp op(B::MUL, {{kTfLiteInt8, {4}, 0.25f, 0}, {kTfLiteInt8, {4}, 0.25f, 0}}, {kTfLiteInt8, {}, 0.0625f, -10},
           MulOpts(ActivationFunctionType::RELU));
  ASSERT_OK(op.Build());
  op.t().SetInput<int8_t>(0, {2, -3, 10, 127});
  op.t().SetInput<int8_t>(1, {3, 4, 5, 127});
  ASSERT_OK(op.t().Invoke());
  // 6 -> -4; -12 -> relu clamps at the zero point -10; 50 -> 40; 16129 -> saturates at 127.
  EXPECT_EQ(op.t().GetOutput<int8_t>(0), (std::vector<int8_t>{-4, -10, 40, 127}));
}

TEST(ElementwiseTest, QuantizedInt16AddGeneralAndPowerOfTwoScales) {
  // General scales (pot_scale_int16 = false).
  OneOp general(B::ADD, {{kTfLiteInt16, {3}, 0.5f, 0}, {kTfLiteInt16, {3}, 0.25f, 0}}, {kTfLiteInt16, {}, 0.5f, 0},
                AddOpts(ActivationFunctionType::NONE, /*pot_scale_int16=*/false));
  ASSERT_OK(general.Build());
  general.t().SetInput<int16_t>(0, {2, -2, 32767});
  general.t().SetInput<int16_t>(1, {4, 4, 32767});
  ASSERT_OK(general.t().Invoke());
  EXPECT_EQ(general.t().GetOutput<int16_t>(0), (std::vector<int16_t>{4, 0, 32767}));

  // Power-of-two scales: the second input is shifted right by one onto the output scale.
  OneOp pot(B::ADD, {{kTfLiteInt16, {3}, 0.5f, 0}, {kTfLiteInt16, {3}, 0.25f, 0}}, {kTfLiteInt16, {}, 0.5f, 0},
            AddOpts(ActivationFunctionType::NONE, /*pot_scale_int16=*/true));
  ASSERT_OK(pot.Build());
  pot.t().SetInput<int16_t>(0, {2, -2, 32767});
  pot.t().SetInput<int16_t>(1, {4, 4, 32767});
  ASSERT_OK(pot.t().Invoke());
  EXPECT_EQ(pot.t().GetOutput<int16_t>(0), (std::vector<int16_t>{4, 0, 32767}));

  // int16 needs zero point 0.
  OneOp asym(B::ADD, {{kTfLiteInt16, {3}, 0.5f, 5}, {kTfLiteInt16, {3}, 0.5f, 0}}, {kTfLiteInt16, {}, 0.5f, 0},
             AddOpts(ActivationFunctionType::NONE, false));
  EXPECT_FALSE(asym.Build().ok());
}

TEST(ElementwiseTest, QuantizedActivationBoundBeyondInt32IsRefusedAtPrepare) {
  // 6 / 1e-10 overflows int32: TFLite's CalculateActivationRangeQuantized refuses it in Prepare, for
  // ADD, SUB and MUL alike (and for the convolutions, which share it).
  OneOp add(B::ADD, {{kTfLiteInt8, {2}, 0.5f, 0}, {kTfLiteInt8, {2}, 0.5f, 0}}, {kTfLiteInt8, {}, 1e-10f, 0},
            AddOpts(ActivationFunctionType::RELU6));
  const Status added = add.Build();
  EXPECT_FALSE(added.ok());
  EXPECT_NE(added.message().find("outside int32"), std::string::npos) << added.message();
  OneOp mul(B::MUL, {{kTfLiteUInt8, {2}, 0.5f, 0}, {kTfLiteUInt8, {2}, 0.5f, 0}}, {kTfLiteUInt8, {}, 1e-10f, 0},
            MulOpts(ActivationFunctionType::RELU_N1_TO_1));
  EXPECT_FALSE(mul.Build().ok());
  // RELU quantizes only 0: the same scale is accepted.
  OneOp relu(B::ADD, {{kTfLiteInt8, {2}, 0.5f, 0}, {kTfLiteInt8, {2}, 0.5f, 0}}, {kTfLiteInt8, {}, 1e-10f, 0},
             AddOpts(ActivationFunctionType::RELU));
  EXPECT_TRUE(relu.Build().ok());
}

TEST(ElementwiseTest, QuantizedInputsNeedQuantizationParameters) {
  OneOp op(B::ADD, {{kTfLiteInt8, {2}}, {kTfLiteInt8, {2}}}, {kTfLiteInt8}, AddOpts(ActivationFunctionType::NONE));
  EXPECT_FALSE(op.Build().ok());
}

TEST(ElementwiseTest, RefusesMismatchedInputTypes) {
  OneOp op(B::ADD, {{kTfLiteFloat32, {2}}, {kTfLiteInt32, {2}}}, {kTfLiteFloat32},
           AddOpts(ActivationFunctionType::NONE));
  EXPECT_FALSE(op.Build().ok());
}

TEST(ElementwiseTest, SquaredDifferenceMaximumMinimum) {
  OneOp sd(B::SQUARED_DIFFERENCE, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {}}}, {kTfLiteFloat32});
  ASSERT_OK(sd.Build());
  sd.t().SetInput<float>(0, {1, -2, 4.5f});
  sd.t().SetInput<float>(1, {0.5f});
  ASSERT_OK(sd.t().Invoke());
  EXPECT_EQ(sd.t().GetOutput<float>(0), (std::vector<float>{0.25f, 6.25f, 16.0f}));

  OneOp mx(B::MAXIMUM, {{kTfLiteInt32, {2, 2}}, {kTfLiteInt32, {2}}}, {kTfLiteInt32});
  ASSERT_OK(mx.Build());
  mx.t().SetInput<int32_t>(0, {1, 5, -3, 0});
  mx.t().SetInput<int32_t>(1, {2, 2});
  ASSERT_OK(mx.t().Invoke());
  EXPECT_EQ(mx.t().GetOutput<int32_t>(0), (std::vector<int32_t>{2, 5, 2, 2}));

  OneOp mn(B::MINIMUM, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {3}}}, {kTfLiteFloat32});
  ASSERT_OK(mn.Build());
  mn.t().SetInput<float>(0, {1, -5, 2});
  mn.t().SetInput<float>(1, {0, 3, 2});
  ASSERT_OK(mn.t().Invoke());
  EXPECT_EQ(mn.t().GetOutput<float>(0), (std::vector<float>{0, -5, 2}));
}

TEST(ElementwiseTest, PowFloatAndInt) {
  OneOp f(B::POW, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {3}}}, {kTfLiteFloat32});
  ASSERT_OK(f.Build());
  f.t().SetInput<float>(0, {2, 9, -2});
  f.t().SetInput<float>(1, {10, 0.5f, 3});
  ASSERT_OK(f.t().Invoke());
  EXPECT_EQ(f.t().GetOutput<float>(0), (std::vector<float>{1024, 3, -8}));

  OneOp i(B::POW, {{kTfLiteInt32, {3}}, {kTfLiteInt32, {}}}, {kTfLiteInt32});
  ASSERT_OK(i.Build());
  i.t().SetInput<int32_t>(0, {2, -3, 0});
  i.t().SetInput<int32_t>(1, {3});
  ASSERT_OK(i.t().Invoke());
  EXPECT_EQ(i.t().GetOutput<int32_t>(0), (std::vector<int32_t>{8, -27, 0}));
  i.t().SetInput<int32_t>(1, {-1});  // negative integer exponents are refused
  EXPECT_FALSE(i.t().Invoke().ok());
}

TEST(ElementwiseTest, FloorDivAndFloorModFollowPythonSemantics) {
  OneOp div(B::FLOOR_DIV, {{kTfLiteInt32, {4}}, {kTfLiteInt32, {4}}}, {kTfLiteInt32});
  ASSERT_OK(div.Build());
  div.t().SetInput<int32_t>(0, {7, -7, 7, -7});
  div.t().SetInput<int32_t>(1, {2, 2, -2, -2});
  ASSERT_OK(div.t().Invoke());
  EXPECT_EQ(div.t().GetOutput<int32_t>(0), (std::vector<int32_t>{3, -4, -4, 3}));
  div.t().SetInput<int32_t>(1, {2, 0, 1, 1});
  EXPECT_FALSE(div.t().Invoke().ok());

  OneOp mod(B::FLOOR_MOD, {{kTfLiteInt32, {4}}, {kTfLiteInt32, {4}}}, {kTfLiteInt32});
  ASSERT_OK(mod.Build());
  mod.t().SetInput<int32_t>(0, {7, -7, 7, -7});
  mod.t().SetInput<int32_t>(1, {3, 3, -3, -3});
  ASSERT_OK(mod.t().Invoke());
  EXPECT_EQ(mod.t().GetOutput<int32_t>(0), (std::vector<int32_t>{1, 2, -2, -1}));

  OneOp fmod(B::FLOOR_MOD, {{kTfLiteFloat32, {4}}, {kTfLiteFloat32, {4}}}, {kTfLiteFloat32});
  ASSERT_OK(fmod.Build());
  fmod.t().SetInput<float>(0, {5.5f, -5.5f, 5.5f, -5.5f});
  fmod.t().SetInput<float>(1, {2, 2, -2, -2});
  ASSERT_OK(fmod.t().Invoke());
  EXPECT_EQ(fmod.t().GetOutput<float>(0), (std::vector<float>{1.5f, 0.5f, -0.5f, -1.5f}));

  OneOp fdiv(B::FLOOR_DIV, {{kTfLiteFloat32, {2}}, {kTfLiteFloat32, {2}}}, {kTfLiteFloat32});
  ASSERT_OK(fdiv.Build());
  fdiv.t().SetInput<float>(0, {5.5f, -5.5f});
  fdiv.t().SetInput<float>(1, {2, 2});
  ASSERT_OK(fdiv.t().Invoke());
  EXPECT_EQ(fdiv.t().GetOutput<float>(0), (std::vector<float>{2, -3}));
}

// ---------------------------------------------------------------------------------------------
// A small graph: the RoPE pattern (CAST int32 -> float, DIV, SIN, COS, MUL, SUB, ADD) chained.

TEST(ElementwiseTest, RopeStyleChain) {
  testing::OpTest t;
  const int pos = t.AddInput(kTfLiteInt32, {4});
  const int x = t.AddInput(kTfLiteFloat32, {4});
  const int posf = t.AddIntermediate(kTfLiteFloat32);
  const int denom = t.AddConst<float>(kTfLiteFloat32, {}, {2.0f});
  const int angle = t.AddIntermediate(kTfLiteFloat32);
  const int s = t.AddIntermediate(kTfLiteFloat32);
  const int c = t.AddIntermediate(kTfLiteFloat32);
  const int xs = t.AddIntermediate(kTfLiteFloat32);
  const int xc = t.AddIntermediate(kTfLiteFloat32);
  const int diff = t.AddIntermediate(kTfLiteFloat32);
  const int out = t.AddOutput(kTfLiteFloat32);
  auto none = [&](B code) -> Options {
    switch (code) {
      case B::DIV:
        return {fb::BuiltinOptions::DivOptions, fb::CreateDivOptions(t.fbb()).Union()};
      case B::MUL:
        return {fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(t.fbb()).Union()};
      case B::SUB:
        return {fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(t.fbb()).Union()};
      case B::ADD:
        return {fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union()};
      default:
        return {fb::BuiltinOptions::NONE, 0};
    }
  };
  auto add_op = [&](B code, std::vector<int> ins, int o) {
    const Options opts = none(code);
    t.AddOp(static_cast<int>(code), ins, {o}, opts.first, opts.second);
  };
  const Options cast_opts{fb::BuiltinOptions::CastOptions,
                          fb::CreateCastOptions(t.fbb(), fb::TensorType::INT32, fb::TensorType::FLOAT32).Union()};
  t.AddOp(static_cast<int>(B::CAST), {pos}, {posf}, cast_opts.first, cast_opts.second);
  add_op(B::DIV, {posf, denom}, angle);
  add_op(B::SIN, {angle}, s);
  add_op(B::COS, {angle}, c);
  add_op(B::MUL, {x, s}, xs);
  add_op(B::MUL, {x, c}, xc);
  add_op(B::SUB, {xc, xs}, diff);
  add_op(B::ADD, {diff, x}, out);
  ASSERT_OK(t.Build());
  t.SetInput<int32_t>(0, {0, 1, 2, 3});
  t.SetInput<float>(1, {1.0f, -2.0f, 0.5f, 4.0f});
  ASSERT_OK(t.Invoke());
  const std::vector<double> xv = {1.0, -2.0, 0.5, 4.0};
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    const float a = static_cast<float>(i) / 2.0f;
    want.push_back(xv[i] * std::cos(a) - xv[i] * std::sin(a) + xv[i]);
  }
  ExpectNear(t.GetOutput<float>(0), want, 1e-6, 1e-6);
}

}  // namespace
}  // namespace touchstone
