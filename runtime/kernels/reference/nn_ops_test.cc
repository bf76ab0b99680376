// Reference nn kernels (convolution, pooling, dense layers, normalization, resizing) run through
// the real loader and interpreter. Expected values are worked by hand from the ops' definitions in
// TensorFlow Lite 2.14.1 (padding, window clipping, sampling coordinates), not from the kernels.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/kernels/reference/resize_test_util.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;
using Act = fb::ActivationFunctionType;

void ExpectFloatsNear(const std::vector<float>& actual, const std::vector<float>& expected, float tolerance = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
  }
}

// ExpectRun's expected_shape when a test does not check the output's shape.
const std::vector<int> kAnyShape = {-1};

// Builds the model, runs it with `input` as graph input 0, and expects output 0 to have
// `expected_shape` (unless kAnyShape) and values within `tolerance` of `expected`.
// ExpectRunOnInputs feeds graph inputs 0, 1, ... in order.
void ExpectRunOnInputs(OpTest& test, const std::vector<std::vector<float>>& inputs,
                       const std::vector<int>& expected_shape, const std::vector<float>& expected,
                       float tolerance = 1e-5f) {
  ASSERT_TRUE(test.Build().ok());
  for (size_t i = 0; i < inputs.size(); ++i) test.SetInput<float>(static_cast<int>(i), inputs[i]);
  ASSERT_TRUE(test.Invoke().ok());
  if (expected_shape != kAnyShape) {
    EXPECT_EQ(test.GetOutputShape(0), expected_shape);
  }
  ExpectFloatsNear(test.GetOutput<float>(0), expected, tolerance);
}
void ExpectRun(OpTest& test, const std::vector<float>& input, const std::vector<int>& expected_shape,
               const std::vector<float>& expected, float tolerance = 1e-5f) {
  ExpectRunOnInputs(test, {input}, expected_shape, expected, tolerance);
}

std::vector<float> Iota(int count, float start = 0.f) {
  std::vector<float> values(count);
  for (int i = 0; i < count; ++i) values[i] = start + i;
  return values;
}

// ---- CONV_2D

// One float convolution with a constant filter and bias (none for DEPTHWISE_CONV_2D where `bias` is
// empty); the input is graph input 0.
struct ConvCase {
  std::vector<int> input_shape;
  std::vector<int> filter_shape;
  std::vector<float> filter;
  std::vector<float> bias;
  fb::Padding padding = fb::Padding::VALID;
  int stride = 1;
  int dilation = 1;
  Act activation = Act::NONE;
};

// The convolution's input, filter and bias tensors, in that order.
std::vector<int> AddConvInputs(OpTest& test, const ConvCase& c) {
  std::vector<int> inputs = {test.AddInput(kTfLiteFloat32, c.input_shape),
                             test.AddConst<float>(kTfLiteFloat32, c.filter_shape, c.filter)};
  if (!c.bias.empty()) {
    inputs.push_back(test.AddConst<float>(kTfLiteFloat32, {static_cast<int>(c.bias.size())}, c.bias));
  }
  return inputs;
}

void AddConv(OpTest& test, const ConvCase& c) {
  const std::vector<int> inputs = AddConvInputs(test, c);
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(
      kTfLiteBuiltinConv2d, inputs, {output}, fb::BuiltinOptions::Conv2DOptions,
      fb::CreateConv2DOptions(test.fbb(), c.padding, c.stride, c.stride, c.activation, c.dilation, c.dilation).Union());
}

// DEPTHWISE_CONV_2D with `depth_multiplier_option` (redundant: the kernel derives it from the shapes).
void AddDepthwiseConv(OpTest& test, const ConvCase& c, int depth_multiplier_option) {
  const std::vector<int> inputs = AddConvInputs(test, c);
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinDepthwiseConv2d, inputs, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
             fb::CreateDepthwiseConv2DOptions(test.fbb(), c.padding, c.stride, c.stride, depth_multiplier_option,
                                              c.activation, c.dilation, c.dilation)
                 .Union());
}

TEST(Conv2dTest, ValidPaddingAddsBias) {
  OpTest test;
  // The filter sums the two diagonal pixels of each 2x2 window.
  AddConv(test, {{1, 3, 3, 1}, {1, 2, 2, 1}, {1, 0, 0, 1}, {0.5f}});
  ExpectRun(test, Iota(9, 1), {1, 2, 2, 1}, {6.5f, 8.5f, 12.5f, 14.5f});
}

TEST(Conv2dTest, SamePaddingWithStrideTwoSkipsPaddedPixels) {
  OpTest test;
  // 3x3 image, 3x3 ones filter, stride 2: output 2x2, one pixel of padding on each side.
  AddConv(test, {{1, 3, 3, 1},
                 {1, 3, 3, 1},
                 std::vector<float>(9, 1.f),
                 {0.f},
                 fb::Padding::SAME,
                 /*stride=*/2});
  ExpectRun(test, Iota(9, 1), {1, 2, 2, 1}, {12, 16, 24, 28});
}

TEST(Conv2dTest, DilationSpreadsTheFilter) {
  OpTest test;
  // A 2x2 ones filter dilated by 2 covers pixels (y, x), (y, x+2), (y+2, x), (y+2, x+2).
  AddConv(test, {{1, 5, 5, 1},
                 {1, 2, 2, 1},
                 {1, 1, 1, 1},
                 {0.f},
                 fb::Padding::VALID,
                 /*stride=*/1,
                 /*dilation=*/2});
  ExpectRun(test, Iota(25), {1, 3, 3, 1}, {24, 28, 32, 44, 48, 52, 64, 68, 72});
}

TEST(Conv2dTest, BatchesOddChannelsAndRelu) {
  OpTest test;
  AddConv(test, {{2, 1, 1, 3}, {2, 1, 1, 3}, {1, 1, 1, 2, -1, -1}, {1.f, -1.f}, fb::Padding::VALID, 1, 1, Act::RELU});
  // Batch 0: 6 + 1 and 2 - 2 - 3 - 1 (clamped); batch 1: 1 + 1 and -2 - 2 - 1 (clamped).
  ExpectRun(test, {1, 2, 3, -1, 0, 2}, {2, 1, 1, 2}, {7, 0, 2, 0});
}

TEST(Conv2dTest, GroupedConvolutionSplitsInputChannels) {
  OpTest test;
  // 4 input channels, filters of 2: two groups, filter 0 reads channels 0-1, filter 1 channels 2-3.
  AddConv(test, {{1, 1, 1, 4}, {2, 1, 1, 2}, {1, 1, 1, -1}, {0.f, 0.f}});
  ExpectRun(test, {1, 2, 3, 4}, kAnyShape, {3, -1});
}

TEST(Conv2dTest, ReluN1To1Clamps) {
  OpTest test;
  AddConv(test, {{1, 1, 3, 1}, {1, 1, 1, 1}, {1}, {0.f}, fb::Padding::SAME, 1, 1, Act::RELU_N1_TO_1});
  ExpectRun(test, {-3.f, 0.25f, 2.f}, kAnyShape, {-1.f, 0.25f, 1.f});
}

TEST(Conv2dTest, EmptyBatchGivesEmptyOutput) {
  OpTest test;
  AddConv(test, {{0, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, {0.f}});
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{0, 2, 2, 1}));
}

TEST(Conv2dTest, RefusesMissingBias) {
  // TFLite 2.14 requires CONV_2D's bias.
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2, 2, 1});
  const int filter = test.AddConst<float>(kTfLiteFloat32, {1, 1, 1, 1}, {1});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinConv2d, {input, filter}, {output}, fb::BuiltinOptions::Conv2DOptions,
             fb::CreateConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1).Union());
  EXPECT_FALSE(test.Build().ok());
}

TEST(Conv2dTest, RefusesChannelsNotAMultipleOfTheFilters) {
  OpTest test;
  AddConv(test, {{1, 2, 2, 3}, {1, 1, 1, 2}, {1, 1}, {0.f}});
  EXPECT_FALSE(test.Build().ok());
}

TEST(Conv2dTest, RefusesValidWindowLargerThanInput) {
  OpTest test;
  AddConv(test, {{1, 2, 2, 1}, {1, 4, 4, 1}, std::vector<float>(16, 1.f), {0.f}});
  EXPECT_FALSE(test.Build().ok());
}

TEST(Conv2dTest, RefusesZeroStride) {
  OpTest test;
  AddConv(test, {{1, 2, 2, 1}, {1, 1, 1, 1}, {1}, {0.f}, fb::Padding::SAME, /*stride=*/0});
  EXPECT_FALSE(test.Build().ok());
}

// An int8 convolution needs quantization parameters on its tensors (nn_quant_test.cc covers the
// quantized kernels).
TEST(Conv2dTest, RefusesInt8InputWithoutQuantizationParameters) {
  OpTest test;
  const int input = test.AddInput(kTfLiteInt8, {1, 2, 2, 1});
  const int filter = test.AddConst<int8_t>(kTfLiteInt8, {1, 1, 1, 1}, {1});
  const int bias = test.AddConst<int32_t>(kTfLiteInt32, {1}, {0});
  const int output = test.AddOutput(kTfLiteInt8);
  test.AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {output}, fb::BuiltinOptions::Conv2DOptions,
             fb::CreateConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1).Union());
  EXPECT_FALSE(test.Build().ok());
}

// ---- DEPTHWISE_CONV_2D

TEST(DepthwiseConv2dTest, DepthMultiplierTwoWithBias) {
  OpTest test;
  // Channels 0 and 1 each feed two outputs: 0 -> {0, 1}, 1 -> {2, 3}. Filter [1, 2, 2, 4] per
  // position (y, x): output 0 and 2 sum the window, 1 takes (0, 0), 3 takes (1, 1).
  AddDepthwiseConv(
      test, {{1, 2, 2, 2}, {1, 2, 2, 4}, {1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1}, {0.f, 0.5f, 0.f, -0.5f}}, 2);
  ExpectRun(test, {1, 10, 2, 20, 3, 30, 4, 40}, {1, 1, 1, 4}, {10.f, 1.5f, 100.f, 39.5f});
}

TEST(DepthwiseConv2dTest, NoBiasSamePaddingRelu6IgnoresDepthMultiplierOption) {
  OpTest test;
  // Every output of a 3x3 ones filter over a 2x2 image with SAME padding sums all 4 pixels
  // (10), which RELU6 clamps. The depth_multiplier option (0) is redundant and ignored.
  AddDepthwiseConv(
      test, {{1, 2, 2, 1}, {1, 3, 3, 1}, std::vector<float>(9, 1.f), {}, fb::Padding::SAME, 1, 1, Act::RELU6}, 0);
  ExpectRun(test, {1, 2, 3, 4}, {1, 2, 2, 1}, {6, 6, 6, 6});
}

TEST(DepthwiseConv2dTest, DilationAndStride) {
  OpTest test;
  // 1x5 row, filter taps 1 and 10 two apart, stride 2, VALID: outputs at x = 0 and x = 2.
  const int input = test.AddInput(kTfLiteFloat32, {1, 1, 5, 1});
  const int filter = test.AddConst<float>(kTfLiteFloat32, {1, 1, 2, 1}, {1, 10});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinDepthwiseConv2d, {input, filter}, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
             fb::CreateDepthwiseConv2DOptions(test.fbb(), fb::Padding::VALID, 2, 1, 1, Act::NONE,
                                              /*dilation_w_factor=*/2, 1)
                 .Union());
  ExpectRun(test, {1, 2, 3, 4, 5}, {1, 1, 2, 1}, {31, 53});
}

TEST(DepthwiseConv2dTest, RefusesOmittedThirdInput) {
  // TFLite 2.14 refuses a bias slot of -1 ("Tensor at index 2 was optional but was expected").
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2, 2, 1});
  const int filter = test.AddConst<float>(kTfLiteFloat32, {1, 1, 1, 1}, {1});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinDepthwiseConv2d, {input, filter, -1}, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
             fb::CreateDepthwiseConv2DOptions(test.fbb(), fb::Padding::VALID, 1, 1, 1).Union());
  EXPECT_FALSE(test.Build().ok());
}

TEST(DepthwiseConv2dTest, RefusesFilterNotShapedOneHWC) {
  OpTest test;
  AddDepthwiseConv(test, {{1, 2, 2, 1}, {2, 1, 1, 1}, {1, 1}, {}}, 1);
  EXPECT_FALSE(test.Build().ok());
}

// ---- TRANSPOSE_CONV

// 2x2 input, 3x3 ones filter, stride 2, SAME, output 4x4: the padding is 0 before and 1 after, so
// input pixel (y, x) adds to output rows 2y..2y+2 and columns 2x..2x+2 (clipped to 4).
const std::vector<float> kTransposeConvOnes = {1, 1, 3, 2, 1, 1, 3, 2, 4, 4, 10, 6, 3, 3, 7, 4};

// That TRANSPOSE_CONV with output shape `output_shape` (a graph input before the image where empty)
// and `bias` (none where empty); the 2x2 image is a graph input.
void AddOnesTransposeConv(OpTest& test, const std::vector<int32_t>& output_shape, const std::vector<float>& bias = {}) {
  const int shape =
      output_shape.empty() ? test.AddInput(kTfLiteInt32, {4}) : test.AddConst<int32_t>(kTfLiteInt32, {4}, output_shape);
  const int weights = test.AddConst<float>(kTfLiteFloat32, {1, 3, 3, 1}, std::vector<float>(9, 1.f));
  std::vector<int> inputs = {shape, weights, test.AddInput(kTfLiteFloat32, {1, 2, 2, 1})};
  if (!bias.empty()) inputs.push_back(test.AddConst<float>(kTfLiteFloat32, {static_cast<int>(bias.size())}, bias));
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinTransposeConv, inputs, {output}, fb::BuiltinOptions::TransposeConvOptions,
             fb::CreateTransposeConvOptions(test.fbb(), fb::Padding::SAME, 2, 2).Union());
}

TEST(TransposeConvTest, StrideTwoSameWithBias) {
  OpTest test;
  AddOnesTransposeConv(test, {1, 4, 4, 1}, {0.5f});
  std::vector<float> expected = kTransposeConvOnes;
  for (float& v : expected) v += 0.5f;
  ExpectRun(test, {1, 2, 3, 4}, {1, 4, 4, 1}, expected);
}

TEST(TransposeConvTest, RuntimeOutputShapeMakesDynamicOutput) {
  OpTest test;
  AddOnesTransposeConv(test, {});
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<int32_t>(0, {1, 4, 4, 1});
  test.SetInput<float>(1, {1, 2, 3, 4});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 4, 4, 1}));
  ExpectFloatsNear(test.GetOutput<float>(0), kTransposeConvOnes);
}

TEST(TransposeConvTest, ChannelsOmittedBiasAndRelu) {
  OpTest test;
  // A 1x1 pixel of 2 channels through weights [3, 1, 1, 2]: output channel k is the dot product
  // of the pixel with weights[k]; RELU clamps the negative one.
  const int output_shape = test.AddConst<int32_t>(kTfLiteInt32, {4}, {1, 1, 1, 3});
  const int weights = test.AddConst<float>(kTfLiteFloat32, {3, 1, 1, 2}, {1, 0, 0, 1, -1, -1});
  const int input = test.AddInput(kTfLiteFloat32, {1, 1, 1, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinTransposeConv, {output_shape, weights, input, -1}, {output},
             fb::BuiltinOptions::TransposeConvOptions,
             fb::CreateTransposeConvOptions(test.fbb(), fb::Padding::VALID, 1, 1, Act::RELU).Union());
  ExpectRun(test, {1, 2}, kAnyShape, {1, 2, 0});
}

TEST(TransposeConvTest, RefusesOutputShapeWithWrongChannels) {
  OpTest test;
  AddOnesTransposeConv(test, {1, 4, 4, 2});
  EXPECT_FALSE(test.Build().ok());
}

// ---- FULLY_CONNECTED

// input -> FULLY_CONNECTED(weights [units, depth], bias or none) -> output.
void AddFullyConnected(OpTest& test, const std::vector<int>& input_shape, const std::vector<int>& weights_shape,
                       const std::vector<float>& weights, const std::vector<float>& bias, Act activation = Act::NONE,
                       bool keep_num_dims = false) {
  const int input = test.AddInput(kTfLiteFloat32, input_shape);
  const int weights_tensor = test.AddConst<float>(kTfLiteFloat32, weights_shape, weights);
  const int bias_tensor =
      bias.empty() ? -1 : test.AddConst<float>(kTfLiteFloat32, {static_cast<int>(bias.size())}, bias);
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinFullyConnected, {input, weights_tensor, bias_tensor}, {output},
             fb::BuiltinOptions::FullyConnectedOptions,
             fb::CreateFullyConnectedOptions(test.fbb(), activation, fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                             keep_num_dims)
                 .Union());
}

TEST(FullyConnectedTest, BiasAndRelu) {
  OpTest test;
  AddFullyConnected(test, {2, 3}, {2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f}, {1.f, -1.f}, Act::RELU);
  // Before RELU: row 0 {-1, 2}, row 1 {-1, 6.5}.
  ExpectRun(test, {1, 2, 3, 4, 5, 6}, {2, 2}, {0, 2, 0, 6.5f});
}

TEST(FullyConnectedTest, OmittedBias) {
  OpTest test;
  AddFullyConnected(test, {1, 4}, {1, 4}, {1, 1, 1, 1}, {});
  ExpectRun(test, {1, 2, 3, 4}, kAnyShape, {10});
}

TEST(FullyConnectedTest, FlattensInputIntoRows) {
  OpTest test;
  AddFullyConnected(test, {2, 2, 3}, {2, 3}, {1, 1, 1, 0, 0, 1}, {0.f, 0.f});
  ExpectRun(test, Iota(12), {4, 2}, {3, 2, 12, 5, 21, 8, 30, 11});
}

TEST(FullyConnectedTest, KeepNumDimsKeepsLeadingDimensions) {
  OpTest test;
  AddFullyConnected(test, {2, 2, 3}, {2, 3}, {1, 1, 1, 0, 0, 1}, {0.f, 0.f}, Act::NONE,
                    /*keep_num_dims=*/true);
  ExpectRun(test, Iota(12), {2, 2, 2}, {3, 2, 12, 5, 21, 8, 30, 11});
}

TEST(FullyConnectedTest, IgnoresElementsBeyondWholeRows) {
  // 12 input elements over rows of 5: TFLite makes 2 rows and ignores the last 2 elements.
  OpTest test;
  std::vector<float> weights(15, 0.f);
  for (int d = 0; d < 5; ++d) weights[d] = 1.f;  // unit 0 sums the row
  weights[5] = 1.f;                              // unit 1 takes element 0
  weights[14] = 1.f;                             // unit 2 takes element 4
  AddFullyConnected(test, {2, 6}, {3, 5}, weights, {});
  ExpectRun(test, Iota(12), {2, 3}, {10, 0, 4, 35, 5, 9});
}

TEST(FullyConnectedTest, EmptyBatch) {
  OpTest test;
  AddFullyConnected(test, {0, 3}, {2, 3}, {1, 1, 1, 1, 1, 1}, {1.f, 1.f});
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{0, 2}));
}

TEST(FullyConnectedTest, RefusesBiasOfWrongSize) {
  OpTest test;
  AddFullyConnected(test, {1, 3}, {2, 3}, {1, 1, 1, 1, 1, 1}, {1.f, 1.f, 1.f});
  EXPECT_FALSE(test.Build().ok());
}

TEST(FullyConnectedTest, RefusesKeepNumDimsWithMismatchedLastDimension) {
  OpTest test;
  AddFullyConnected(test, {2, 6}, {3, 4}, std::vector<float>(12, 1.f), {}, Act::NONE,
                    /*keep_num_dims=*/true);
  EXPECT_FALSE(test.Build().ok());
}

// ---- BATCH_MATMUL

void AddBatchMatMul(OpTest& test, const std::vector<int>& lhs_shape, const std::vector<int>& rhs_shape,
                    bool adj_x = false, bool adj_y = false) {
  const int lhs = test.AddInput(kTfLiteFloat32, lhs_shape);
  const int rhs = test.AddInput(kTfLiteFloat32, rhs_shape);
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinBatchMatmul, {lhs, rhs}, {output}, fb::BuiltinOptions::BatchMatMulOptions,
             fb::CreateBatchMatMulOptions(test.fbb(), adj_x, adj_y).Union());
}

// [[1, 2, 3], [4, 5, 6]] x [[7, 8], [9, 10], [11, 12]].
const std::vector<float> kMatMulProduct = {58, 64, 139, 154};

TEST(BatchMatMulTest, RankTwo) {
  OpTest test;
  AddBatchMatMul(test, {2, 3}, {3, 2});
  ExpectRunOnInputs(test, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}, {2, 2}, kMatMulProduct);
}

TEST(BatchMatMulTest, AdjointFlagsTransposeTheOperands) {
  OpTest test;
  AddBatchMatMul(test, {3, 2}, {2, 3}, /*adj_x=*/true, /*adj_y=*/true);
  ExpectRunOnInputs(test, {{1, 4, 2, 5, 3, 6}, {7, 9, 11, 8, 10, 12}}, {2, 2}, kMatMulProduct);
}

TEST(BatchMatMulTest, BroadcastsBatchDimensions) {
  OpTest test;
  // lhs batches: I and 2I; rhs batches A, B, C: output [b][r] = (b + 1) * rhs[r].
  AddBatchMatMul(test, {2, 1, 2, 2}, {3, 2, 2});
  const std::vector<float> rhs = {1, 2, 3, 4, 0, 1, 1, 0, 1, 1, 1, 1};
  std::vector<float> expected = rhs;
  for (float v : rhs) expected.push_back(2 * v);
  ExpectRunOnInputs(test, {{1, 0, 0, 1, 2, 0, 0, 2}, rhs}, {2, 3, 2, 2}, expected);
}

TEST(BatchMatMulTest, RankFiveWithRankTwoRhsBroadcast) {
  OpTest test;
  AddBatchMatMul(test, {2, 1, 1, 1, 2}, {2, 1});
  ExpectRunOnInputs(test, {{1, 2, 3, 4}, {5, 6}}, {2, 1, 1, 1, 1}, {17, 39});
}

TEST(BatchMatMulTest, RefusesMismatchedInnerDimensions) {
  OpTest test;
  AddBatchMatMul(test, {2, 3}, {2, 2});
  EXPECT_FALSE(test.Build().ok());
}

TEST(BatchMatMulTest, RefusesUnbroadcastableBatches) {
  OpTest test;
  AddBatchMatMul(test, {2, 2, 2}, {3, 2, 2});
  EXPECT_FALSE(test.Build().ok());
}

// ---- AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D

void AddPool(OpTest& test, int builtin_code, const std::vector<int>& input_shape, fb::Padding padding, int stride_h,
             int stride_w, int filter_h, int filter_w, Act activation = Act::NONE) {
  const int input = test.AddInput(kTfLiteFloat32, input_shape);
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(builtin_code, {input}, {output}, fb::BuiltinOptions::Pool2DOptions,
             fb::CreatePool2DOptions(test.fbb(), padding, stride_w, stride_h, filter_w, filter_h, activation).Union());
}

TEST(PoolTest, AveragePoolCountsOnlyInBoundsElements) {
  OpTest test;
  // 3x3 image, 2x2 windows, stride 2, SAME: the padding (one row and column) is after the image,
  // so the windows hold 4, 2, 2 and 1 pixels.
  AddPool(test, kTfLiteBuiltinAveragePool2d, {1, 3, 3, 1}, fb::Padding::SAME, 2, 2, 2, 2);
  ExpectRun(test, Iota(9, 1), {1, 2, 2, 1}, {3.f, 4.5f, 7.5f, 9.f});
}

TEST(PoolTest, MaxPoolPerChannelWithRelu) {
  OpTest test;
  AddPool(test, kTfLiteBuiltinMaxPool2d, {1, 2, 3, 2}, fb::Padding::VALID, 1, 1, 2, 2, Act::RELU);
  // Channel 0 rows {1, 5, 2}, {3, 0, 6}; channel 1 all negative.
  ExpectRun(test, {1, -1, 5, -5, 2, -2, 3, -3, 0, -7, 6, -6}, {1, 1, 2, 2}, {5, 0, 6, 0},
            /*tolerance=*/0.f);
}

TEST(PoolTest, MaxPoolOfNegativesWithoutActivation) {
  OpTest test;
  AddPool(test, kTfLiteBuiltinMaxPool2d, {1, 1, 3, 1}, fb::Padding::SAME, 1, 1, 1, 3);
  ExpectRun(test, {-4, -2, -8}, kAnyShape, {-2, -2, -2}, /*tolerance=*/0.f);
}

TEST(PoolTest, L2PoolIsRootMeanSquareOfTheWindow) {
  OpTest test;
  AddPool(test, kTfLiteBuiltinL2Pool2d, {1, 2, 2, 1}, fb::Padding::VALID, 1, 1, 2, 2);
  ExpectRun(test, {3, 4, 0, 0}, kAnyShape, {2.5f});
}

TEST(PoolTest, EmptyBatch) {
  OpTest test;
  AddPool(test, kTfLiteBuiltinAveragePool2d, {0, 4, 4, 3}, fb::Padding::VALID, 2, 2, 2, 2);
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{0, 2, 2, 3}));
}

TEST(PoolTest, RefusesZeroStrideAndEmptyFilter) {
  OpTest zero_stride;
  AddPool(zero_stride, kTfLiteBuiltinMaxPool2d, {1, 2, 2, 1}, fb::Padding::VALID, 0, 1, 1, 1);
  EXPECT_FALSE(zero_stride.Build().ok());
  OpTest empty_filter;
  AddPool(empty_filter, kTfLiteBuiltinAveragePool2d, {1, 2, 2, 1}, fb::Padding::VALID, 1, 1, 0, 1);
  EXPECT_FALSE(empty_filter.Build().ok());
}

// ---- SOFTMAX, LOG_SOFTMAX

TEST(SoftmaxTest, RowsSumToOne) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinSoftmax, {input}, {output}, fb::BuiltinOptions::SoftmaxOptions,
             fb::CreateSoftmaxOptions(test.fbb(), 1.f).Union());
  // exp(-2), exp(-1), 1 over their sum 1.5032147.
  ExpectRun(test, {1, 2, 3, 0, 0, 0}, kAnyShape, {0.09003057f, 0.24472847f, 0.66524096f, 1 / 3.f, 1 / 3.f, 1 / 3.f},
            1e-6f);
}

TEST(SoftmaxTest, BetaScalesLogitsAndLargeLogitsDoNotOverflow) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinSoftmax, {input}, {output}, fb::BuiltinOptions::SoftmaxOptions,
             fb::CreateSoftmaxOptions(test.fbb(), 0.5f).Union());
  ExpectRun(test, {2, 4, 1000, 1000}, kAnyShape, {0.26894142f, 0.73105858f, 0.5f, 0.5f}, 1e-6f);
}

TEST(SoftmaxTest, RefusesScalarInput) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinSoftmax, {input}, {output}, fb::BuiltinOptions::SoftmaxOptions,
             fb::CreateSoftmaxOptions(test.fbb(), 1.f).Union());
  EXPECT_FALSE(test.Build().ok());
}

TEST(LogSoftmaxTest, SubtractsLogSumExp) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinLogSoftmax, {input}, {output});
  // log(exp(-2) + exp(-1) + 1) = 0.40760596.
  ExpectRun(test, {1, 2, 3}, kAnyShape, {-2.40760596f, -1.40760596f, -0.40760596f}, 1e-6f);
}

// ---- L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION

TEST(L2NormalizationTest, DividesByNormWithEpsilonFloor) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {3, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinL2Normalization, {input}, {output}, fb::BuiltinOptions::L2NormOptions,
             fb::CreateL2NormOptions(test.fbb()).Union());
  // The third row's norm (1e-7) is below epsilon (1e-6), which divides instead.
  ExpectRun(test, {3, 4, 0, 0, 1e-7f, 0}, kAnyShape, {0.6f, 0.8f, 0, 0, 0.1f, 0}, 1e-6f);
}

TEST(L2NormalizationTest, RefusesFusedActivation) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinL2Normalization, {input}, {output}, fb::BuiltinOptions::L2NormOptions,
             fb::CreateL2NormOptions(test.fbb(), Act::RELU).Union());
  EXPECT_FALSE(test.Build().ok());
}

TEST(LocalResponseNormalizationTest, NormalizesOverNeighbouringChannels) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 1, 1, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinLocalResponseNormalization, {input}, {output},
             fb::BuiltinOptions::LocalResponseNormalizationOptions,
             fb::CreateLocalResponseNormalizationOptions(test.fbb(), 1, 1.f, 1.f, 0.5f).Union());
  // x / sqrt(1 + sum of squares of channels c-1..c+1): 1/sqrt(6), 2/sqrt(15), 3/sqrt(14).
  ExpectRun(test, {1, 2, 3}, kAnyShape, {0.40824829f, 0.51639778f, 0.80178373f}, 1e-6f);
}

TEST(LocalResponseNormalizationTest, RefusesNon4DInput) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinLocalResponseNormalization, {input}, {output},
             fb::BuiltinOptions::LocalResponseNormalizationOptions,
             fb::CreateLocalResponseNormalizationOptions(test.fbb(), 1, 1.f, 1.f, 0.5f).Union());
  EXPECT_FALSE(test.Build().ok());
}

// ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR

// A 2x2 image {0, 1, 2, 3} (value 2 * row + column) resized to `size` (constant, or a graph input
// when size is empty).
void AddResize(OpTest& test, int builtin_code, const std::vector<int32_t>& size, bool align_corners,
               bool half_pixel_centers, int channels = 1) {
  const int input = test.AddInput(kTfLiteFloat32, {1, 2, 2, channels});
  const int size_tensor =
      size.empty() ? test.AddInput(kTfLiteInt32, {2}) : test.AddConst<int32_t>(kTfLiteInt32, {2}, size);
  const int output = test.AddOutput(kTfLiteFloat32);
  resize_test::AddResizeOp(test, builtin_code, input, size_tensor, output, align_corners, half_pixel_centers);
}

TEST(ResizeBilinearTest, DefaultSamplingClampsAtTheLastPixel) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, {3, 3}, false, false);
  // Source coordinates 0, 2/3, 4/3 (clamped to 1) on both axes.
  ExpectRun(test, {0, 1, 2, 3}, {1, 3, 3, 1}, {0, 2 / 3.f, 1, 4 / 3.f, 2, 7 / 3.f, 2, 8 / 3.f, 3});
}

TEST(ResizeBilinearTest, AlignCornersMapsCornersToCorners) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, {3, 3}, true, false);
  ExpectRun(test, {0, 1, 2, 3}, kAnyShape, {0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3});
}

TEST(ResizeBilinearTest, HalfPixelCentersClampOutsideTheImage) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, {4, 4}, false, true);
  // Source coordinates -0.25, 0.25, 0.75, 1.25 act as 0, 0.25, 0.75, 1.
  ExpectRun(test, {0, 1, 2, 3}, kAnyShape,
            {0, 0.25f, 0.75f, 1, 0.5f, 0.75f, 1.25f, 1.5f, 1.5f, 1.75f, 2.25f, 2.5f, 2, 2.25f, 2.75f, 3});
}

TEST(ResizeBilinearTest, RuntimeSizeMakesDynamicOutput) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, {}, true, false, /*channels=*/2);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {0, 10, 1, 11, 2, 12, 3, 13});
  test.SetInput<int32_t>(1, {1, 3});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 1, 3, 2}));
  ExpectFloatsNear(test.GetOutput<float>(0), {0, 10, 0.5f, 10.5f, 1, 11});
}

TEST(ResizeBilinearTest, RefusesBothSamplingFlags) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, {3, 3}, true, true);
  EXPECT_FALSE(test.Build().ok());
}

TEST(ResizeBilinearTest, RefusesZeroSize) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, {0, 3}, false, false);
  EXPECT_FALSE(test.Build().ok());
}

TEST(ResizeNearestNeighborTest, DefaultFloorsTheSourceCoordinate) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeNearestNeighbor, {3, 3}, false, false);
  // floor(0), floor(2/3), floor(4/3) = 0, 0, 1.
  ExpectRun(test, {0, 1, 2, 3}, kAnyShape, {0, 0, 1, 0, 0, 1, 2, 2, 3}, /*tolerance=*/0.f);
}

TEST(ResizeNearestNeighborTest, AlignCornersRoundsHalfAwayFromZero) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeNearestNeighbor, {3, 3}, true, false);
  // round(0), round(0.5), round(1) = 0, 1, 1.
  ExpectRun(test, {0, 1, 2, 3}, kAnyShape, {0, 1, 1, 2, 3, 3, 2, 3, 3}, /*tolerance=*/0.f);
}

TEST(ResizeNearestNeighborTest, HalfPixelCentersWithTwoChannels) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeNearestNeighbor, {3, 3}, false, true, /*channels=*/2);
  // floor(0.5 * 2/3), floor(1.5 * 2/3), floor(2.5 * 2/3) = 0, 1, 1.
  ExpectRun(test, {0, 10, 1, 11, 2, 12, 3, 13}, kAnyShape,
            {0, 10, 1, 11, 1, 11, 2, 12, 3, 13, 3, 13, 2, 12, 3, 13, 3, 13}, /*tolerance=*/0.f);
}

TEST(ResizeNearestNeighborTest, ZeroHeightGivesEmptyOutput) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeNearestNeighbor, {0, 3}, false, false);
  ASSERT_TRUE(test.BuildAndInvoke<float>({0, 1, 2, 3}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 0, 3, 1}));
}

TEST(ResizeNearestNeighborTest, RefusesNegativeRuntimeSize) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeNearestNeighbor, {}, false, false);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {0, 1, 2, 3});
  test.SetInput<int32_t>(1, {-1, 2});
  EXPECT_FALSE(test.Invoke().ok());
}

}  // namespace
}  // namespace touchstone
