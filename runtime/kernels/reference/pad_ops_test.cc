// Reference PAD, PADV2 and MIRROR_PAD kernels through the loader and interpreter; expected values
// by hand or naive loops.
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

// ---- PAD, PADV2, MIRROR_PAD -------------------------------------------------------------------

TEST(PadTest, FloatZerosAndInt8ZeroPoint) {
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {2, 2});
    const int pads = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {1, 0, 0, 2});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinPad, {in, pads}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4}).ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 4}));
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
  }
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteInt8, {2});
    const int pads = t.AddConst<int64_t>(kTfLiteInt64, {1, 2}, {1, 1});
    const int out = t.AddOutput(kTfLiteInt8);
    t.builder().SetQuantization(in, {0.1f}, {-3});
    t.builder().SetQuantization(out, {0.1f}, {-3});
    t.AddOp(kTfLiteBuiltinPad, {in, pads}, {out});
    ASSERT_TRUE(t.BuildAndInvoke<int8_t>({5, 6}).ok());
    EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{-3, 5, 6, -3}));
  }
}

TEST(PadV2Test, ConstantValue) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {1, 2});
  const int pads = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {0, 1, 1, 0});
  const int value = t.AddConst<float>(kTfLiteFloat32, {}, {9.f});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinPadv2, {in, pads, value}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{9, 1, 2, 9, 9, 9}));
}

std::vector<float> RunMirrorPad(fb::MirrorPadMode mode, const std::vector<int>& shape, const std::vector<int32_t>& pads,
                                std::vector<int>* out_shape, bool* ok = nullptr) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, shape);
  const int p = t.AddConst<int32_t>(kTfLiteInt32, {static_cast<int>(shape.size()), 2}, pads);
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinMirrorPad, {in, p}, {out}, fb::BuiltinOptions::MirrorPadOptions,
          fb::CreateMirrorPadOptions(t.fbb(), mode).Union());
  const bool built = t.Build().ok();
  if (ok != nullptr) *ok = built;
  if (!built) return {};
  int n = 1;
  for (int d : shape) n *= d;
  t.SetInput<float>(0, Iota(n, 1.f));
  if (!t.Invoke().ok()) return {};
  *out_shape = t.GetOutputShape(0);
  return t.GetOutput<float>(0);
}

TEST(MirrorPadTest, ReflectAndSymmetric) {
  std::vector<int> shape;
  EXPECT_EQ(RunMirrorPad(fb::MirrorPadMode::REFLECT, {3}, {2, 2}, &shape), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(RunMirrorPad(fb::MirrorPadMode::SYMMETRIC, {3}, {2, 3}, &shape),
            (std::vector<float>{2, 1, 1, 2, 3, 3, 2, 1}));
  // 2-D reflect, as simple_mirror_pad_reflect_op (which pads H and W of NHWC by 3).
  EXPECT_EQ(RunMirrorPad(fb::MirrorPadMode::REFLECT, {2, 3}, {1, 1, 1, 0}, &shape),
            (std::vector<float>{5, 4, 5, 6, 2, 1, 2, 3, 5, 4, 5, 6, 2, 1, 2, 3}));
  EXPECT_EQ(shape, (std::vector<int>{4, 4}));
}

TEST(MirrorPadTest, RefusesPaddingLargerThanTheMirror) {
  std::vector<int> shape;
  bool ok = true;
  RunMirrorPad(fb::MirrorPadMode::REFLECT, {3}, {3, 0}, &shape, &ok);
  EXPECT_FALSE(ok);
  RunMirrorPad(fb::MirrorPadMode::SYMMETRIC, {3}, {3, 0}, &shape, &ok);
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace touchstone
