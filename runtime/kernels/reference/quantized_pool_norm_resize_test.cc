// Quantized (uint8, int8, int16) pooling, softmax, normalization and resizing kernels run through
// the real loader and interpreter. Expected values are worked by hand from the arithmetic of
// TensorFlow Lite 2.14.1's default kernels: the rounding of integer averages, the float exp table
// of 8-bit softmax, the fixed output formats of LOG_SOFTMAX and L2_NORMALIZATION, and the
// coordinate arithmetic of the resize kernels. The op suite checks the same kernels byte for byte
// against TFLite's own outputs.
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

// A graph input or output with per-tensor quantization.
int AddQuantizedInput(OpTest& test, TfLiteType type, const std::vector<int>& shape, float scale, int64_t zero_point) {
  const int tensor = test.AddInput(type, shape);
  test.builder().SetQuantization(tensor, {scale}, {zero_point});
  return tensor;
}

int AddQuantizedOutput(OpTest& test, TfLiteType type, float scale, int64_t zero_point) {
  const int tensor = test.AddOutput(type);
  test.builder().SetQuantization(tensor, {scale}, {zero_point});
  return tensor;
}

// A tensor's type and per-tensor quantization.
struct Quant {
  TfLiteType type;
  float scale;
  int64_t zero_point;
};

// An op from one quantized graph input of `shape` to one quantized graph output.
void AddQuantizedUnaryOp(OpTest& test, int builtin_code, const std::vector<int>& shape, const Quant& in,
                         const Quant& out, fb::BuiltinOptions options_type, flatbuffers::Offset<void> options) {
  const int input = AddQuantizedInput(test, in.type, shape, in.scale, in.zero_point);
  const int output = AddQuantizedOutput(test, out.type, out.scale, out.zero_point);
  test.AddOp(builtin_code, {input}, {output}, options_type, options);
}

// ---- AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D

struct PoolCase {
  int builtin_code;
  TfLiteType type;
  std::vector<int> input_shape;
  fb::Padding padding;
  int stride;
  int filter;
  Act activation = Act::NONE;
  float output_scale = 1.f;
  int64_t output_zero_point = 0;
  TfLiteType output_type = kTfLiteNoType;  // The input's type unless set.
};

void AddPool(OpTest& test, const PoolCase& c) {
  const TfLiteType output_type = c.output_type == kTfLiteNoType ? c.type : c.output_type;
  AddQuantizedUnaryOp(
      test, c.builtin_code, c.input_shape, {c.type, 1.f, 0}, {output_type, c.output_scale, c.output_zero_point},
      fb::BuiltinOptions::Pool2DOptions,
      fb::CreatePool2DOptions(test.fbb(), c.padding, c.stride, c.stride, c.filter, c.filter, c.activation).Union());
}

TEST(QuantizedPoolTest, UInt8AverageRoundsHalvesUp) {
  OpTest test;
  // 3x3 image, 2x2 windows, stride 2, SAME: windows of 4, 2, 2 and 1 pixels.
  AddPool(test, {kTfLiteBuiltinAveragePool2d, kTfLiteUInt8, {1, 3, 3, 1}, fb::Padding::SAME, 2, 2});
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({1, 2, 4, 2, 2, 7, 255, 254, 9}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 2, 2, 1}));
  // 7/4 = 1.75 -> 2, 11/2 = 5.5 -> 6, 509/2 = 254.5 -> 255, 9.
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{2, 6, 255, 9}));
}

TEST(QuantizedPoolTest, Int8AverageRoundsHalvesAwayFromZero) {
  OpTest test;
  // A 1x4 row of three channels; single-pixel windows with stride 2 copy pixels 0 and 2.
  AddPool(test, {kTfLiteBuiltinAveragePool2d, kTfLiteInt8, {1, 1, 4, 3}, fb::Padding::VALID, 2, 1});
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({-1, -1, 1, -1, 0, 1, -128, 127, 5, -127, 127, -6}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 1, 2, 3}));
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{-1, -1, 1, -128, 127, 5}));

  // 2x2 windows with SAME padding: clipped to the single row, pixels (0, 1) and (2, 3).
  OpTest pairs;
  AddPool(pairs, {kTfLiteBuiltinAveragePool2d, kTfLiteInt8, {1, 1, 4, 3}, fb::Padding::SAME, 2, 2});
  ASSERT_TRUE(pairs.BuildAndInvoke<int8_t>({-1, -1, 1, -2, 0, 0, -128, 127, 5, -127, 127, -6}).ok());
  // -1.5 -> -2, -0.5 -> -1, 0.5 -> 1; -127.5 -> -128, 127, -0.5 -> -1.
  EXPECT_EQ(pairs.GetOutput<int8_t>(0), (std::vector<int8_t>{-2, -1, 1, -128, 127, -1}));
}

TEST(QuantizedPoolTest, AverageIgnoresOutputScaleButClampsToItsRelu) {
  OpTest test;
  // TFLite pools the stored values (single-pixel windows copy them here) without rescaling to the
  // output's scale 0.5; its zero point -10 only places the RELU bound.
  AddPool(test,
          {kTfLiteBuiltinAveragePool2d, kTfLiteInt8, {1, 2, 2, 1}, fb::Padding::VALID, 1, 1, Act::RELU, 0.5f, -10});
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({-20, -11, 3, 100}).ok());
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{-10, -10, 3, 100}));
}

TEST(QuantizedPoolTest, Int16MaxWithRelu6AndBatches) {
  OpTest test;
  // Scale 0.01: RELU6 clamps to [0, 600].
  AddPool(test, {kTfLiteBuiltinMaxPool2d, kTfLiteInt16, {2, 2, 2, 1}, fb::Padding::VALID, 1, 2, Act::RELU6, 0.01f, 0});
  ASSERT_TRUE(test.BuildAndInvoke<int16_t>({-5, 12, 300, 7, -32768, -1, -300, -2}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{2, 1, 1, 1}));
  EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{300, 0}));

  OpTest large;
  AddPool(large, {kTfLiteBuiltinMaxPool2d, kTfLiteInt16, {1, 2, 2, 1}, fb::Padding::VALID, 1, 2, Act::RELU6, 0.01f, 0});
  ASSERT_TRUE(large.BuildAndInvoke<int16_t>({32767, 5, 0, 0}).ok());
  EXPECT_EQ(large.GetOutput<int16_t>(0), (std::vector<int16_t>{600}));
}

TEST(QuantizedPoolTest, UInt8MaxSamePaddingSeesOnlyTheImage) {
  OpTest test;
  AddPool(test, {kTfLiteBuiltinMaxPool2d, kTfLiteUInt8, {1, 1, 3, 1}, fb::Padding::SAME, 1, 3});
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({4, 2, 8}).ok());
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{4, 8, 8}));
}

TEST(QuantizedPoolTest, EmptyBatch) {
  OpTest test;
  AddPool(test, {kTfLiteBuiltinAveragePool2d, kTfLiteInt8, {0, 4, 4, 3}, fb::Padding::VALID, 2, 2});
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{0, 2, 2, 3}));
}

TEST(QuantizedPoolTest, RefusesQuantizedL2PoolAndMixedTypes) {
  OpTest l2;
  AddPool(l2, {kTfLiteBuiltinL2Pool2d, kTfLiteInt8, {1, 2, 2, 1}, fb::Padding::VALID, 1, 2});
  EXPECT_FALSE(l2.Build().ok());
  OpTest mixed;
  AddPool(
      mixed,
      {kTfLiteBuiltinMaxPool2d, kTfLiteInt8, {1, 2, 2, 1}, fb::Padding::VALID, 1, 2, Act::NONE, 1.f, 0, kTfLiteUInt8});
  EXPECT_FALSE(mixed.Build().ok());
  // TFLite's pooling refuses int32 only when it runs.
  OpTest int32;
  AddPool(int32, {kTfLiteBuiltinAveragePool2d, kTfLiteInt32, {1, 2, 2, 1}, fb::Padding::VALID, 1, 2});
  ASSERT_TRUE(int32.Build().ok());
  EXPECT_FALSE(int32.Invoke().ok());
}

// ---- SOFTMAX

void AddSoftmax(OpTest& test, TfLiteType input_type, const std::vector<int>& shape, float input_scale,
                int64_t input_zero_point, TfLiteType output_type, float output_scale, int64_t output_zero_point,
                float beta = 1.f) {
  AddQuantizedUnaryOp(test, kTfLiteBuiltinSoftmax, shape, {input_type, input_scale, input_zero_point},
                      {output_type, output_scale, output_zero_point}, fb::BuiltinOptions::SoftmaxOptions,
                      fb::CreateSoftmaxOptions(test.fbb(), beta).Union());
}

// input_scale * beta = ln 3 makes a difference of one step a factor of 3 in probability: a pair one
// step apart is (0.75, 0.25).
constexpr float kLn3 = 1.0986123f;

TEST(QuantizedSoftmaxTest, UInt8RowsOfOddLength) {
  OpTest test;
  AddSoftmax(test, kTfLiteUInt8, {2, 3}, kLn3 / 2, 7, kTfLiteUInt8, 1.f / 256, 0, /*beta=*/2.f);
  // Row 0: one step apart, plus an element far below (exp(-ln3 * 200) is 0). Row 1: equal.
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({201, 200, 1, 9, 9, 9}).ok());
  // 0.75 * 256 = 192, 0.25 * 256 = 64; a third of 256 is 85.33 -> 85.
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{192, 64, 0, 85, 85, 85}));
}

TEST(QuantizedSoftmaxTest, Int8ToInt8AndInt16) {
  OpTest test;
  AddSoftmax(test, kTfLiteInt8, {1, 2}, kLn3, 3, kTfLiteInt8, 1.f / 256, -128);
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({-100, -101}).ok());
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{64, -64}));

  OpTest wide;
  AddSoftmax(wide, kTfLiteInt8, {1, 2}, kLn3, 3, kTfLiteInt16, 1.f / 32768, 0);
  ASSERT_TRUE(wide.BuildAndInvoke<int8_t>({127, 126}).ok());
  EXPECT_EQ(wide.GetOutput<int16_t>(0), (std::vector<int16_t>{24576, 8192}));
}

TEST(QuantizedSoftmaxTest, Int16EqualRowsAndDominantElement) {
  OpTest test;
  AddSoftmax(test, kTfLiteInt16, {2, 2}, 1.f / 1024, 0, kTfLiteInt16, 1.f / 32768, 0);
  // Row 0 equal; row 1 32 apart in real terms, beyond the exp table's [-10, 0].
  ASSERT_TRUE(test.BuildAndInvoke<int16_t>({500, 500, 16384, -16384}).ok());
  // The exp table's top segment runs from 32133 (exp(-10/512), nudged) to 32767, so a difference
  // of 0 reads 32133 + ((634 * 127 + 64) >> 7) = 32762; its bottom entry, exp(-10), is 2.
  // Row 0: sum 65524 has 16 leading zeros; normalized it reads 1/(1+x) = 16387 from its table,
  // and (32762 * 16387 + 2^14) >> 15 = 16384.
  // Row 1: sum 32764 has 17 leading zeros; 1/(1+x) = 16386, so (32762 * 16386 + 2^13) >> 14 =
  // 32766 and (2 * 16386 + 2^13) >> 14 = 2.
  EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{16384, 16384, 32766, 2}));
}

TEST(QuantizedSoftmaxTest, RefusesOutputFormats) {
  OpTest int8_zero_point;
  AddSoftmax(int8_zero_point, kTfLiteInt8, {1, 2}, 0.1f, 0, kTfLiteInt8, 1.f / 256, 0);
  EXPECT_FALSE(int8_zero_point.Build().ok());
  OpTest int16_scale;
  AddSoftmax(int16_scale, kTfLiteInt16, {1, 2}, 0.1f, 0, kTfLiteInt16, 1.f / 256, 0);
  EXPECT_FALSE(int16_scale.Build().ok());
  OpTest int8_to_uint8;
  AddSoftmax(int8_to_uint8, kTfLiteInt8, {1, 2}, 0.1f, 0, kTfLiteUInt8, 1.f / 256, 0);
  EXPECT_FALSE(int8_to_uint8.Build().ok());
  OpTest int16_rank5;
  AddSoftmax(int16_rank5, kTfLiteInt16, {1, 1, 1, 1, 2}, 0.1f, 0, kTfLiteInt16, 1.f / 32768, 0);
  EXPECT_FALSE(int16_rank5.Build().ok());
}

// ---- LOG_SOFTMAX

void AddLogSoftmax(OpTest& test, TfLiteType type, const std::vector<int>& shape, float input_scale, float output_scale,
                   int64_t output_zero_point) {
  AddQuantizedUnaryOp(test, kTfLiteBuiltinLogSoftmax, shape, {type, input_scale, 0},
                      {type, output_scale, output_zero_point}, fb::BuiltinOptions::LogSoftmaxOptions,
                      fb::CreateLogSoftmaxOptions(test.fbb()).Union());
}

TEST(QuantizedLogSoftmaxTest, UInt8AndInt8InSixteenthSteps) {
  OpTest test;
  AddLogSoftmax(test, kTfLiteUInt8, {2, 2}, 1.f, 16.f / 256, 255);
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({10, 10, 2, 0}).ok());
  // log(1/2) / (1/16) = -11.09 -> -11. Row 1: log(1 + e^-2) = 0.1269, so -0.1269 and -2.1269, in
  // sixteenths -2.03 -> -2 and -34.03 -> -34.
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{244, 244, 253, 221}));

  OpTest signed_test;
  AddLogSoftmax(signed_test, kTfLiteInt8, {1, 3}, 1.f, 16.f / 256, 127);
  // Far below the maximum the log-probability saturates at the type's minimum.
  ASSERT_TRUE(signed_test.BuildAndInvoke<int8_t>({-5, -5, -128}).ok());
  // log(1/2) -> -11; -123 - 0.69 in sixteenths is about -1979, clamped to -128.
  EXPECT_EQ(signed_test.GetOutput<int8_t>(0), (std::vector<int8_t>{116, 116, -128}));
}

TEST(QuantizedLogSoftmaxTest, RefusesOtherOutputFormats) {
  OpTest scale;
  AddLogSoftmax(scale, kTfLiteUInt8, {1, 2}, 1.f, 1.f / 256, 255);
  EXPECT_FALSE(scale.Build().ok());
  OpTest zero_point;
  AddLogSoftmax(zero_point, kTfLiteInt8, {1, 2}, 1.f, 16.f / 256, 0);
  EXPECT_FALSE(zero_point.Build().ok());
  // TFLite's LOG_SOFTMAX refuses int16 only when it runs.
  OpTest int16;
  AddLogSoftmax(int16, kTfLiteInt16, {1, 2}, 1.f, 16.f / 256, 0);
  ASSERT_TRUE(int16.Build().ok());
  EXPECT_FALSE(int16.Invoke().ok());
}

// ---- L2_NORMALIZATION

void AddL2Norm(OpTest& test, TfLiteType type, const std::vector<int>& shape, int64_t input_zero_point,
               float output_scale, int64_t output_zero_point) {
  AddQuantizedUnaryOp(test, kTfLiteBuiltinL2Normalization, shape, {type, 0.1f, input_zero_point},
                      {type, output_scale, output_zero_point}, fb::BuiltinOptions::L2NormOptions,
                      fb::CreateL2NormOptions(test.fbb()).Union());
}

TEST(QuantizedL2NormalizationTest, UInt8AroundZeroPoint) {
  OpTest test;
  AddL2Norm(test, kTfLiteUInt8, {2, 2}, 100, 1.f / 128, 128);
  // Row 0: (3, 4) from the zero point; row 1: all at the zero point.
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({103, 104, 100, 100}).ok());
  // 0.6 * 128 = 76.8 -> 77, 0.8 * 128 = 102.4 -> 102; a zero row stays at 128.
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{205, 230, 128, 128}));
}

TEST(QuantizedL2NormalizationTest, Int8SignsAndSaturation) {
  OpTest test;
  AddL2Norm(test, kTfLiteInt8, {1, 1, 1, 3}, -1, 1.f / 128, 0);
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({-4, 3, -1}).ok());
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{-77, 102, 0}));

  OpTest single;
  AddL2Norm(single, kTfLiteInt8, {1, 1}, 0, 1.f / 128, 0);
  ASSERT_TRUE(single.BuildAndInvoke<int8_t>({90}).ok());
  // 1.0 is 128 steps, one past the int8 maximum.
  EXPECT_EQ(single.GetOutput<int8_t>(0), (std::vector<int8_t>{127}));
}

TEST(QuantizedL2NormalizationTest, RefusesOtherOutputFormatsAndInt16) {
  OpTest uint8_zero_point;
  AddL2Norm(uint8_zero_point, kTfLiteUInt8, {1, 2}, 0, 1.f / 128, 0);
  EXPECT_FALSE(uint8_zero_point.Build().ok());
  OpTest int8_scale;
  AddL2Norm(int8_scale, kTfLiteInt8, {1, 2}, 0, 1.f / 256, 0);
  EXPECT_FALSE(int8_scale.Build().ok());
  OpTest int16;
  AddL2Norm(int16, kTfLiteInt16, {1, 2}, 0, 1.f / 128, 0);
  EXPECT_FALSE(int16.Build().ok());
}

// ---- LOCAL_RESPONSE_NORMALIZATION

TEST(QuantizedLocalResponseNormalizationTest, RefusesQuantizedInput) {
  OpTest test;
  AddQuantizedUnaryOp(test, kTfLiteBuiltinLocalResponseNormalization, {1, 1, 1, 3}, {kTfLiteInt8, 0.1f, 0},
                      {kTfLiteInt8, 0.1f, 0}, fb::BuiltinOptions::LocalResponseNormalizationOptions,
                      fb::CreateLocalResponseNormalizationOptions(test.fbb(), 1, 1.f, 1.f, 0.5f).Union());
  EXPECT_FALSE(test.Build().ok());
}

// ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR

void AddResize(OpTest& test, int builtin_code, TfLiteType type, const std::vector<int>& input_shape,
               const std::vector<int32_t>& size, bool align_corners, bool half_pixel_centers) {
  const int input = AddQuantizedInput(test, type, input_shape, 0.5f, 0);
  const int size_tensor = test.AddConst<int32_t>(kTfLiteInt32, {2}, size);
  const int output = AddQuantizedOutput(test, type, 0.5f, 0);
  resize_test::AddResizeOp(test, builtin_code, input, size_tensor, output, align_corners, half_pixel_centers);
}

TEST(QuantizedResizeBilinearTest, UInt8AddsAHalfAndTruncates) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, kTfLiteUInt8, {1, 2, 2, 1}, {3, 3}, true, false);
  ASSERT_TRUE(test.BuildAndInvoke<uint8_t>({0, 10, 20, 31}).ok());
  // Midpoints: 5, 10, 20.5 -> 21, 25.5 -> 26; the centre 15.25 -> 15.
  EXPECT_EQ(test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{0, 5, 10, 10, 15, 21, 20, 26, 31}));
}

TEST(QuantizedResizeBilinearTest, Int8RoundsHalvesAwayFromZero) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, kTfLiteInt8, {1, 2, 2, 1}, {3, 3}, true, false);
  ASSERT_TRUE(test.BuildAndInvoke<int8_t>({-10, 0, -21, 1}).ok());
  // -15.5 -> -16, the centre -7.5 -> -8, 0.5 -> 1.
  EXPECT_EQ(test.GetOutput<int8_t>(0), (std::vector<int8_t>{-10, -5, 0, -16, -8, 1, -21, -10, 1}));
}

TEST(QuantizedResizeBilinearTest, Int16HalfPixelCentersWithTwoChannels) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, kTfLiteInt16, {1, 1, 2, 2}, {1, 4}, false, true);
  ASSERT_TRUE(test.BuildAndInvoke<int16_t>({0, 1000, 100, -1000}).ok());
  // Source columns -0.25, 0.25, 0.75, 1.25 act as 0, 0.25, 0.75, 1.
  EXPECT_EQ(test.GetOutput<int16_t>(0), (std::vector<int16_t>{0, 1000, 25, 500, 75, -500, 100, -1000}));
}

TEST(QuantizedResizeBilinearTest, Int8RoundedUpScaleReadsPastTheRowAsTFLiteDoes) {
  OpTest test;
  AddResize(test, kTfLiteBuiltinResizeBilinear, kTfLiteInt8, {1, 2, 33, 1}, {2, 513}, false, false);
  ASSERT_TRUE(test.Build().ok());
  std::vector<int8_t> input(66);
  for (int i = 0; i < 33; ++i) {
    input[i] = static_cast<int8_t>(i);
    input[33 + i] = static_cast<int8_t>(-i - 1);
  }
  test.SetInput<int8_t>(0, input);
  ASSERT_TRUE(test.Invoke().ok());
  const std::vector<int8_t> output = test.GetOutput<int8_t>(0);
  ASSERT_EQ(output.size(), 2u * 513);
  // The width scale (1024 * 33 + 256) / 513 = 66 puts column 512 at 512 * 66 / 1024 = 33 exactly:
  // column "33" of row 0 is the first pixel of row 1. Column 511 (32.93) stays on pixel 32.
  EXPECT_EQ(output[511], 32);
  EXPECT_EQ(output[512], -1);
  // Past the last row the read would leave the tensor; it takes the last pixel instead.
  EXPECT_EQ(output[513 + 512], -33);
}

TEST(QuantizedResizeNearestNeighborTest, UInt8FixedPointPicksAnotherPixelThanFloat) {
  // 2 -> 82 columns: column 41's source is 41 * (2/82) = 0.99999994 in float (pixel 0), but
  // 41 * ((2 << 16) / 82 + 1) >> 16 = 1 in the uint8 kernel's 16.16 fixed point.
  OpTest uint8_test;
  AddResize(uint8_test, kTfLiteBuiltinResizeNearestNeighbor, kTfLiteUInt8, {1, 1, 2, 1}, {1, 82}, false, false);
  ASSERT_TRUE(uint8_test.BuildAndInvoke<uint8_t>({10, 20}).ok());
  const std::vector<uint8_t> unsigned_output = uint8_test.GetOutput<uint8_t>(0);
  ASSERT_EQ(unsigned_output.size(), 82u);
  EXPECT_EQ(unsigned_output[40], 10);
  EXPECT_EQ(unsigned_output[41], 20);
  EXPECT_EQ(unsigned_output[42], 20);

  OpTest int8_test;
  AddResize(int8_test, kTfLiteBuiltinResizeNearestNeighbor, kTfLiteInt8, {1, 1, 2, 1}, {1, 82}, false, false);
  ASSERT_TRUE(int8_test.BuildAndInvoke<int8_t>({10, 20}).ok());
  const std::vector<int8_t> signed_output = int8_test.GetOutput<int8_t>(0);
  EXPECT_EQ(signed_output[41], 10);
  EXPECT_EQ(signed_output[42], 20);
}

TEST(QuantizedResizeNearestNeighborTest, Int16AlignCornersRoundsAndUInt8HalfPixel) {
  OpTest int16_test;
  AddResize(int16_test, kTfLiteBuiltinResizeNearestNeighbor, kTfLiteInt16, {1, 1, 3, 1}, {1, 5}, true, false);
  ASSERT_TRUE(int16_test.BuildAndInvoke<int16_t>({-300, 7, 32767}).ok());
  // Sources 0, 0.5, 1, 1.5, 2 rounded (halves away from zero): 0, 1, 1, 2, 2.
  EXPECT_EQ(int16_test.GetOutput<int16_t>(0), (std::vector<int16_t>{-300, 7, 7, 32767, 32767}));

  OpTest uint8_test;
  AddResize(uint8_test, kTfLiteBuiltinResizeNearestNeighbor, kTfLiteUInt8, {1, 1, 2, 1}, {1, 3}, false, true);
  ASSERT_TRUE(uint8_test.BuildAndInvoke<uint8_t>({1, 2}).ok());
  // (x + 0.5) * 2/3 floored: 0, 1, 1.
  EXPECT_EQ(uint8_test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{1, 2, 2}));
}

TEST(QuantizedResizeTest, RefusesInt32AndMixedTypes) {
  // TFLite's RESIZE_BILINEAR refuses int32 only when it runs.
  OpTest bilinear;
  AddResize(bilinear, kTfLiteBuiltinResizeBilinear, kTfLiteInt32, {1, 2, 2, 1}, {3, 3}, false, false);
  ASSERT_TRUE(bilinear.Build().ok());
  EXPECT_FALSE(bilinear.Invoke().ok());

  OpTest mixed;
  const int input = AddQuantizedInput(mixed, kTfLiteInt8, {1, 2, 2, 1}, 0.5f, 0);
  const int size_tensor = mixed.AddConst<int32_t>(kTfLiteInt32, {2}, {3, 3});
  const int output = AddQuantizedOutput(mixed, kTfLiteUInt8, 0.5f, 0);
  mixed.AddOp(kTfLiteBuiltinResizeNearestNeighbor, {input, size_tensor}, {output},
              fb::BuiltinOptions::ResizeNearestNeighborOptions,
              fb::CreateResizeNearestNeighborOptions(mixed.fbb(), false, false).Union());
  EXPECT_FALSE(mixed.Build().ok());
}

}  // namespace
}  // namespace touchstone
