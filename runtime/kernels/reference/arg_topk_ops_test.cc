// Reference ARG_MAX, ARG_MIN and TOPK_V2 kernels through the loader and interpreter; expected
// values by hand or naive loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;

// ---- ARG_MAX, ARG_MIN, TOPK_V2 ----------------------------------------------------------------

TEST(ArgMaxTest, FirstIndexWinsTies) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {1}, {1});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinArgMax, {in, axis}, {out}, fb::BuiltinOptions::ArgMaxOptions,
          fb::CreateArgMaxOptions(t.fbb(), fb::TensorType::INT32).Union());
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 7, 7, 3, 2, 1}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2}));
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 0}));
}

TEST(ArgMinTest, Int64OutputAlongAxisZero) {
  OpTest t;
  const int in = t.AddInput(kTfLiteUInt8, {2, 3});
  const int axis = t.AddConst<int64_t>(kTfLiteInt64, {}, {0});
  const int out = t.AddOutput(kTfLiteInt64);
  t.AddOp(kTfLiteBuiltinArgMin, {in, axis}, {out}, fb::BuiltinOptions::ArgMinOptions,
          fb::CreateArgMinOptions(t.fbb(), fb::TensorType::INT64).Union());
  ASSERT_TRUE(t.BuildAndInvoke<uint8_t>({5, 1, 3, 4, 1, 9}).ok());
  EXPECT_EQ(t.GetOutput<int64_t>(0), (std::vector<int64_t>{1, 0, 0}));
}

TEST(TopKV2Test, DescendingWithTiesByLowerIndex) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 6});
  const int k = t.AddConst<int32_t>(kTfLiteInt32, {}, {3});
  const int values = t.AddOutput(kTfLiteFloat32);
  const int indices = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinTopkV2, {in, k}, {values, indices});
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 5, 3, 5, 2, 0, -1, -1, -1, -2, -1, -3}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{5, 5, 3, -1, -1, -1}));
  EXPECT_EQ(t.GetOutput<int32_t>(1), (std::vector<int32_t>{1, 3, 2, 0, 1, 2}));
}

// Small k takes a one-pass selection, larger k a partial sort: both must give the stable sort's
// first k, ties included (values drawn from a few levels so that ties are common).
TEST(TopKV2Test, EveryKMatchesStableSortWithTies) {
  const int row_size = 40;
  std::vector<float> row(row_size);
  for (int i = 0; i < row_size; ++i) row[i] = static_cast<float>((i * 7919) % 9) - 4.0f;
  std::vector<int> sorted(row_size);
  for (int i = 0; i < row_size; ++i) sorted[i] = i;
  std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) { return row[a] > row[b]; });
  for (int kk : {1, 2, 5, 15, 16, 17, 40}) {
    SCOPED_TRACE(kk);
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {1, row_size});
    const int k = t.AddConst<int32_t>(kTfLiteInt32, {}, {kk});
    const int values = t.AddOutput(kTfLiteFloat32);
    const int indices = t.AddOutput(kTfLiteInt32);
    t.AddOp(kTfLiteBuiltinTopkV2, {in, k}, {values, indices});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, row);
    ASSERT_TRUE(t.Invoke().ok());
    std::vector<float> want_values;
    std::vector<int32_t> want_indices;
    for (int i = 0; i < kk; ++i) {
      want_values.push_back(row[sorted[i]]);
      want_indices.push_back(sorted[i]);
    }
    EXPECT_EQ(t.GetOutput<float>(0), want_values);
    EXPECT_EQ(t.GetOutput<int32_t>(1), want_indices);
  }
}

// A row with a NaN (among the first k, or later) takes the stable sort (TFLite's order for it), the
// rows around it the one-pass selection: each row's result is its own.
TEST(TopKV2Test, RowsWithNaNTakeTheStableSort) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> input = {3, 1, 5, 1, 5, 2, /**/ 3, nan, 5, 1, 5, 2, /**/ 5, 1, 2, nan, 3, 0, /**/ 2, 7, 0, 4, 4, 9};
  const int row_size = 6, kk = 3;
  std::vector<float> want_values;
  std::vector<int32_t> want_indices;
  for (int r = 0; r < 4; ++r) {
    const float* row = input.data() + r * row_size;
    std::vector<int> sorted(row_size);
    for (int i = 0; i < row_size; ++i) sorted[i] = i;
    std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) { return row[a] > row[b]; });
    for (int i = 0; i < kk; ++i) {
      want_values.push_back(row[sorted[i]]);
      want_indices.push_back(sorted[i]);
    }
  }
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {4, row_size});
  const int k = t.AddConst<int32_t>(kTfLiteInt32, {}, {kk});
  const int values = t.AddOutput(kTfLiteFloat32);
  const int indices = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinTopkV2, {in, k}, {values, indices});
  ASSERT_TRUE(t.BuildAndInvoke<float>(input).ok());
  const std::vector<float> got = t.GetOutput<float>(0);
  ASSERT_EQ(got.size(), want_values.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(got[i] == want_values[i] || (std::isnan(got[i]) && std::isnan(want_values[i]))) << i;
  }
  EXPECT_EQ(t.GetOutput<int32_t>(1), want_indices);
}

}  // namespace
}  // namespace touchstone
