// Tests of the reference element-wise kernels (elementwise.cc), each through a one-op model built
// in memory and run by the real loader and interpreter (runtime/testing/op_test.h).
//
// Expected values are exact where the arithmetic is exact (integers, quantized cases whose scales
// make every step exact, values that are representable) and otherwise within a few ulp of a double
// evaluation. Bit-exact agreement with TensorFlow Lite on quantized kernels is checked by the op
// suite (../shared/opsuite), whose cases this file does not duplicate.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using B = fb::BuiltinOperator;
using Options = std::pair<fb::BuiltinOptions, flatbuffers::Offset<void>>;
using OptionsFn = std::function<Options(flatbuffers::FlatBufferBuilder&)>;

// A graph tensor: type, shape and, when scale > 0, per-tensor quantization.
struct T {
  TfLiteType type;
  std::vector<int> shape = {};
  float scale = 0.0f;
  int64_t zero_point = 0;
};

// One operator whose inputs are all graph inputs and whose output is the graph output.
class OneOp {
 public:
  OneOp(B code, const std::vector<T>& inputs, const T& output, const OptionsFn& options = nullptr) {
    std::vector<int> ins;
    for (const T& t : inputs) ins.push_back(Add(t, /*is_input=*/true));
    const int out = Add(output, /*is_input=*/false);
    Options o{fb::BuiltinOptions::NONE, 0};
    if (options) o = options(test_.fbb());
    test_.AddOp(static_cast<int>(code), ins, {out}, o.first, o.second);
  }
  Status Build() { return test_.Build(); }
  testing::OpTest& t() { return test_; }

 private:
  int Add(const T& t, bool is_input) {
    const int id = is_input ? test_.AddInput(t.type, t.shape) : test_.AddOutput(t.type, t.shape);
    if (t.scale > 0.0f) test_.builder().SetQuantization(id, {t.scale}, {t.zero_point});
    return id;
  }
  testing::OpTest test_;
};

OptionsFn AddOpts(fb::ActivationFunctionType a, bool pot_scale_int16 = true) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::AddOptions,
                   fb::CreateAddOptions(b, a, pot_scale_int16).Union()};
  };
}
OptionsFn SubOpts(fb::ActivationFunctionType a) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(b, a).Union()};
  };
}
OptionsFn MulOpts(fb::ActivationFunctionType a) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(b, a).Union()};
  };
}
OptionsFn DivOpts(fb::ActivationFunctionType a) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::DivOptions, fb::CreateDivOptions(b, a).Union()};
  };
}

using fb::ActivationFunctionType;
constexpr float kFloatMax = std::numeric_limits<float>::max();

#define ASSERT_OK(expr)                   \
  do {                                    \
    const Status s_ = (expr);             \
    ASSERT_TRUE(s_.ok()) << s_.message(); \
  } while (0)

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double rel = 2e-6,
                double abs = 1e-7) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], static_cast<float>(want[i])) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i]) + abs) << "element " << i;
    }
  }
}

// Runs a float unary op on `x` and returns the output.
std::vector<float> RunFloatUnary(B code, const std::vector<float>& x,
                                 const OptionsFn& options = nullptr) {
  OneOp op(code, {{kTfLiteFloat32, {static_cast<int>(x.size())}}}, {kTfLiteFloat32}, options);
  Status s = op.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  op.t().SetInput<float>(0, x);
  s = op.t().Invoke();
  EXPECT_TRUE(s.ok()) << s.message();
  return op.t().GetOutput<float>(0);
}

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
  OneOp add(B::ADD, {{kTfLiteInt32, {}}, {kTfLiteInt32, {}}}, {kTfLiteInt32},
            AddOpts(ActivationFunctionType::NONE));
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
  EXPECT_EQ(op.t().GetOutput<float>(0),
            (std::vector<float>{9, 19, 8, 18, 7, 17, 29, 39, 28, 38, 27, 37}));
}

TEST(ElementwiseTest, RefusesRankAbove8AndIncompatibleShapes) {
  OneOp too_deep(B::ADD, {{kTfLiteFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 2}}, {kTfLiteFloat32, {2}}},
                 {kTfLiteFloat32}, AddOpts(ActivationFunctionType::NONE));
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
  EXPECT_EQ(div.t().GetOutput<float>(0),
            (std::vector<float>{kFloatMax, -kFloatMax, 3.5f, 1.0f / 3.0f}));

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
  OneOp div(B::DIV, {{kTfLiteInt32, {4}}, {kTfLiteInt32, {4}}}, {kTfLiteInt32},
            DivOpts(ActivationFunctionType::NONE));
  ASSERT_OK(div.Build());
  div.t().SetInput<int32_t>(0, {7, -7, 7, std::numeric_limits<int32_t>::min()});
  div.t().SetInput<int32_t>(1, {2, 2, -2, -1});
  ASSERT_OK(div.t().Invoke());
  EXPECT_EQ(div.t().GetOutput<int32_t>(0),
            (std::vector<int32_t>{3, -3, -3,
                                  std::numeric_limits<int32_t>::min()}));  // INT_MIN / -1 wraps
  div.t().SetInput<int32_t>(1, {2, 0, 1, 1});
  EXPECT_FALSE(div.t().Invoke().ok());
}

TEST(ElementwiseTest, Int64AddAndSub) {
  OneOp op(B::SUB, {{kTfLiteInt64, {2}}, {kTfLiteInt64, {1}}}, {kTfLiteInt64},
           SubOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  op.t().SetInput<int64_t>(0, {int64_t{1} << 40, -5});
  op.t().SetInput<int64_t>(1, {1});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutput<int64_t>(0), (std::vector<int64_t>{(int64_t{1} << 40) - 1, -6}));
}

TEST(ElementwiseTest, QuantizedUint8AddIsExactOnExactScales) {
  // Inputs and output with scale 0.5: real sums are representable, so the result is exact.
  OneOp op(B::ADD, {{kTfLiteUInt8, {4}, 0.5f, 128}, {kTfLiteUInt8, {4}, 0.5f, 100}},
           {kTfLiteUInt8, {}, 0.5f, 10}, AddOpts(ActivationFunctionType::NONE));
  ASSERT_OK(op.Build());
  op.t().SetInput<uint8_t>(0, {128, 130, 120, 255});  // 0, 1, -4, 63.5
  op.t().SetInput<uint8_t>(1, {100, 104, 101, 255});  // 0, 2, 0.5, 77.5
  ASSERT_OK(op.t().Invoke());
  // 0 -> 10, 3 -> 16, -3.5 -> 3, 141 -> saturates at 255.
  EXPECT_EQ(op.t().GetOutput<uint8_t>(0), (std::vector<uint8_t>{10, 16, 3, 255}));
}

TEST(ElementwiseTest, QuantizedInt8MulWithRelu) {
  // 0.25 * 0.25 / 0.0625 = 1: the product of the offset inputs is the output step count.
  OneOp op(B::MUL, {{kTfLiteInt8, {4}, 0.25f, 0}, {kTfLiteInt8, {4}, 0.25f, 0}},
           {kTfLiteInt8, {}, 0.0625f, -10}, MulOpts(ActivationFunctionType::RELU));
  ASSERT_OK(op.Build());
  op.t().SetInput<int8_t>(0, {2, -3, 10, 127});
  op.t().SetInput<int8_t>(1, {3, 4, 5, 127});
  ASSERT_OK(op.t().Invoke());
  // 6 -> -4; -12 -> relu clamps at the zero point -10; 50 -> 40; 16129 -> saturates at 127.
  EXPECT_EQ(op.t().GetOutput<int8_t>(0), (std::vector<int8_t>{-4, -10, 40, 127}));
}

TEST(ElementwiseTest, QuantizedInt16AddGeneralAndPowerOfTwoScales) {
  // General scales (pot_scale_int16 = false).
  OneOp general(B::ADD, {{kTfLiteInt16, {3}, 0.5f, 0}, {kTfLiteInt16, {3}, 0.25f, 0}},
                {kTfLiteInt16, {}, 0.5f, 0},
                AddOpts(ActivationFunctionType::NONE, /*pot_scale_int16=*/false));
  ASSERT_OK(general.Build());
  general.t().SetInput<int16_t>(0, {2, -2, 32767});
  general.t().SetInput<int16_t>(1, {4, 4, 32767});
  ASSERT_OK(general.t().Invoke());
  EXPECT_EQ(general.t().GetOutput<int16_t>(0), (std::vector<int16_t>{4, 0, 32767}));

  // Power-of-two scales: the second input is shifted right by one onto the output scale.
  OneOp pot(B::ADD, {{kTfLiteInt16, {3}, 0.5f, 0}, {kTfLiteInt16, {3}, 0.25f, 0}},
            {kTfLiteInt16, {}, 0.5f, 0},
            AddOpts(ActivationFunctionType::NONE, /*pot_scale_int16=*/true));
  ASSERT_OK(pot.Build());
  pot.t().SetInput<int16_t>(0, {2, -2, 32767});
  pot.t().SetInput<int16_t>(1, {4, 4, 32767});
  ASSERT_OK(pot.t().Invoke());
  EXPECT_EQ(pot.t().GetOutput<int16_t>(0), (std::vector<int16_t>{4, 0, 32767}));

  // int16 needs zero point 0.
  OneOp asym(B::ADD, {{kTfLiteInt16, {3}, 0.5f, 5}, {kTfLiteInt16, {3}, 0.5f, 0}},
             {kTfLiteInt16, {}, 0.5f, 0}, AddOpts(ActivationFunctionType::NONE, false));
  EXPECT_FALSE(asym.Build().ok());
}

TEST(ElementwiseTest, QuantizedInputsNeedQuantizationParameters) {
  OneOp op(B::ADD, {{kTfLiteInt8, {2}}, {kTfLiteInt8, {2}}}, {kTfLiteInt8},
           AddOpts(ActivationFunctionType::NONE));
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
  EXPECT_EQ(op.t().GetOutput<int8_t>(0),
            (std::vector<int8_t>{-100, -92, -92, 127}));  // 0, 2, 2, 69 (saturates)
}

// ---------------------------------------------------------------------------------------------
// Activations.

TEST(ElementwiseTest, FloatActivations) {
  const std::vector<float> x = {-3.5f, -1.0f, -0.25f, 0.0f, 0.5f, 2.0f, 7.0f};
  std::vector<double> tanh, logistic, relu, relu6, n1, zero_one, hard_swish, elu;
  for (float v : x) {
    const double d = v;
    tanh.push_back(std::tanh(d));
    logistic.push_back(1 / (1 + std::exp(-d)));
    relu.push_back(std::max(0.0, d));
    relu6.push_back(std::min(6.0, std::max(0.0, d)));
    n1.push_back(std::min(1.0, std::max(-1.0, d)));
    zero_one.push_back(std::min(1.0, std::max(0.0, d)));
    hard_swish.push_back(d * std::min(6.0, std::max(0.0, d + 3)) / 6);
    elu.push_back(d < 0 ? std::expm1(d) : d);
  }
  ExpectNear(RunFloatUnary(B::TANH, x), tanh);
  ExpectNear(RunFloatUnary(B::LOGISTIC, x), logistic);
  ExpectNear(RunFloatUnary(B::RELU, x), relu);
  ExpectNear(RunFloatUnary(B::RELU6, x), relu6);
  ExpectNear(RunFloatUnary(B::RELU_N1_TO_1, x), n1);
  ExpectNear(RunFloatUnary(B::RELU_0_TO_1, x), zero_one);
  ExpectNear(RunFloatUnary(B::HARD_SWISH, x), hard_swish);
  ExpectNear(RunFloatUnary(B::ELU, x), elu);
}

TEST(ElementwiseTest, LogisticSaturatesOnExtremeInputs) {
  ExpectNear(RunFloatUnary(B::LOGISTIC, {-100.0f, 100.0f, -20.0f}),
             {0.0, 1.0, 1 / (1 + std::exp(20.0))}, 1e-5, 1e-7);
}

TEST(ElementwiseTest, LeakyReluUsesAlpha) {
  auto opts = [](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::LeakyReluOptions,
                   fb::CreateLeakyReluOptions(b, 0.1f).Union()};
  };
  EXPECT_EQ(RunFloatUnary(B::LEAKY_RELU, {-2.0f, 0.0f, 3.0f}, opts),
            (std::vector<float>{-0.2f, 0.0f, 3.0f}));
}

TEST(ElementwiseTest, GeluExactAndApproximate) {
  const std::vector<float> x = {-3.0f, -0.5f, 0.0f, 1.0f, 2.5f};
  std::vector<double> exact, approx;
  for (float v : x) {
    const double d = v;
    exact.push_back(0.5 * d * (1 + std::erf(d / std::sqrt(2.0))));
    approx.push_back(0.5 * d * (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d))));
  }
  auto gelu = [](bool approximate) {
    return [approximate](flatbuffers::FlatBufferBuilder& b) {
      return Options{fb::BuiltinOptions::GeluOptions,
                     fb::CreateGeluOptions(b, approximate).Union()};
    };
  };
  ExpectNear(RunFloatUnary(B::GELU, x, gelu(false)), exact, 1e-5, 1e-6);
  ExpectNear(RunFloatUnary(B::GELU, x, gelu(true)), approx, 1e-5, 1e-6);
}

TEST(ElementwiseTest, PreluBroadcastsAlphaPerChannel) {
  OneOp op(B::PRELU, {{kTfLiteFloat32, {2, 3}}, {kTfLiteFloat32, {3}}}, {kTfLiteFloat32});
  ASSERT_OK(op.Build());
  op.t().SetInput<float>(0, {-1, -1, -1, 2, -2, 0});
  op.t().SetInput<float>(1, {0.5f, 0.25f, 2.0f});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(op.t().GetOutput<float>(0),
            (std::vector<float>{-0.5f, -0.25f, -2.0f, 2.0f, -0.5f, 0.0f}));

  // Alpha may not enlarge the input's shape.
  OneOp bad(B::PRELU, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {2, 3}}}, {kTfLiteFloat32});
  EXPECT_FALSE(bad.Build().ok());
}

TEST(ElementwiseTest, QuantizedReluClampsAndRescales) {
  OneOp op(B::RELU6, {{kTfLiteInt8, {5}, 0.5f, 0}}, {kTfLiteInt8, {}, 0.25f, -128});
  ASSERT_OK(op.Build());
  op.t().SetInput<int8_t>(0, {-10, 0, 3, 12, 100});  // -5, 0, 1.5, 6, 50
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutput<int8_t>(0), (std::vector<int8_t>{-128, -128, -122, -104, -104}));
}

TEST(ElementwiseTest, QuantizedLogisticAndTanh) {
  // uint8 logistic: output scale 1/256, zero point 0; logistic(0) = 0.5 -> 128.
  OneOp lg(B::LOGISTIC, {{kTfLiteUInt8, {3}, 0.1f, 128}}, {kTfLiteUInt8, {}, 1.0f / 256, 0});
  ASSERT_OK(lg.Build());
  lg.t().SetInput<uint8_t>(0, {128, 0, 255});
  ASSERT_OK(lg.t().Invoke());
  const std::vector<uint8_t> got = lg.t().GetOutput<uint8_t>(0);
  EXPECT_EQ(got[0], 128);
  EXPECT_EQ(got[1], static_cast<uint8_t>(std::round(256 / (1 + std::exp(12.8)))));
  EXPECT_EQ(got[2], 255);  // 256 * logistic(12.7) rounds to 256 and saturates

  // Other 8-bit output scales are refused.
  OneOp bad(B::LOGISTIC, {{kTfLiteInt8, {3}, 0.1f, 0}}, {kTfLiteInt8, {}, 0.01f, 0});
  EXPECT_FALSE(bad.Build().ok());

  // int16 with the power-of-two input scale 2^-12: fixed-point functions on Q3.12.
  OneOp lg16(B::LOGISTIC, {{kTfLiteInt16, {3}, 1.0f / 4096, 0}},
             {kTfLiteInt16, {}, 1.0f / 32768, 0});
  ASSERT_OK(lg16.Build());
  lg16.t().SetInput<int16_t>(0, {0, 4096, -4096});
  ASSERT_OK(lg16.t().Invoke());
  const std::vector<int16_t> l = lg16.t().GetOutput<int16_t>(0);
  EXPECT_EQ(l[0], 16384);
  EXPECT_NEAR(l[1], 32768 / (1 + std::exp(-1.0)), 8);  // 16-bit fixed point: a few steps off
  EXPECT_NEAR(l[2], 32768 / (1 + std::exp(1.0)), 8);

  OneOp th16(B::TANH, {{kTfLiteInt16, {3}, 1.0f / 4096, 0}}, {kTfLiteInt16, {}, 1.0f / 32768, 0});
  ASSERT_OK(th16.Build());
  th16.t().SetInput<int16_t>(0, {0, 4096, -8192});
  ASSERT_OK(th16.t().Invoke());
  const std::vector<int16_t> t = th16.t().GetOutput<int16_t>(0);
  EXPECT_EQ(t[0], 0);
  EXPECT_NEAR(t[1], 32768 * std::tanh(1.0), 12);
  EXPECT_NEAR(t[2], 32768 * std::tanh(-2.0), 12);

  // int16 with another scale goes through the interpolated table.
  OneOp th16b(B::TANH, {{kTfLiteInt16, {2}, 0.001f, 0}}, {kTfLiteInt16, {}, 1.0f / 32768, 0});
  ASSERT_OK(th16b.Build());
  th16b.t().SetInput<int16_t>(0, {500, -1500});
  ASSERT_OK(th16b.t().Invoke());
  const std::vector<int16_t> tb = th16b.t().GetOutput<int16_t>(0);
  EXPECT_NEAR(tb[0], 32768 * std::tanh(0.5), 4);
  EXPECT_NEAR(tb[1], 32768 * std::tanh(-1.5), 4);
}

// Runs a quantized unary op (input and output of type `type`) on `x`.
template <typename Q>
std::vector<Q> RunQuantizedUnary(B code, TfLiteType type, float in_scale, int in_zp,
                                 float out_scale, int out_zp, const std::vector<Q>& x,
                                 const OptionsFn& options = nullptr) {
  OneOp op(code, {{type, {static_cast<int>(x.size())}, in_scale, in_zp}},
           {type, {}, out_scale, out_zp}, options);
  Status s = op.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  op.t().SetInput<Q>(0, x);
  s = op.t().Invoke();
  EXPECT_TRUE(s.ok()) << s.message();
  return op.t().GetOutput<Q>(0);
}

// Anchors for the trickiest fixed-point paths: outputs TensorFlow Lite 2.14.1's built-in kernels
// produce for these inputs and quantizations (from the op suite's LOGISTIC, TANH, HARD_SWISH,
// RSQRT, EXP and GELU cases).
TEST(ElementwiseTest, MatchesTensorFlowLiteOnFixedPointPaths) {
  // int16 logistic, input scale ~2^-12 (fixed-point path) and 2^-9.68 (table path).
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::LOGISTIC, kTfLiteInt16, 0.0002441480755805969f, 0,
                                       3.0517578125e-05f, 0, {-1287, 24196, -12491, 844}),
            (std::vector<int16_t>{13829, 32678, 1481, 18068}));
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::LOGISTIC, kTfLiteInt16, 0.001220703125f, 0,
                                       3.0517578125e-05f, 0, {-7766, -3783, -6479}),
            (std::vector<int16_t>{2, 320, 12}));
  // int16 tanh, table path and power-of-two path.
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::TANH, kTfLiteInt16, 0.00015259254723787308f, 0,
                                       3.0517578125e-05f, 0, {3967, -7280, 18942}),
            (std::vector<int16_t>{17722, -26357, 32567}));
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::TANH, kTfLiteInt16, 0.000244140625f, 0, 3.0517578125e-05f,
                                       0, {-2079, -1157, 11586}),
            (std::vector<int16_t>{-15336, -9012, 32532}));
  EXPECT_EQ(RunQuantizedUnary<int8_t>(B::HARD_SWISH, kTfLiteInt8, 0.0470588244497776f, 0,
                                      0.025098038837313652f, -112, {-110, 6, 101, 65, -33}),
            (std::vector<int8_t>{-112, -106, 77, 10, -127}));
  EXPECT_EQ(RunQuantizedUnary<int8_t>(B::RSQRT, kTfLiteInt8, 0.03921568766236305f, -128,
                                      0.013725490309298038f, -128, {-32, 43, 7}),
            (std::vector<int8_t>{-90, -100, -96}));
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::EXP, kTfLiteInt16, 0.00012207403779029846f, 0,
                                       0.00022888882085680962f, 0, {-22194, -8475}),
            (std::vector<int16_t>{291, 1553}));
  auto exact = [](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::GeluOptions, fb::CreateGeluOptions(b, false).Union()};
  };
  EXPECT_EQ(RunQuantizedUnary<int8_t>(B::GELU, kTfLiteInt8, 0.03921568766236305f, 0,
                                      0.02039215713739395f, -118, {-84, -11, -16}, exact),
            (std::vector<int8_t>{-118, -125, -126}));
}

TEST(ElementwiseTest, QuantizedHardSwishTracksFloat) {
  const float in_scale = 0.05f, out_scale = 0.03f;
  OneOp op(B::HARD_SWISH, {{kTfLiteInt8, {256}, in_scale, 5}}, {kTfLiteInt8, {}, out_scale, -20});
  ASSERT_OK(op.Build());
  std::vector<int8_t> x;
  for (int v = -128; v < 128; ++v) x.push_back(static_cast<int8_t>(v));
  op.t().SetInput<int8_t>(0, x);
  ASSERT_OK(op.t().Invoke());
  const std::vector<int8_t> y = op.t().GetOutput<int8_t>(0);
  for (int i = 0; i < 256; ++i) {
    const double r = in_scale * (x[i] - 5);
    const double expect = std::min(
        127.0, std::max(-128.0, r * std::min(6.0, std::max(0.0, r + 3)) / 6 / out_scale - 20));
    EXPECT_NEAR(y[i], expect, 1.01) << "input " << int(x[i]);
  }
}

// ---------------------------------------------------------------------------------------------
// CAST.

// FLOAT16 both ways: rounding to nearest even, overflow to infinity, subnormals, and a half read
// back exactly before an integer cast truncates it.
TEST(ElementwiseTest, CastToAndFromFloat16) {
  OneOp to_half(B::CAST, {{kTfLiteFloat32, {6}}}, {kTfLiteFloat16});
  ASSERT_OK(to_half.Build());
  // 1 + 2^-11 is a tie (rounds to 1), 1 + 3*2^-11 rounds up to 1 + 2^-9; 65520 overflows; 2^-24 is
  // the smallest subnormal; NaN stays NaN.
  to_half.t().SetInput<float>(0, {1.0f + 0.00048828125f, 1.0f + 3 * 0.00048828125f, 65520.0f, -65504.0f,
                                  5.9604645e-08f, std::nanf("")});
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
            (std::vector<int32_t>{1, -1, 0,
                                  std::numeric_limits<int32_t>::min()}));  // truncation toward zero

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

// ---------------------------------------------------------------------------------------------
// SELECT, SELECT_V2.

TEST(ElementwiseTest, SelectSameShapeAndRankOneCondition) {
  OneOp same(B::SELECT, {{kTfLiteBool, {4}}, {kTfLiteInt32, {4}}, {kTfLiteInt32, {4}}},
             {kTfLiteInt32});
  ASSERT_OK(same.Build());
  same.t().SetInput<uint8_t>(0, {1, 0, 0, 1});
  same.t().SetInput<int32_t>(1, {1, 2, 3, 4});
  same.t().SetInput<int32_t>(2, {-1, -2, -3, -4});
  ASSERT_OK(same.t().Invoke());
  EXPECT_EQ(same.t().GetOutput<int32_t>(0), (std::vector<int32_t>{1, -2, -3, 4}));

  OneOp rows(B::SELECT, {{kTfLiteBool, {2}}, {kTfLiteFloat32, {2, 2}}, {kTfLiteFloat32, {2, 2}}},
             {kTfLiteFloat32});
  ASSERT_OK(rows.Build());
  rows.t().SetInput<uint8_t>(0, {0, 1});
  rows.t().SetInput<float>(1, {1, 2, 3, 4});
  rows.t().SetInput<float>(2, {5, 6, 7, 8});
  ASSERT_OK(rows.t().Invoke());
  EXPECT_EQ(rows.t().GetOutput<float>(0), (std::vector<float>{5, 6, 3, 4}));

  // SELECT (v1) does not broadcast x against y.
  OneOp bad(B::SELECT, {{kTfLiteBool, {2}}, {kTfLiteFloat32, {2}}, {kTfLiteFloat32, {1}}},
            {kTfLiteFloat32});
  EXPECT_FALSE(bad.Build().ok());
}

TEST(ElementwiseTest, SelectV2BroadcastsAllThree) {
  // Condition [2, 1], x [1, 3], y scalar -> [2, 3].
  OneOp op(B::SELECT_V2, {{kTfLiteBool, {2, 1}}, {kTfLiteFloat32, {1, 3}}, {kTfLiteFloat32, {}}},
           {kTfLiteFloat32});
  ASSERT_OK(op.Build());
  op.t().SetInput<uint8_t>(0, {1, 0});
  op.t().SetInput<float>(1, {1, 2, 3});
  op.t().SetInput<float>(2, {-9});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(op.t().GetOutput<float>(0), (std::vector<float>{1, 2, 3, -9, -9, -9}));

  OneOp not_bool(B::SELECT_V2, {{kTfLiteInt32, {2}}, {kTfLiteFloat32, {2}}, {kTfLiteFloat32, {2}}},
                 {kTfLiteFloat32});
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
  const Options cast_opts{
      fb::BuiltinOptions::CastOptions,
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
