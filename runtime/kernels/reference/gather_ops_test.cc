// Reference GATHER and GATHER_ND kernels through the loader and interpreter; expected values by
// hand or naive loops.
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

// ---- GATHER, GATHER_ND ------------------------------------------------------------------------

TEST(GatherTest, AxisZeroAndOne) {
  {
    OpTest t;
    const int params = t.AddInput(kTfLiteFloat32, {3, 2});
    const int idx = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 0});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinGather, {params, idx}, {out}, fb::BuiltinOptions::GatherOptions,
            fb::CreateGatherOptions(t.fbb(), 0).Union());
    ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4, 5, 6}).ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2}));
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{5, 6, 1, 2}));
  }
  {
    OpTest t;
    const int params = t.AddInput(kTfLiteFloat32, {2, 3});
    const int idx = t.AddConst<int64_t>(kTfLiteInt64, {2, 2}, {2, 1, 0, 2});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinGather, {params, idx}, {out}, fb::BuiltinOptions::GatherOptions,
            fb::CreateGatherOptions(t.fbb(), -1).Union());
    ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4, 5, 6}).ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2, 2}));
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{3, 2, 1, 3, 6, 5, 4, 6}));
  }
}

// As in dynamic_shapes.bin: a scalar index removes the gathered dimension.
TEST(GatherTest, ScalarIndex) {
  OpTest t;
  const int params = t.AddInput(kTfLiteInt32, {2, 1});
  const int idx = t.AddConst<int32_t>(kTfLiteInt32, {}, {1});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinGather, {params, idx}, {out}, fb::BuiltinOptions::GatherOptions,
          fb::CreateGatherOptions(t.fbb(), 0).Union());
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({7, 9}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{1}));
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{9}));
}

TEST(GatherTest, BatchDims) {
  OpTest t;
  const int params = t.AddInput(kTfLiteInt32, {2, 3});
  const int idx = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {2, 0, 1, 1});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinGather, {params, idx}, {out}, fb::BuiltinOptions::GatherOptions,
          fb::CreateGatherOptions(t.fbb(), 1, 1).Union());
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({10, 11, 12, 20, 21, 22}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{12, 10, 21, 21}));
}

TEST(GatherTest, OutOfRangeIndexFailsInvoke) {
  OpTest t;
  const int params = t.AddInput(kTfLiteFloat32, {3});
  const int idx = t.AddInput(kTfLiteInt32, {1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinGather, {params, idx}, {out}, fb::BuiltinOptions::GatherOptions,
          fb::CreateGatherOptions(t.fbb(), 0).Union());
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(1, {3});
  EXPECT_FALSE(t.Invoke().ok());
}

TEST(GatherNdTest, ElementsAndSlices) {
  {
    OpTest t;
    const int params = t.AddInput(kTfLiteFloat32, {2, 2});
    const int idx = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {1, 0, 0, 1});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinGatherNd, {params, idx}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4}).ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2}));
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{3, 2}));
  }
  {
    OpTest t;
    const int params = t.AddInput(kTfLiteFloat32, {2, 2});
    const int idx = t.AddConst<int32_t>(kTfLiteInt32, {1, 1}, {1});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinGatherNd, {params, idx}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4}).ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{1, 2}));
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{3, 4}));
  }
}

}  // namespace
}  // namespace touchstone
