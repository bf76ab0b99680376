// Reference reduction and CUMSUM kernels through the loader and interpreter; expected values by
// hand or naive loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/kernels/reference/shape_ops_test_util.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using shape_ops_test::Iota;
using testing::OpTest;

// ---- Reductions -------------------------------------------------------------------------------

template <typename T>
std::vector<T> RunReduce(int code, TfLiteType type, const std::vector<int>& shape, const std::vector<T>& data,
                         const std::vector<int32_t>& axes, bool keep_dims, std::vector<int>* out_shape) {
  OpTest t;
  const int in = t.AddInput(type, shape);
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {static_cast<int>(axes.size())}, axes);
  const int out = t.AddOutput(type);
  t.AddOp(code, {in, axis}, {out}, fb::BuiltinOptions::ReducerOptions,
          fb::CreateReducerOptions(t.fbb(), keep_dims).Union());
  if (!t.Build().ok()) return {};
  if (!data.empty()) t.SetInput<T>(0, data);  // an empty input has no buffer to fill
  if (!t.Invoke().ok()) return {};
  *out_shape = t.GetOutputShape(0);
  return t.GetOutput<T>(0);
}

TEST(ReduceTest, MeanFloat) {
  std::vector<int> shape;
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {2, 3}, {1, 2, 3, 4, 5, 6}, {1}, false, &shape),
            (std::vector<float>{2, 5}));
  EXPECT_EQ(shape, (std::vector<int>{2}));
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {2, 3}, {1, 2, 3, 4, 5, 6}, {0, -1}, true, &shape),
            (std::vector<float>{3.5f}));
  EXPECT_EQ(shape, (std::vector<int>{1, 1}));
  // Global average pooling of NHWC over H and W, keep_dims.
  std::vector<float> data = Iota(2 * 2 * 3, 1.f);
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {1, 2, 2, 3}, data, {1, 2}, true, &shape),
            (std::vector<float>{5.5f, 6.5f, 7.5f}));
  EXPECT_EQ(shape, (std::vector<int>{1, 1, 1, 3}));
}

// The float mean is a float sum in input order divided by the count: 1e8 + 1 + 1 + ... in float
// loses each 1, and the result shows it.
TEST(ReduceTest, MeanFloatAccumulatesInFloat) {
  std::vector<int> shape;
  const std::vector<float> data = {1e8f, 1.f, 1.f, 1.f};
  float sum = 0.f;
  for (float v : data) sum += v;
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {4}, data, {0}, false, &shape),
            (std::vector<float>{sum / 4.f}));
}

TEST(ReduceTest, MeanEmptyIsNaN) {
  std::vector<int> shape;
  const std::vector<float> out = RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {0, 2}, {}, {0}, false, &shape);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(shape, (std::vector<int>{2}));
}

TEST(ReduceTest, MeanInt32TruncatesTowardZero) {
  std::vector<int> shape;
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinMean, kTfLiteInt32, {2, 2}, {1, 2, -1, -2}, {1}, false, &shape),
            (std::vector<int32_t>{1, -1}));
}

TEST(ReduceTest, MeanInt8SpatialRoundsInFixedPoint) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt8, {1, 2, 2, 1});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {2}, {1, 2});
  const int out = t.AddOutput(kTfLiteInt8);
  t.builder().SetQuantization(in, {1.f}, {0});
  t.builder().SetQuantization(out, {1.f}, {0});
  t.AddOp(kTfLiteBuiltinMean, {in, axis}, {out}, fb::BuiltinOptions::ReducerOptions,
          fb::CreateReducerOptions(t.fbb(), true).Union());
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int8_t>(0, {1, 2, 3, 4});  // mean 2.5: the fixed-point rescale rounds half up -> 3
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{3}));
  t.SetInput<int8_t>(0, {-1, -2, -3, -4});  // -2.5 rounds away from zero -> -3
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{-3}));
}

// Outside the NHWC height/width case TFLite folds 1/n into the fixed-point multiplier
// (reference QuantizedMeanOrSum): 163 / 7 = 23.29 comes out as 24, as TFLite 2.14.1's own output
// for the op suite's MEAN/int8_axis_last_same_q shows.
TEST(ReduceTest, MeanInt8AlongLastAxisFoldsCountIntoMultiplier) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt8, {1, 7});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {1}, {-1});
  const int out = t.AddOutput(kTfLiteInt8);
  t.builder().SetQuantization(in, {1.f}, {0});
  t.builder().SetQuantization(out, {1.f}, {0});
  t.AddOp(kTfLiteBuiltinMean, {in, axis}, {out}, fb::BuiltinOptions::ReducerOptions,
          fb::CreateReducerOptions(t.fbb(), false).Union());
  ASSERT_TRUE(t.BuildAndInvoke<int8_t>({23, 23, 23, 23, 23, 23, 25}).ok());
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{24}));
}

// SUM of 8-bit values subtracts the zero point once per element and saturates.
TEST(ReduceTest, SumInt8SubtractsZeroPointsAndSaturates) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt8, {2, 2});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {1}, {1});
  const int out = t.AddOutput(kTfLiteInt8);
  t.builder().SetQuantization(in, {1.f}, {5});
  t.builder().SetQuantization(out, {1.f}, {5});
  t.AddOp(kTfLiteBuiltinSum, {in, axis}, {out}, fb::BuiltinOptions::ReducerOptions,
          fb::CreateReducerOptions(t.fbb(), false).Union());
  // Row 0: (10 - 5) + (20 - 5) = 20 real -> 25 quantized; row 1: 190 real -> saturates at 127.
  ASSERT_TRUE(t.BuildAndInvoke<int8_t>({10, 20, 100, 100}).ok());
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{25, 127}));
}

TEST(ReduceTest, SumProdMaxMin) {
  std::vector<int> shape;
  const std::vector<float> data = {1, -2, 3, 4, 5, -6};
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinSum, kTfLiteFloat32, {2, 3}, data, {0}, false, &shape),
            (std::vector<float>{5, 3, -3}));
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinReduceProd, kTfLiteFloat32, {2, 3}, data, {1}, true, &shape),
            (std::vector<float>{-6, -120}));
  EXPECT_EQ(shape, (std::vector<int>{2, 1}));
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinReduceMax, kTfLiteFloat32, {2, 3}, data, {1, 1}, false, &shape),
            (std::vector<float>{3, 5}));
  EXPECT_EQ(
      RunReduce<int32_t>(kTfLiteBuiltinReduceMin, kTfLiteInt32, {2, 3}, {1, -2, 3, 4, 5, -6}, {0, 1}, false, &shape),
      (std::vector<int32_t>{-6}));
  EXPECT_TRUE(shape.empty());
}

// A kept last axis of 16 channels or more folds in blocks (FoldInto): sums, products, maxima and
// minima over H and W of a 2x3x37 input (two full blocks and 5 channels more) against a plain loop.
TEST(ReduceTest, KeptChannelsInBlocks) {
  const int pixels = 2 * 3, channels = 37;
  std::vector<int32_t> data(pixels * channels);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int32_t>((i * 7919) % 23) - 11;
  std::vector<int32_t> sum(channels, 0), prod(channels, 1), max(channels, INT32_MIN), min(channels, INT32_MAX);
  for (int p = 0; p < pixels; ++p) {
    for (int c = 0; c < channels; ++c) {
      const int32_t v = data[p * channels + c];
      sum[c] += v;
      prod[c] *= v;
      max[c] = std::max(max[c], v);
      min[c] = std::min(min[c], v);
    }
  }
  std::vector<int> shape;
  const std::vector<int> in_shape = {1, 2, 3, channels};
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinSum, kTfLiteInt32, in_shape, data, {1, 2}, true, &shape), sum);
  EXPECT_EQ(shape, (std::vector<int>{1, 1, 1, channels}));
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinReduceProd, kTfLiteInt32, in_shape, data, {1, 2}, false, &shape), prod);
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinReduceMax, kTfLiteInt32, in_shape, data, {2, 1}, false, &shape), max);
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinReduceMin, kTfLiteInt32, in_shape, data, {1, 2}, true, &shape), min);
}

TEST(ReduceTest, AnyOverBools) {
  OpTest t;
  const int in = t.AddInput(kTfLiteBool, {2, 2});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {1}, {1});
  const int out = t.AddOutput(kTfLiteBool);
  t.AddOp(kTfLiteBuiltinReduceAny, {in, axis}, {out}, fb::BuiltinOptions::ReducerOptions,
          fb::CreateReducerOptions(t.fbb(), false).Union());
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<uint8_t>(0, {0, 1, 0, 0});  // bools, one byte each
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<bool>(0), (std::vector<bool>{true, false}));
}

TEST(ReduceTest, RefusesOutOfRangeAxis) {
  std::vector<int> shape;
  EXPECT_TRUE(RunReduce<float>(kTfLiteBuiltinSum, kTfLiteFloat32, {2, 3}, Iota(6), {2}, false, &shape).empty());
}

// ---- CUMSUM -----------------------------------------------------------------------------------

TEST(CumsumTest, ExclusiveAndReverse) {
  const std::vector<float> data = {1, 2, 3, 4};
  for (bool reverse : {false, true}) {
    for (bool exclusive : {false, true}) {
      OpTest t;
      const int in = t.AddInput(kTfLiteFloat32, {2, 2});
      const int axis = t.AddConst<int32_t>(kTfLiteInt32, {}, {0});
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinCumsum, {in, axis}, {out}, fb::BuiltinOptions::CumsumOptions,
              fb::CreateCumsumOptions(t.fbb(), exclusive, reverse).Union());
      // Rows [1, 2] and [3, 4], summed down each column.
      ASSERT_TRUE(t.BuildAndInvoke<float>(data).ok());
      const std::vector<float> got = t.GetOutput<float>(0);
      std::vector<float> want(4);
      for (int col = 0; col < 2; ++col) {
        const float a = data[col], b = data[2 + col];
        float first, second;
        if (!reverse) {
          first = exclusive ? 0 : a;
          second = exclusive ? a : a + b;
        } else {
          first = exclusive ? b : a + b;
          second = exclusive ? 0 : b;
        }
        want[col] = first;
        want[2 + col] = second;
      }
      EXPECT_EQ(got, want) << "reverse=" << reverse << " exclusive=" << exclusive;
    }
  }
}

}  // namespace
}  // namespace touchstone
