// Reference CONCATENATION, SPLIT and SPLIT_V kernels through the loader and interpreter; expected
// values by hand or naive loops.
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

// ---- CONCATENATION, SPLIT, SPLIT_V ------------------------------------------------------------

TEST(ConcatenationTest, InnerAxis) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2, 1});
  const int b = t.AddInput(kTfLiteFloat32, {2, 2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinConcatenation, {a, b}, {out}, fb::BuiltinOptions::ConcatenationOptions,
          fb::CreateConcatenationOptions(t.fbb(), -1).Union());
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2});
  t.SetInput<float>(1, {3, 4, 5, 6});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 3, 4, 2, 5, 6}));
}

TEST(ConcatenationTest, Uint8InputsAreRequantized) {
  OpTest t;
  const int a = t.AddInput(kTfLiteUInt8, {2});
  const int b = t.AddInput(kTfLiteUInt8, {1});
  const int out = t.AddOutput(kTfLiteUInt8);
  t.builder().SetQuantization(a, {0.5f}, {10});
  t.builder().SetQuantization(b, {1.0f}, {0});
  t.builder().SetQuantization(out, {1.0f}, {0});
  t.AddOp(kTfLiteBuiltinConcatenation, {a, b}, {out}, fb::BuiltinOptions::ConcatenationOptions,
          fb::CreateConcatenationOptions(t.fbb(), 0).Union());
  ASSERT_TRUE(t.Build().ok());
  // a: 0.5 * (13 - 10) = 1.5 -> rounds away from zero to 2; 0.5 * (0 - 10) = -5 -> clamped to 0.
  t.SetInput<uint8_t>(0, {13, 0});
  t.SetInput<uint8_t>(1, {200});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<uint8_t>(0), (std::vector<uint8_t>{2, 0, 200}));
}

// More than 256 values per input take the tabulated path: every byte value, twice, against the
// formula computed here (TFLite's ConcatenationWithScaling: round(q * s + b) + zp, saturated).
TEST(ConcatenationTest, LongUint8InputsAreRequantizedValueByValue) {
  OpTest t;
  const int a = t.AddInput(kTfLiteUInt8, {512});
  const int b = t.AddInput(kTfLiteUInt8, {300});
  const int out = t.AddOutput(kTfLiteUInt8);
  t.builder().SetQuantization(a, {0.37f}, {131});
  t.builder().SetQuantization(b, {0.05f}, {3});
  t.builder().SetQuantization(out, {0.11f}, {100});
  t.AddOp(kTfLiteBuiltinConcatenation, {a, b}, {out}, fb::BuiltinOptions::ConcatenationOptions,
          fb::CreateConcatenationOptions(t.fbb(), 0).Union());
  ASSERT_TRUE(t.Build().ok());
  std::vector<uint8_t> in_a(512), in_b(300);
  for (int i = 0; i < 512; ++i) in_a[i] = static_cast<uint8_t>((i * 7) % 256);
  for (int i = 0; i < 300; ++i) in_b[i] = static_cast<uint8_t>(255 - i % 256);
  t.SetInput<uint8_t>(0, in_a);
  t.SetInput<uint8_t>(1, in_b);
  ASSERT_TRUE(t.Invoke().ok());
  auto expected = [](uint8_t q, float in_scale, int zp) {
    const float scale = in_scale * (1.f / 0.11f);
    const float bias = -zp * scale;
    const int32_t v = static_cast<int32_t>(std::round(q * scale + bias)) + 100;
    return static_cast<uint8_t>(std::min(255, std::max(0, v)));
  };
  std::vector<uint8_t> want;
  for (uint8_t q : in_a) want.push_back(expected(q, 0.37f, 131));
  for (uint8_t q : in_b) want.push_back(expected(q, 0.05f, 3));
  EXPECT_EQ(t.GetOutput<uint8_t>(0), want);
}

TEST(SplitTest, EqualParts) {
  OpTest t;
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {}, {1});
  const int in = t.AddInput(kTfLiteFloat32, {2, 4});
  const int o0 = t.AddOutput(kTfLiteFloat32);
  const int o1 = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSplit, {axis, in}, {o0, o1}, fb::BuiltinOptions::SplitOptions,
          fb::CreateSplitOptions(t.fbb(), 2).Union());
  ASSERT_TRUE(t.BuildAndInvoke<float>(Iota(8)).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 1, 4, 5}));
  EXPECT_EQ(t.GetOutput<float>(1), (std::vector<float>{2, 3, 6, 7}));
}

TEST(SplitVTest, InferredSize) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 5});
  const int sizes = t.AddConst<int32_t>(kTfLiteInt32, {3}, {1, -1, 2});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {}, {-1});
  const int o0 = t.AddOutput(kTfLiteInt32);
  const int o1 = t.AddOutput(kTfLiteInt32);
  const int o2 = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinSplitV, {in, sizes, axis}, {o0, o1, o2}, fb::BuiltinOptions::SplitVOptions,
          fb::CreateSplitVOptions(t.fbb(), 3).Union());
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{0, 5}));
  EXPECT_EQ(t.GetOutputShape(1), (std::vector<int>{2, 2}));
  EXPECT_EQ(t.GetOutput<int32_t>(1), (std::vector<int32_t>{1, 2, 6, 7}));
  EXPECT_EQ(t.GetOutput<int32_t>(2), (std::vector<int32_t>{3, 4, 8, 9}));
}

}  // namespace
}  // namespace touchstone
