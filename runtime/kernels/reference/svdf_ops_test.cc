// Reference SVDF kernel (svdf_ops.cc): float, hybrid and integer, against TensorFlow Lite's outputs
// (models built by recurrent_test_util.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/reference/recurrent_test_util.h"
#include "runtime/model.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace recurrent_test;  // NOLINT(build/namespaces): recurrent_test_util.h's helpers

TEST(SvdfTest, FloatRankTwoOverTwoInvocations) {
  // 2 filters of rank 2 make one unit; memory 2. Per filter the state holds the last two feature
  // activations (oldest first) and the output sums weights_time . state over both filters + bias.
  RawModel m;
  const int input = m.AddInput(kTfLiteFloat32, {2, 2});
  const int weights_feature = m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>{1.0f, 2.0f, 0.5f, -1.0f});
  const int weights_time = m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>{1.0f, 0.5f, 2.0f, -1.0f});
  const int bias = m.AddConst(kTfLiteFloat32, {1}, std::vector<float>{0.25f});
  const int state = m.AddState(kTfLiteFloat32, {2, 4});
  const int output = m.AddOutput(kTfLiteFloat32);
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, bias, state}, {output}, {},
          fb::BuiltinOptions::SVDFOptions, fb::CreateSVDFOptions(m.fbb(), 2, fb::ActivationFunctionType::RELU).Union());
  ASSERT_TRUE(m.Build().ok());
  // Row 0: features (3, -0.5) -> 0.5*3 + (-1)(-0.5) + 0.25 = 2.25.
  // Row 1: features (-1, -0.5) -> 0.5*(-1) + (-1)(-0.5) + 0.25 = 0.25.
  m.SetInput<float>(0, {1.0f, 1.0f, -1.0f, 0.0f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 1}));
  ExpectClose(m.GetOutput<float>(0), {2.25f, 0.25f});
  // Row 0: features (0, 2), states (3, 0) and (-0.5, 2) -> 3 + (-1 - 2) + 0.25 = 0.25.
  // Row 1: features (-3, -1.5), states (-1, -3) and (-0.5, -1.5) -> (-1 - 1.5) + (-1 + 1.5) + 0.25
  // < 0 -> ReLU 0.
  m.SetInput<float>(0, {2.0f, -1.0f, -3.0f, 0.0f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {0.25f, 0.0f});
}

// An SVDF with int8 feature weights: hybrid (float input) or integer (int8 input, int16 state and
// time weights, int32 bias).
int BuildQuantizedSvdf(RawModel& m, bool integer, bool asymmetric, int batch, int input_size, int num_filters, int rank,
                       int memory_size, fb::ActivationFunctionType activation) {
  const int num_units = num_filters / rank;
  const int input = integer ? m.AddInput(kTfLiteInt8, {batch, input_size}, 0.06f, -10)
                            : m.AddInput(kTfLiteFloat32, {batch, input_size});
  const int weights_feature = m.AddConst(kTfLiteInt8, {num_filters, input_size},
                                         Pattern<int8_t>(num_filters * input_size, -127, 127, 7), 0.009f);
  int weights_time;
  int bias;
  int state;
  int output;
  if (integer) {
    weights_time = m.AddConst(kTfLiteInt16, {num_filters, memory_size},
                              Pattern<int16_t>(num_filters * memory_size, -3000, 3000, 8), 0.0004f);
    bias = m.AddConst(kTfLiteInt32, {num_units}, Pattern<int32_t>(num_units, -4000000, 4000000, 9), 1.6e-6f);
    state = m.AddState(kTfLiteInt16, {batch, memory_size * num_filters}, 0.004f);
    output = m.AddOutput(kTfLiteInt8, 2.0f, -20);
  } else {
    weights_time = m.AddConst(kTfLiteInt8, {num_filters, memory_size},
                              Pattern<int8_t>(num_filters * memory_size, -127, 127, 8), 0.02f);
    bias = m.AddConst(kTfLiteFloat32, {num_units}, FloatPattern(num_units, 0.1f, 9));
    state = m.AddState(kTfLiteFloat32, {batch, memory_size * num_filters});
    output = m.AddOutput(kTfLiteFloat32);
  }
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, bias, state}, {output}, {},
          fb::BuiltinOptions::SVDFOptions, fb::CreateSVDFOptions(m.fbb(), rank, activation, asymmetric).Union());
  return output;
}

TEST(SvdfTest, HybridSymmetricOverThreeInvocations) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/false, /*asymmetric=*/false, 2, 5, 6, 2, 3, fb::ActivationFunctionType::NONE);
  ASSERT_TRUE(m.Build().ok());
  const std::vector<std::vector<float>> inputs = {FloatPattern(10, 0.3f, 1), FloatPattern(10, 0.2f, 2),
                                                  std::vector<float>(10, 0.0f)};
  const std::vector<std::vector<float>> expected = {
      {3.6825004f, 1.4671998f, -2.947478f, -1.9286895f, 0.5634151f, -0.096390665f},
      {10.97069f, -4.00808f, -10.190618f, 9.466152f, -1.9944675f, -13.62035f},
      {-4.8813963f, -8.010525f, -14.220668f, -9.3674f, -4.215385f, -11.391349f}};
  for (size_t k = 0; k < inputs.size(); ++k) {
    m.SetInput<float>(0, inputs[k]);
    ASSERT_TRUE(m.Invoke().ok());
    ExpectClose(m.GetOutput<float>(0), expected[k]);
  }
}

TEST(SvdfTest, HybridAsymmetricRelu) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/false, /*asymmetric=*/true, 1, 4, 4, 1, 2, fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {0.9f, 0.1f, 0.4f, 0.7f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {0.16879255f, 0.0f, 0.0f, 1.8842247f});
  m.SetInput<float>(0, {-1.5f, 0.25f, 3.0f, -0.5f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {0.0f, 2.5539086f, 0.0f, 3.7545419f});
}

TEST(SvdfTest, IntegerOverThreeInvocations) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/true, false, 2, 6, 8, 2, 4, fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(m.Build().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 4}));
  const std::vector<std::vector<int8_t>> expected = {{-26, -27, -26, -15, -28, -23, -30, -21},
                                                     {-19, -22, -22, -18, -25, -20, -28, -19},
                                                     {-19, -17, -23, -23, -22, -25, -19, -12}};
  for (int k = 0; k < 3; ++k) {
    m.SetInput<int8_t>(0, Pattern<int8_t>(12, -128, 127, 20 + k));
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutput<int8_t>(0), expected[k]) << "invocation " << k;
  }
}

TEST(SvdfTest, ZeroBatchGivesEmptyOutput) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/true, false, 0, 4, 4, 2, 3, fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(m.Build().ok());
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{0, 2}));
}

TEST(SvdfTest, IntegerRefusesActivationOtherThanRelu) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/true, false, 1, 4, 4, 1, 2, fb::ActivationFunctionType::TANH);
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("RELU"), std::string::npos) << status.message();
}

TEST(SvdfTest, RefusesStateOfTheWrongSize) {
  // As litert_testdata/svdf_quantized.bin: 6 filters with memory 7 need a state of 42 per row.
  RawModel m;
  const int input = m.AddInput(kTfLiteInt8, {1, 4}, 0.07f, -128);
  const int weights_feature = m.AddConst(kTfLiteInt8, {6, 4}, Pattern<int8_t>(24, -127, 127, 1), 0.00076f);
  const int weights_time = m.AddConst(kTfLiteInt16, {6, 7}, Pattern<int16_t>(42, -300, 300, 2), 0.000189f);
  const int bias = m.AddConst(kTfLiteInt32, {6}, Pattern<int32_t>(6, -9, 9, 3), 1e-6f);
  const int state = m.AddState(kTfLiteInt16, {1, 9}, 0.0039f);
  const int output = m.AddOutput(kTfLiteInt8, 0.157f, -128);
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, bias, state}, {output}, {},
          fb::BuiltinOptions::SVDFOptions, fb::CreateSVDFOptions(m.fbb(), 1, fb::ActivationFunctionType::RELU).Union());
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("memory_size * num_filters"), std::string::npos) << status.message();
}

TEST(SvdfTest, RefusesZeroRank) {
  RawModel m;
  const int input = m.AddInput(kTfLiteFloat32, {1, 2});
  const int weights_feature = m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>(4, 1.0f));
  const int weights_time = m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>(4, 1.0f));
  const int state = m.AddState(kTfLiteFloat32, {1, 4});
  const int output = m.AddOutput(kTfLiteFloat32);
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, -1, state}, {output}, {},
          fb::BuiltinOptions::SVDFOptions, fb::CreateSVDFOptions(m.fbb(), 0).Union());
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace touchstone
