// Reference FILL, ZEROS_LIKE, ONES_LIKE, RANGE and BROADCAST_TO kernels through the loader and
// interpreter; expected values by hand or naive loops.
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

// ---- FILL, ZEROS_LIKE, ONES_LIKE, RANGE -------------------------------------------------------

TEST(FillTest, ConstantAndRunTimeDims) {
  {
    OpTest t;
    const int dims = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 3});
    const int value = t.AddInput(kTfLiteFloat32, {});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinFill, {dims, value}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<float>({7.5f}).ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
    EXPECT_EQ(t.GetOutput<float>(0), std::vector<float>(6, 7.5f));
  }
  {
    OpTest t;
    const int dims = t.AddInput(kTfLiteInt64, {1});
    const int value = t.AddConst<int32_t>(kTfLiteInt32, {}, {-4});
    const int out = t.AddOutput(kTfLiteInt32);
    t.AddOp(kTfLiteBuiltinFill, {dims, value}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<int64_t>({4}).ok());
    EXPECT_EQ(t.GetOutput<int32_t>(0), std::vector<int32_t>(4, -4));
  }
}

// ONES_LIKE has no TFLite builtin code, so no model can reach it; only ZEROS_LIKE is tested here.
TEST(ZerosLikeTest, Float) {
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {2});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinZerosLike, {in}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<float>({3, 4}).ok());
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 0}));
  }
}

TEST(RangeTest, IntFloatAndNegativeDelta) {
  {
    OpTest t;
    const int start = t.AddConst<int32_t>(kTfLiteInt32, {}, {0});
    const int limit = t.AddConst<int32_t>(kTfLiteInt32, {}, {10});
    const int delta = t.AddConst<int32_t>(kTfLiteInt32, {}, {3});
    const int out = t.AddOutput(kTfLiteInt32);
    t.AddOp(kTfLiteBuiltinRange, {start, limit, delta}, {out});
    ASSERT_TRUE(t.Build().ok());
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{0, 3, 6, 9}));
  }
  {
    OpTest t;
    const int start = t.AddInput(kTfLiteFloat32, {});
    const int limit = t.AddConst<float>(kTfLiteFloat32, {}, {2.f});
    const int delta = t.AddConst<float>(kTfLiteFloat32, {}, {0.25f});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinRange, {start, limit, delta}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<float>({1.f}).ok());
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1.f, 1.25f, 1.5f, 1.75f}));
  }
  {
    OpTest t;
    const int start = t.AddConst<int64_t>(kTfLiteInt64, {}, {5});
    const int limit = t.AddConst<int64_t>(kTfLiteInt64, {}, {1});
    const int delta = t.AddConst<int64_t>(kTfLiteInt64, {}, {-2});
    const int out = t.AddOutput(kTfLiteInt64);
    t.AddOp(kTfLiteBuiltinRange, {start, limit, delta}, {out});
    ASSERT_TRUE(t.Build().ok());
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutput<int64_t>(0), (std::vector<int64_t>{5, 3}));
  }
}

// ---- BROADCAST_TO -----------------------------------------------------------------------------

TEST(BroadcastToTest, AddsAndStretchesDims) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {3, 1});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {3}, {2, 3, 2});
  const int out = t.AddOutput(kTfLiteFloat32);
  // TFLite registers BROADCAST_TO from version 2 (version 1 is refused at load).
  t.AddOp(kTfLiteBuiltinBroadcastTo, {in, shape}, {out}, fb::BuiltinOptions::NONE, 0, 2);
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

}  // namespace
}  // namespace touchstone
