// Quantized and hybrid forms of the reference convolutions and matrix products (CONV_2D,
// DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED, BATCH_MATMUL), run through the real loader
// and interpreter, plus the fixed-point helpers they share. Expected values are worked by hand from
// TensorFlow Lite 2.14.1's definitions: real = scale * (q - zero_point), the output multiplier
// input_scale * weight_scale / output_scale, and the rounding of the kernel TFLite's x86 build runs
// (ruy rounds ties up, the depthwise/transposed/reference loops round them away from zero).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;
using Act = fb::ActivationFunctionType;

// Scales and zero points of a quantized tensor (one entry each for per-tensor quantization).
struct Quant {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int dimension = 0;
};

void SetQuant(OpTest& test, int tensor, const Quant& quant) {
  test.builder().SetQuantization(tensor, quant.scales, quant.zero_points, quant.dimension);
}

// ---- Fixed-point helpers

TEST(OutputStageTest, TiesRoundAwayFromZeroOrUpAsEachKernelDoes) {
  // multiplier 2^30 with shift -1 is 0.25: -6 * 0.25 = -1.5 and 6 * 0.25 = 1.5 are ties.
  const int32_t quarter = int32_t{1} << 30;
  int32_t multiplier;
  int shift;
  quantization_util::QuantizeMultiplier(0.25, &multiplier, &shift);
  EXPECT_EQ(multiplier, quarter);
  EXPECT_EQ(shift, -1);
  EXPECT_EQ(nn::ApplyOutputStage(nn::OutputStage::kDoubleRounding, -6, quarter, -1), -2);
  EXPECT_EQ(nn::ApplyOutputStage(nn::OutputStage::kDoubleRounding, 6, quarter, -1), 2);
  EXPECT_EQ(nn::ApplyOutputStage(nn::OutputStage::kRoundingUp, -6, quarter, -1), -1);
  EXPECT_EQ(nn::ApplyOutputStage(nn::OutputStage::kRoundingUp, 6, quarter, -1), 2);
  // 64-bit: the multiplier reduced to 16 bits (2^14), then (x * 2^14 + 2^15) >> 16.
  EXPECT_EQ(nn::ApplyOutputStage(nn::OutputStage::kInt64, -6, quarter, -1), -1);
  // Sums beyond int32 stay exact: (2^32 + 6) / 4 = 2^30 + 1.5 -> 2^30 + 2.
  EXPECT_EQ(nn::ApplyOutputStage(nn::OutputStage::kInt64, (int64_t{1} << 32) + 6, quarter, -1), (1 << 30) + 2);
}

TEST(OutputStageTest, RoundingUpRoundsTheHighMultiplyFirst) {
  // 0.75 = 3 * 2^29 / 2^31 with shift -1: x * 0.375. For x = 5 the high multiply gives 3.75 -> 4,
  // then 4 / 2 = 2. For x = -7 it gives -5.25 -> -5, then -2.5, a tie: rounded up to -2, where
  // MultiplyByQuantizedMultiplier rounds it away from zero and one rounding of -2.625 gives -3.
  const int32_t three_quarters = 3 << 29;
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplierRoundingUp(5, three_quarters, -1), 2);
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplierRoundingUp(-7, three_quarters, -1), -2);
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplier(-7, three_quarters, -1), -3);
  // A left shift applies before the multiply.
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplierRoundingUp(3, three_quarters, 2), 9);
}

TEST(QuantizeFloatsTest, SymmetricScalesByTheLargestMagnitude) {
  const float values[] = {1.0f, -0.5f, 0.25f};
  int8_t quantized[3];
  float scale;
  nn::SymmetricQuantizeFloats(values, 3, quantized, &scale);
  EXPECT_FLOAT_EQ(scale, 1.0f / 127);
  EXPECT_EQ(quantized[0], 127);
  EXPECT_EQ(quantized[1], -64);  // -63.5 rounds away from zero
  EXPECT_EQ(quantized[2], 32);   // 31.75
  const float zeros[] = {0.f, 0.f};
  nn::SymmetricQuantizeFloats(zeros, 2, quantized, &scale);
  EXPECT_EQ(scale, 1.0f);
  EXPECT_EQ(quantized[0], 0);
}

// The two ways of finding a row's range agree except on NaN: std::minmax_element (the LSTM's) takes
// the NaN for the maximum, so the range is |minimum| = 0.5; folding std::min and std::max (the
// convolutions' and FULLY_CONNECTED's) passes over the NaN and finds 1.
TEST(QuantizeFloatsTest, MinMaxScansDifferOnlyOnNaN) {
  namespace qu = quantization_util;
  int8_t quantized[3];
  float running, minmax_element;
  const float finite[] = {1.0f, 0.25f, -0.5f};
  qu::SymmetricQuantizeFloats(finite, 3, quantized, &running, qu::MinMaxScan::kRunningMinMax);
  qu::SymmetricQuantizeFloats(finite, 3, quantized, &minmax_element, qu::MinMaxScan::kMinMaxElement);
  EXPECT_EQ(running, 1.0f / 127);
  EXPECT_EQ(minmax_element, 1.0f / 127);
  const float with_nan[] = {1.0f, std::nanf(""), -0.5f};
  qu::SymmetricQuantizeFloats(with_nan, 3, quantized, &running, qu::MinMaxScan::kRunningMinMax);
  qu::SymmetricQuantizeFloats(with_nan, 3, quantized, &minmax_element, qu::MinMaxScan::kMinMaxElement);
  EXPECT_EQ(running, 1.0f / 127);
  EXPECT_EQ(minmax_element, 0.5f / 127);
}

TEST(QuantizeFloatsTest, AsymmetricUsesTheRangeWithAZeroPoint) {
  // Range [-0.5, 1]: scale 1.5 / 255, zero point -128 + 0.5 / scale = -43.
  const float values[] = {1.0f, -0.5f, 0.f};
  int8_t quantized[3];
  float scale;
  int32_t offset;
  nn::AsymmetricQuantizeFloats(values, 3, quantized, &scale, &offset);
  EXPECT_FLOAT_EQ(scale, 1.5f / 255);
  EXPECT_EQ(offset, -43);
  EXPECT_EQ(quantized[0], 127);
  EXPECT_EQ(quantized[1], -128);
  EXPECT_EQ(quantized[2], -43);
}

// ---- CONV_2D

// A CONV_2D with constant per-channel weights and bias: graph input 0, output 0.
struct QuantConv {
  TfLiteType type;  // input and output
  std::vector<int> input_shape;
  Quant input_quant;
  std::vector<int> filter_shape;
  TfLiteType filter_type;
  std::vector<int8_t> filter;  // stored as bytes; uint8 cases pass the bit patterns
  Quant filter_quant;
  TfLiteType bias_type;
  std::vector<int64_t> bias;
  Quant bias_quant;
  Quant output_quant;
  Act activation = Act::NONE;
  fb::Padding padding = fb::Padding::VALID;
};

int AddBias(OpTest& test, TfLiteType type, const std::vector<int64_t>& values) {
  const int size = static_cast<int>(values.size());
  if (type == kTfLiteInt64) return test.AddConst<int64_t>(kTfLiteInt64, {size}, values);
  return test.AddConst<int32_t>(kTfLiteInt32, {size}, std::vector<int32_t>(values.begin(), values.end()));
}

void AddQuantConv(OpTest& test, const QuantConv& c, int op = kTfLiteBuiltinConv2d) {
  const int input = test.AddInput(c.type, c.input_shape);
  SetQuant(test, input, c.input_quant);
  const int filter = test.AddConst<int8_t>(c.filter_type, c.filter_shape, c.filter);
  SetQuant(test, filter, c.filter_quant);
  const int bias = AddBias(test, c.bias_type, c.bias);
  SetQuant(test, bias, c.bias_quant);
  const int output = test.AddOutput(c.type);
  SetQuant(test, output, c.output_quant);
  if (op == kTfLiteBuiltinConv2d) {
    test.AddOp(op, {input, filter, bias}, {output}, fb::BuiltinOptions::Conv2DOptions,
               fb::CreateConv2DOptions(test.fbb(), c.padding, 1, 1, c.activation).Union());
  } else {
    test.AddOp(op, {input, filter, bias}, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
               fb::CreateDepthwiseConv2DOptions(test.fbb(), c.padding, 1, 1, 1, c.activation).Union());
  }
}

// input reals {1, 2, 3, 4} (scale 0.5, zero point -1); channel 0 weights all 1 (scale 0.25),
// channel 1 weights {1, 0, 0, -1} (scale 0.5); biases 1 and -1; output scale 0.25, zero point 10.
QuantConv PerChannelInt8Conv() {
  return {kTfLiteInt8,
          {1, 2, 2, 1},
          {{0.5f}, {-1}},
          {2, 2, 2, 1},
          kTfLiteInt8,
          {4, 4, 4, 4, 2, 0, 0, -2},
          {{0.25f, 0.5f}, {0, 0}, 0},
          kTfLiteInt32,
          {8, -4},
          {{0.125f, 0.25f}, {0, 0}, 0},
          {{0.25f}, {10}}};
}

TEST(QuantizedConv2dTest, Int8PerChannelWeights) {
  OpTest test;
  AddQuantConv(test, PerChannelInt8Conv());
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({1, 3, 5, 7}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 1, 1, 2}));
  // Channel 0: 1+2+3+4+1 = 11 -> 44 + 10; channel 1: 1-4-1 = -4 -> -16 + 10.
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{54, -6}));
}

TEST(QuantizedConv2dTest, Int8ReluClampsAtTheOutputZeroPoint) {
  OpTest test;
  QuantConv c = PerChannelInt8Conv();
  c.activation = Act::RELU;
  AddQuantConv(test, c);
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({1, 3, 5, 7}).ok());
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{54, 10}));
}

// A 1x1 convolution by 1 with the multiplier 0.25: inputs -6 and 6 give the ties -1.5 and 1.5.
QuantConv TieConv(TfLiteType type, int64_t zero_point) {
  const TfLiteType weights = type == kTfLiteUInt8 ? kTfLiteUInt8 : kTfLiteInt8;
  const int8_t one = static_cast<int8_t>(1 + zero_point);
  return {type,    {1, 1, 2, 1},   {{0.5f}, {zero_point}}, {1, 1, 1, 1},
          weights, {one},          {{0.5f}, {zero_point}}, type == kTfLiteInt16 ? kTfLiteInt64 : kTfLiteInt32,
          {0},     {{0.25f}, {0}}, {{1.f}, {zero_point}}};
}

// Runs TieConv(type, zero_point) as `op` on `input` and checks it gives `expected`.
template <typename T>
void ExpectTieConv(TfLiteType type, int64_t zero_point, const std::vector<T>& input, const std::vector<T>& expected,
                   int op = kTfLiteBuiltinConv2d) {
  OpTest test;
  AddQuantConv(test, TieConv(type, zero_point), op);
  ASSERT_TRUE(test.BuildAndInvoke<T>(input).ok());
  EXPECT_EQ(test.GetOutput<T>(0), expected);
}

TEST(QuantizedConv2dTest, Int8RoundsTiesUpAsRuyDoes) { ExpectTieConv<int8_t>(kTfLiteInt8, 0, {-6, 6}, {-1, 2}); }

TEST(QuantizedConv2dTest, Uint8RoundsTiesAwayFromZeroAsGemmlowpDoes) {
  ExpectTieConv<uint8_t>(kTfLiteUInt8, 128, {122, 134}, {126, 130});
}

TEST(QuantizedConv2dTest, Int16WithInt64BiasUsesTheReducedMultiplier) {
  ExpectTieConv<int16_t>(kTfLiteInt16, 0, {-6, 6}, {-1, 2});
}

TEST(QuantizedConv2dTest, Int16WithInt32BiasAndSamePadding) {
  OpTest test;
  // 3x3 ones filter over a 2x2 image with SAME padding: every output sums the whole image.
  QuantConv c = TieConv(kTfLiteInt16, 0);
  c.input_shape = {1, 2, 2, 1};
  c.filter_shape = {1, 3, 3, 1};
  c.filter = std::vector<int8_t>(9, 1);
  c.bias_type = kTfLiteInt32;
  c.bias = {4};  // 4 * 0.25 = 1.0
  c.padding = fb::Padding::SAME;
  AddQuantConv(test, c);
  ASSERT_TRUE(test.BuildAndInvoke<int16_t>({2, 4, 6, 8}).ok());
  // (2 + 4 + 6 + 8) * 0.25 + 1 = 6 everywhere.
  EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{6, 6, 6, 6}));
}

// Variations of TieConv that TFLite refuses at Prepare.
TEST(QuantizedConv2dTest, RefusesWhatTfliteRefuses) {
  struct Case {
    const char* what;
    TfLiteType type;
    int64_t zero_point;
    std::function<void(QuantConv&)> change;
  };
  const Case cases[] = {
      {"weights of another type", kTfLiteInt8, 0, [](QuantConv& c) { c.filter_type = kTfLiteUInt8; }},
      {"asymmetric int8 weights", kTfLiteInt8, 0,
       [](QuantConv& c) {
         c.filter_quant = {{0.5f}, {3}};
       }},
      {"int16 with a nonzero zero point", kTfLiteInt16, 0,
       [](QuantConv& c) {
         c.input_quant = {{0.5f}, {1}};
       }},
      // Two scales along dimension 3 (the filter's input channels) for one output channel.
      {"per-channel scales along the input channels", kTfLiteInt8, 0,
       [](QuantConv& c) {
         c.input_shape = {1, 1, 1, 2};
         c.filter_shape = {1, 1, 1, 2};
         c.filter = {1, 1};
         c.filter_quant = {{0.5f, 0.25f}, {0, 0}, 3};
       }},
      // The bias scale should be 0.5 * 0.5.
      {"a uint8 bias scale that is not the product of scales", kTfLiteUInt8, 128,
       [](QuantConv& c) {
         c.bias_quant = {{0.5f}, {0}};
       }},
  };
  for (const Case& k : cases) {
    OpTest test;
    QuantConv c = TieConv(k.type, k.zero_point);
    k.change(c);
    AddQuantConv(test, c);
    EXPECT_FALSE(test.Build().ok()) << k.what;
  }
}

// Per-channel int8 weights must be symmetric in every channel, not only the first.
TEST(QuantizedConv2dTest, RefusesPerChannelWeightsWithAZeroPointInALaterChannel) {
  for (int64_t second_zero_point : {0, 5}) {
    OpTest test;
    QuantConv c = TieConv(kTfLiteInt8, 0);
    c.filter_shape = {3, 1, 1, 1};
    c.filter = {1, 1, 1};
    c.filter_quant = {{0.5f, 0.5f, 0.5f}, {0, second_zero_point, 0}, 0};
    c.bias = {0, 0, 0};
    c.bias_quant = {{0.25f, 0.25f, 0.25f}, {0, 0, 0}, 0};
    AddQuantConv(test, c);
    const Status built = test.Build();
    if (second_zero_point == 0) {
      EXPECT_TRUE(built.ok()) << built.message();
    } else {
      ASSERT_FALSE(built.ok());
      EXPECT_NE(built.message().find("zero point 5; symmetric weights (0) are required"), std::string::npos)
          << built.message();
    }
  }
}

TEST(QuantizedConv2dTest, RefusesMissingBias) {
  OpTest test;
  const int input = test.AddInput(kTfLiteInt8, {1, 1, 1, 1});
  SetQuant(test, input, {{1.f}, {0}});
  const int filter = test.AddConst<int8_t>(kTfLiteInt8, {1, 1, 1, 1}, {1});
  SetQuant(test, filter, {{1.f}, {0}});
  const int output = test.AddOutput(kTfLiteInt8);
  SetQuant(test, output, {{1.f}, {0}});
  test.AddOp(kTfLiteBuiltinConv2d, {input, filter}, {output}, fb::BuiltinOptions::Conv2DOptions,
             fb::CreateConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1).Union());
  EXPECT_FALSE(test.Build().ok());
}

// A hybrid CONV_2D (VALID, stride 1): a float input of `input_shape`, constant weights of
// `filter_type` quantized as `filter_quant`, and a float bias.
template <typename FilterT>
void AddHybridConv(OpTest& test, const std::vector<int>& input_shape, TfLiteType filter_type,
                   const std::vector<int>& filter_shape, const std::vector<FilterT>& filter, const Quant& filter_quant,
                   const std::vector<float>& bias) {
  const int input = test.AddInput(kTfLiteFloat32, input_shape);
  const int filter_tensor = test.AddConst<FilterT>(filter_type, filter_shape, filter);
  SetQuant(test, filter_tensor, filter_quant);
  const int bias_tensor = test.AddConst<float>(kTfLiteFloat32, {static_cast<int>(bias.size())}, bias);
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinConv2d, {input, filter_tensor, bias_tensor}, {output}, fb::BuiltinOptions::Conv2DOptions,
             fb::CreateConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1).Union());
}

// Hybrid: float input {1, -0.5}, int8 weights {2, 4} * 0.5 = {1, 2}, bias 0.25. TFLite quantizes
// the input to {127, -64} with scale 1/127: sum 127*2 - 64*4 = -2, times (1/127) * 0.5, plus the
// bias (the float result would be 0.25).
TEST(HybridConv2dTest, SymmetricPerTensorWeights) {
  OpTest test;
  AddHybridConv<int8_t>(test, {1, 1, 1, 2}, kTfLiteInt8, {1, 1, 1, 2}, {2, 4}, {{0.5f}, {0}}, {0.25f});
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -0.5f}).ok());
  const float scale = (1.0f / 127) * 0.5f;
  const float expected = -2.0f * scale + 0.25f;
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{expected}));
}

// Distinct per-channel scales take TFLite's asymmetric path: the input {1, -0.5} becomes
// {127, -128} with zero point -43, exact for these weights.
TEST(HybridConv2dTest, PerChannelWeightsQuantizeTheInputAsymmetrically) {
  OpTest test;
  AddHybridConv<int8_t>(test, {1, 1, 1, 2}, kTfLiteInt8, {2, 1, 1, 2}, {2, 4, 1, 0}, {{0.5f, 1.0f}, {0, 0}, 0},
                        {0.25f, 0.f});
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -0.5f}).ok());
  // Channel 0: (127 + 43) * 2 + (-128 + 43) * 4 = 0, so exactly the bias. Channel 1:
  // (127 + 43) * 1 = 170, times weight scale 1 and the input scale 1.5/255 (in double, then float).
  const std::vector<float> got = test.GetOutput<float>(0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], 0.25f);
  EXPECT_EQ(got[1], 170.0f * (1.0f * static_cast<float>(1.5 / 255.0)));
}

TEST(HybridConv2dTest, RefusesUint8Weights) {
  OpTest test;
  AddHybridConv<uint8_t>(test, {1, 1, 1, 1}, kTfLiteUInt8, {1, 1, 1, 1}, {1}, {{0.5f}, {0}}, {0.f});
  EXPECT_FALSE(test.Build().ok());
}

// ---- DEPTHWISE_CONV_2D

TEST(QuantizedDepthwiseConv2dTest, Int8RoundsTiesAwayFromZero) {
  ExpectTieConv<int8_t>(kTfLiteInt8, 0, {-6, 6}, {-2, 2}, kTfLiteBuiltinDepthwiseConv2d);
}

TEST(QuantizedDepthwiseConv2dTest, Uint8WithZeroPointsAndRelu6) {
  OpTest test;
  // Two channels, 2x2 window; input zero point 100, weights zero point 50 (scale 1), output
  // scale 0.5 and zero point 20; RELU6 clamps at 20 + 6 / 0.5 = 32.
  const int input = test.AddInput(kTfLiteUInt8, {1, 2, 2, 2});
  SetQuant(test, input, {{0.25f}, {100}});
  const int filter = test.AddConst<uint8_t>(kTfLiteUInt8, {1, 2, 2, 2}, {51, 52, 51, 50, 51, 50, 51, 50});
  SetQuant(test, filter, {{1.f}, {50}});
  const int bias = test.AddConst<int32_t>(kTfLiteInt32, {2}, {4, -4});
  SetQuant(test, bias, {{0.25f}, {0}});
  const int output = test.AddOutput(kTfLiteUInt8);
  SetQuant(test, output, {{0.5f}, {20}});
  test.AddOp(kTfLiteBuiltinDepthwiseConv2d, {input, filter, bias}, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
             fb::CreateDepthwiseConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1, 1, Act::RELU6).Union());
  // Channel 0 inputs 104, 108, 112, 116 (reals 1..4) times weights 1: 10, plus bias 1 = 11 ->
  // 22 + 20 = 42, clamped to 32. Channel 1: only input 104 (real 1) meets a non-zero weight (2):
  // 2, plus bias -1 = 1 -> 2 + 20 = 22.
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({104, 104, 108, 100, 112, 100, 116, 116}).ok());
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{32, 22}));
}

TEST(QuantizedDepthwiseConv2dTest, Int16WithInt64Bias) {
  ExpectTieConv<int16_t>(kTfLiteInt16, 0, {-6, 6}, {-1, 2}, kTfLiteBuiltinDepthwiseConv2d);
}

TEST(QuantizedDepthwiseConv2dTest, Int8WithoutBiasCountsZeros) {
  OpTest test;
  const int input = test.AddInput(kTfLiteInt8, {1, 1, 1, 2});
  SetQuant(test, input, {{1.f}, {0}});
  const int filter = test.AddConst<int8_t>(kTfLiteInt8, {1, 1, 1, 2}, {3, -2});
  SetQuant(test, filter, {{1.f, 0.5f}, {0, 0}, 3});
  const int output = test.AddOutput(kTfLiteInt8);
  SetQuant(test, output, {{1.f}, {0}});
  test.AddOp(kTfLiteBuiltinDepthwiseConv2d, {input, filter}, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
             fb::CreateDepthwiseConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1, 1).Union());
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({5, 7}).ok());
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{15, -7}));
}

TEST(QuantizedDepthwiseConv2dTest, RefusesInt16WithInt32Bias) {
  OpTest test;
  QuantConv c = TieConv(kTfLiteInt16, 0);
  c.bias_type = kTfLiteInt32;
  AddQuantConv(test, c, kTfLiteBuiltinDepthwiseConv2d);
  EXPECT_FALSE(test.Build().ok());
}

// Hybrid depthwise (float input, int8 weights): the input quantized asymmetrically per batch
// (2.0 -> 127 with zero point -128, scale 2/255), the sum scaled back by (0.5 * 2/255).
TEST(QuantizedDepthwiseConv2dTest, HybridWeightsQuantizeTheInputPerBatch) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 1, 1, 1});
  const int filter = test.AddConst<int8_t>(kTfLiteInt8, {1, 1, 1, 1}, {1});
  SetQuant(test, filter, {{0.5f}, {0}});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinDepthwiseConv2d, {input, filter}, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
             fb::CreateDepthwiseConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1, 1).Union());
  ASSERT_TRUE(test.BuildAndInvoke<float>({2.0f}).ok());
  const float scale = 2.0f / 255.0f;
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{255.0f * (0.5f * scale)}));
}

// ---- TRANSPOSE_CONV

TEST(QuantizedTransposeConvTest, Int8StrideTwoScattersAndRoundsAwayFromZero) {
  OpTest test;
  // Input [1, 1, 2, 1] (scale 0.5, zero point 0) upsampled by a 1x2 kernel {1, -1} (scale 0.5)
  // with stride 2 into [1, 1, 4, 1]; output scale 1: each value is +-input/4.
  const int output_shape = test.AddConst<int32_t>(kTfLiteInt32, {4}, {1, 1, 4, 1});
  const int weights = test.AddConst<int8_t>(kTfLiteInt8, {1, 1, 2, 1}, {1, -1});
  SetQuant(test, weights, {{0.5f}, {0}});
  const int input = test.AddInput(kTfLiteInt8, {1, 1, 2, 1});
  SetQuant(test, input, {{0.5f}, {0}});
  const int output = test.AddOutput(kTfLiteInt8);
  SetQuant(test, output, {{1.f}, {0}});
  test.AddOp(kTfLiteBuiltinTransposeConv, {output_shape, weights, input}, {output},
             fb::BuiltinOptions::TransposeConvOptions,
             fb::CreateTransposeConvOptions(test.fbb(), fb::Padding::VALID, 2, 1).Union());
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({6, -10}).ok());
  // 6/4 = 1.5 -> 2, -1.5 -> -2; -10/4 = -2.5 -> -3, 2.5 -> 3.
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{2, -2, -3, 3}));
}

TEST(QuantizedTransposeConvTest, Int16WithBias) {
  OpTest test;
  const int output_shape = test.AddConst<int32_t>(kTfLiteInt32, {4}, {1, 2, 2, 1});
  const int weights = test.AddConst<int8_t>(kTfLiteInt8, {1, 2, 2, 1}, {1, 2, 3, 4});
  SetQuant(test, weights, {{1.f}, {0}});
  const int input = test.AddInput(kTfLiteInt16, {1, 1, 1, 1});
  SetQuant(test, input, {{1.f}, {0}});
  const int bias = test.AddConst<int64_t>(kTfLiteInt64, {1}, {100});
  SetQuant(test, bias, {{1.f}, {0}});
  const int output = test.AddOutput(kTfLiteInt16);
  SetQuant(test, output, {{1.f}, {0}});
  test.AddOp(kTfLiteBuiltinTransposeConv, {output_shape, weights, input, bias}, {output},
             fb::BuiltinOptions::TransposeConvOptions,
             fb::CreateTransposeConvOptions(test.fbb(), fb::Padding::VALID, 1, 1).Union());
  ASSERT_TRUE(test.BuildAndInvoke<int16_t>({-1000}).ok());
  EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{-900, -1900, -2900, -3900}));
}

// ---- FULLY_CONNECTED

int AddQuantFullyConnected(OpTest& test, TfLiteType type, const std::vector<int>& input_shape, const Quant& input_quant,
                           const std::vector<int>& weights_shape, const std::vector<int8_t>& weights,
                           const Quant& weights_quant, TfLiteType bias_type, const std::vector<int64_t>& bias,
                           const Quant& bias_quant, const Quant& output_quant, Act activation = Act::NONE) {
  const int input = test.AddInput(type, input_shape);
  SetQuant(test, input, input_quant);
  const TfLiteType weights_type = type == kTfLiteUInt8 ? kTfLiteUInt8 : kTfLiteInt8;
  const int weights_tensor = test.AddConst<int8_t>(weights_type, weights_shape, weights);
  SetQuant(test, weights_tensor, weights_quant);
  std::vector<int> inputs = {input, weights_tensor};
  if (!bias.empty()) {
    const int bias_tensor = AddBias(test, bias_type, bias);
    SetQuant(test, bias_tensor, bias_quant);
    inputs.push_back(bias_tensor);
  }
  const int output = test.AddOutput(type);
  SetQuant(test, output, output_quant);
  return test.AddOp(kTfLiteBuiltinFullyConnected, inputs, {output}, fb::BuiltinOptions::FullyConnectedOptions,
                    fb::CreateFullyConnectedOptions(test.fbb(), activation).Union());
}

TEST(QuantizedFullyConnectedTest, Int8PerChannelWeights) {
  OpTest test;
  // Rows {1, 2} and {-1, 3} (scale 1, zero point 0); unit 0 weights {2, 2} * 0.5, unit 1
  // weights {1, -1} * 1; biases 0.5 and 0; output scale 0.5, zero point -3.
  AddQuantFullyConnected(test, kTfLiteInt8, {2, 2}, {{1.f}, {0}}, {2, 2}, {2, 2, 1, -1}, {{0.5f, 1.f}, {0, 0}, 0},
                         kTfLiteInt32, {1, 0}, {{0.5f, 1.f}, {0, 0}, 0}, {{0.5f}, {-3}});
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({1, 2, -1, 3}).ok());
  // Row 0: 3 + 0.5 = 3.5 -> 7 - 3; 1 - 2 = -1 -> -2 - 3. Row 1: 2 + 0.5 -> 5 - 3; -4 -> -8 - 3.
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{4, -5, 2, -11}));
}

TEST(QuantizedFullyConnectedTest, Uint8WithZeroPointsAndNoBias) {
  OpTest test;
  AddQuantFullyConnected(test, kTfLiteUInt8, {1, 3}, {{1.f}, {10}}, {1, 3},
                         {static_cast<int8_t>(130), static_cast<int8_t>(126), 0}, {{1.f}, {128}}, kTfLiteInt32, {}, {},
                         {{2.f}, {100}});
  // (13 - 10) * 2 + (15 - 10) * -2 + (10 - 10) * -128 = -4 -> -2 + 100.
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({13, 15, 10}).ok());
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{98}));
}

TEST(QuantizedFullyConnectedTest, Int16TiesRoundUpWithBothBiasTypes) {
  for (TfLiteType bias_type : {kTfLiteInt64, kTfLiteInt32}) {
    OpTest test;
    // Multiplier 0.25: -6 and 6 are ties; the 16x8 reference (int64 bias) and ruy (int32 bias)
    // both round them up.
    AddQuantFullyConnected(test, kTfLiteInt16, {2, 1}, {{0.5f}, {0}}, {1, 1}, {1}, {{0.5f}, {0}}, bias_type, {0},
                           {{0.25f}, {0}}, {{1.f}, {0}});
    ASSERT_TRUE(test.BuildAndInvoke<int16_t>({-6, 6}).ok());
    EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{-1, 2}));
  }
}

TEST(QuantizedFullyConnectedTest, KeepNumDimsWithRelu) {
  OpTest test;
  const int input = test.AddInput(kTfLiteInt8, {1, 2, 1});
  SetQuant(test, input, {{1.f}, {0}});
  const int weights = test.AddConst<int8_t>(kTfLiteInt8, {1, 1}, {3});
  SetQuant(test, weights, {{1.f}, {0}});
  const int output = test.AddOutput(kTfLiteInt8);
  SetQuant(test, output, {{1.f}, {0}});
  test.AddOp(kTfLiteBuiltinFullyConnected, {input, weights}, {output}, fb::BuiltinOptions::FullyConnectedOptions,
             fb::CreateFullyConnectedOptions(test.fbb(), Act::RELU, fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                             /*keep_num_dims=*/true)
                 .Union());
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({5, -5}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 2, 1}));
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{15, 0}));
}

TEST(QuantizedFullyConnectedTest, EmptyBatch) {
  OpTest test;
  AddQuantFullyConnected(test, kTfLiteInt8, {0, 2}, {{1.f}, {0}}, {1, 2}, {1, 1}, {{1.f}, {0}}, kTfLiteInt32, {0},
                         {{1.f}, {0}}, {{1.f}, {0}});
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{0, 1}));
}

TEST(QuantizedFullyConnectedTest, RefusesInt64BiasWithInt8Input) {
  OpTest test;
  AddQuantFullyConnected(test, kTfLiteInt8, {1, 1}, {{1.f}, {0}}, {1, 1}, {1}, {{1.f}, {0}}, kTfLiteInt64, {0},
                         {{1.f}, {0}}, {{1.f}, {0}});
  EXPECT_FALSE(test.Build().ok());
}

TEST(QuantizedFullyConnectedTest, RefusesUint8PerChannelWeights) {
  OpTest test;
  AddQuantFullyConnected(test, kTfLiteUInt8, {1, 1}, {{1.f}, {0}}, {2, 1}, {1, 1}, {{1.f, 0.5f}, {0, 0}, 0},
                         kTfLiteInt32, {0, 0}, {{1.f}, {0}}, {{1.f}, {0}});
  EXPECT_FALSE(test.Build().ok());
}

// The hybrid FULLY_CONNECTED of the hybrid CONV_2D tests above: {1, -0.5} against weights {1, 2}.
void AddHybridFullyConnected(OpTest& test, bool asymmetric, const std::vector<int>& weights_shape,
                             const std::vector<int8_t>& weights, const Quant& weights_quant) {
  const int input = test.AddInput(kTfLiteFloat32, {1, 2});
  const int weights_tensor = test.AddConst<int8_t>(kTfLiteInt8, weights_shape, weights);
  SetQuant(test, weights_tensor, weights_quant);
  const int bias =
      test.AddConst<float>(kTfLiteFloat32, {weights_shape[0]}, std::vector<float>(weights_shape[0], 0.25f));
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinFullyConnected, {input, weights_tensor, bias}, {output},
             fb::BuiltinOptions::FullyConnectedOptions,
             fb::CreateFullyConnectedOptions(test.fbb(), Act::NONE, fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                             false, asymmetric)
                 .Union());
}

TEST(HybridFullyConnectedTest, SymmetricInputQuantization) {
  OpTest test;
  AddHybridFullyConnected(test, /*asymmetric=*/false, {1, 2}, {2, 4}, {{0.5f}, {0}});
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -0.5f}).ok());
  float expected = 0.25f;
  expected += -2.0f * ((1.0f / 127) * 0.5f);
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{expected}));
}

TEST(HybridFullyConnectedTest, AsymmetricInputQuantizationSubtractsTheRowSums) {
  OpTest test;
  AddHybridFullyConnected(test, /*asymmetric=*/true, {1, 2}, {2, 4}, {{0.5f}, {0}});
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -0.5f}).ok());
  // {127, -128} with zero point -43: 254 - 512 - 6 * (-43) = 0.
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{0.25f}));
}

TEST(HybridFullyConnectedTest, EmptyRowsGiveTheBias) {
  OpTest test;
  // keep_num_dims with an input size of 0: every output is the bias (TFLite's all-zero shortcut).
  const int input = test.AddInput(kTfLiteFloat32, {2, 0});
  const int weights = test.AddConst<int8_t>(kTfLiteInt8, {3, 0}, {});
  SetQuant(test, weights, {{0.5f}, {0}});
  const int bias = test.AddConst<float>(kTfLiteFloat32, {3}, {1.f, -2.f, 3.f});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinFullyConnected, {input, weights, bias}, {output}, fb::BuiltinOptions::FullyConnectedOptions,
             fb::CreateFullyConnectedOptions(test.fbb(), Act::RELU, fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                             /*keep_num_dims=*/true)
                 .Union());
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{1.f, 0.f, 3.f, 1.f, 0.f, 3.f}));
}

// TFLite 2.14.1's hybrid FULLY_CONNECTED adds nothing for per-channel weights: the output is the
// bias (0.25 here), whatever the input, and a warning says so.
TEST(HybridFullyConnectedTest, PerChannelWeightsGiveTheBiasAsTflite) {
  OpTest test;
  AddHybridFullyConnected(test, false, {2, 2}, {2, 4, 1, 1}, {{0.5f, 1.f}, {0, 0}, 0});
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(test.Build().ok());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("WARNING: FULLY_CONNECTED"), std::string::npos);
  test.SetInput<float>(0, {1.0f, -0.5f});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{0.25f, 0.25f}));
}

// ---- BATCH_MATMUL

int AddQuantBatchMatMul(OpTest& test, TfLiteType type, const std::vector<int>& lhs_shape, const Quant& lhs_quant,
                        const std::vector<int>& rhs_shape, const Quant& rhs_quant, const Quant& output_quant,
                        bool adj_y = false) {
  const int lhs = test.AddInput(type, lhs_shape);
  SetQuant(test, lhs, lhs_quant);
  const int rhs = test.AddInput(type, rhs_shape);
  SetQuant(test, rhs, rhs_quant);
  const int output = test.AddOutput(type);
  SetQuant(test, output, output_quant);
  return test.AddOp(kTfLiteBuiltinBatchMatmul, {lhs, rhs}, {output}, fb::BuiltinOptions::BatchMatMulOptions,
                    fb::CreateBatchMatMulOptions(test.fbb(), false, adj_y).Union());
}

TEST(QuantizedBatchMatMulTest, Int8WithZeroPointsRoundsTiesUp) {
  OpTest test;
  // [1, 2] x [2, 2]; lhs zero point 1, multiplier 0.5 * 0.5 / 1 = 0.25.
  AddQuantBatchMatMul(test, kTfLiteInt8, {1, 2}, {{0.5f}, {1}}, {2, 2}, {{0.5f}, {0}}, {{1.f}, {0}});
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<int8_t>(0, {3, -1});       // reals (q - 1): {2, -2}
  test.SetInput<int8_t>(1, {1, 2, 4, 1});  // rows {1, 2} and {4, 1}
  ASSERT_TRUE(test.Invoke().ok());
  // Column 0: 2 - 8 = -6 -> -1.5 -> -1; column 1: 4 - 2 = 2 -> 0.5 -> 1.
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{-1, 1}));
}

TEST(QuantizedBatchMatMulTest, Int16BroadcastsBatchesWithAdjY) {
  OpTest test;
  AddQuantBatchMatMul(test, kTfLiteInt16, {2, 1, 2}, {{1.f}, {0}}, {1, 1, 2}, {{1.f}, {0}}, {{1.f}, {0}},
                      /*adj_y=*/true);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<int16_t>(0, {1, 2, -3, 4});
  test.SetInput<int16_t>(1, {100, 1000});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{2100, 3700}));
}

TEST(QuantizedBatchMatMulTest, Int16SaturatesAtTheTypeRange) {
  OpTest test;
  AddQuantBatchMatMul(test, kTfLiteInt16, {1, 1}, {{1.f}, {0}}, {1, 1}, {{1.f}, {0}}, {{1.f}, {0}});
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<int16_t>(0, {300});
  test.SetInput<int16_t>(1, {-300});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{-32768}));
}

TEST(QuantizedBatchMatMulTest, RefusesMixedTypes) {
  OpTest test;
  const int lhs = test.AddInput(kTfLiteInt8, {1, 1});
  SetQuant(test, lhs, {{1.f}, {0}});
  const int rhs = test.AddInput(kTfLiteInt16, {1, 1});
  SetQuant(test, rhs, {{1.f}, {0}});
  const int output = test.AddOutput(kTfLiteInt8);
  SetQuant(test, output, {{1.f}, {0}});
  test.AddOp(kTfLiteBuiltinBatchMatmul, {lhs, rhs}, {output}, fb::BuiltinOptions::BatchMatMulOptions,
             fb::CreateBatchMatMulOptions(test.fbb()).Union());
  EXPECT_FALSE(test.Build().ok());
}

// Hybrid BATCH_MATMUL (float lhs, int8 rhs): each lhs row quantized symmetrically (1 -> 127,
// -0.5 -> -64 at scale 1/127), the integer sum scaled by (row scale * rhs scale).
TEST(QuantizedBatchMatMulTest, HybridOperandsQuantizeLhsRows) {
  OpTest test;
  const int lhs = test.AddInput(kTfLiteFloat32, {1, 2});
  const int rhs = test.AddConst<int8_t>(kTfLiteInt8, {2, 1}, {2, 4});
  SetQuant(test, rhs, {{0.5f}, {0}});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinBatchMatmul, {lhs, rhs}, {output}, fb::BuiltinOptions::BatchMatMulOptions,
             fb::CreateBatchMatMulOptions(test.fbb()).Union());
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -0.5f}).ok());
  const float row_scale = (1.0f / 127.0f) * 0.5f;
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{row_scale * static_cast<float>(127 * 2 - 64 * 4)}));
}

}  // namespace
}  // namespace touchstone
