// Reference TILE, TRANSPOSE, PACK, UNPACK, DEPTH_TO_SPACE and REVERSE_V2 kernels through the loader
// and interpreter; expected values by hand or naive loops.
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

// ---- TILE, TRANSPOSE, REVERSE_V2 --------------------------------------------------------------

TEST(TileTest, RepeatsEachDimension) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 2});
  const int multiples = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 3});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinTile, {in, multiples}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({1, 2, 3, 4}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4, 6}));
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,  //
                                                           1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
}

TEST(TileTest, RunTimeMultiplesInt64) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {1, 2});
  const int multiples = t.AddInput(kTfLiteInt64, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinTile, {in, multiples}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1.f, 2.f});
  t.SetInput<int64_t>(1, {3, 1});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 2, 1, 2, 1, 2}));
}

TEST(TransposeTest, TwoDims) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int perm = t.AddConst<int32_t>(kTfLiteInt32, {2}, {1, 0});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinTranspose, {in, perm}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4, 5, 6}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

// Five dimensions as in torchaudio_conformer ([1,335,10,3,80] with perm [3,1,2,0,4]), smaller.
TEST(TransposeTest, FiveDimsMatchesNaiveLoop) {
  const std::vector<int> shape = {1, 4, 2, 3, 5};
  const std::vector<int> perm = {3, 1, 2, 0, 4};
  OpTest t;
  const int in = t.AddInput(kTfLiteInt16, shape);
  const int p = t.AddConst<int32_t>(kTfLiteInt32, {5}, perm);
  const int out = t.AddOutput(kTfLiteInt16);
  t.AddOp(kTfLiteBuiltinTranspose, {in, p}, {out});
  ASSERT_TRUE(t.Build().ok());
  std::vector<int16_t> data(120);
  for (int i = 0; i < 120; ++i) data[i] = static_cast<int16_t>(i * 7 - 300);
  t.SetInput<int16_t>(0, data);
  ASSERT_TRUE(t.Invoke().ok());
  std::vector<int> out_shape(5);
  for (int i = 0; i < 5; ++i) out_shape[i] = shape[perm[i]];
  EXPECT_EQ(t.GetOutputShape(0), out_shape);
  std::vector<int16_t> expected;
  int o[5];
  for (o[0] = 0; o[0] < out_shape[0]; ++o[0])
    for (o[1] = 0; o[1] < out_shape[1]; ++o[1])
      for (o[2] = 0; o[2] < out_shape[2]; ++o[2])
        for (o[3] = 0; o[3] < out_shape[3]; ++o[3])
          for (o[4] = 0; o[4] < out_shape[4]; ++o[4]) {
            int idx[5];
            for (int d = 0; d < 5; ++d) idx[perm[d]] = o[d];
            int flat = 0;
            for (int d = 0; d < 5; ++d) flat = flat * shape[d] + idx[d];
            expected.push_back(data[flat]);
          }
  EXPECT_EQ(t.GetOutput<int16_t>(0), expected);
}

TEST(TransposeTest, RefusesBadPermutation) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int perm = t.AddConst<int32_t>(kTfLiteInt32, {2}, {1, 1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinTranspose, {in, perm}, {out});
  EXPECT_FALSE(t.Build().ok());
}

TEST(ReverseV2Test, ReversesListedAxis) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 3});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {1}, {-1});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReverseV2, {in, axis}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({1, 2, 3, 4, 5, 6}).ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{3, 2, 1, 6, 5, 4}));
}

// Several axes: TFLite 2.14.1 reverses along the first listed one only, and a warning says so.
TEST(ReverseV2Test, SeveralAxesReverseTheFirstOnlyAsTflite) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 3});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {2}, {1, 0});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReverseV2, {in, axis}, {out});
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(t.Build().ok());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("WARNING: REVERSE_V2 over 2 axes"), std::string::npos);
  t.SetInput<int32_t>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{3, 2, 1, 6, 5, 4}));
}

// ---- PACK, UNPACK -----------------------------------------------------------------------------

TEST(PackTest, AxisZeroAndLast) {
  for (int axis : {0, -1}) {
    OpTest t;
    const int a = t.AddInput(kTfLiteInt32, {2});
    const int b = t.AddInput(kTfLiteInt32, {2});
    const int c = t.AddInput(kTfLiteInt32, {2});
    const int out = t.AddOutput(kTfLiteInt32);
    t.AddOp(kTfLiteBuiltinPack, {a, b, c}, {out}, fb::BuiltinOptions::PackOptions,
            fb::CreatePackOptions(t.fbb(), 3, axis).Union());
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<int32_t>(0, {1, 2});
    t.SetInput<int32_t>(1, {3, 4});
    t.SetInput<int32_t>(2, {5, 6});
    ASSERT_TRUE(t.Invoke().ok());
    if (axis == 0) {
      EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
      EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
    } else {
      EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
      EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 3, 5, 2, 4, 6}));
    }
  }
}

TEST(UnpackTest, AlongAxisOne) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int o0 = t.AddOutput(kTfLiteFloat32);
  const int o1 = t.AddOutput(kTfLiteFloat32);
  const int o2 = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinUnpack, {in}, {o0, o1, o2}, fb::BuiltinOptions::UnpackOptions,
          fb::CreateUnpackOptions(t.fbb(), 3, 1).Union());
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4, 5, 6}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 4}));
  EXPECT_EQ(t.GetOutput<float>(1), (std::vector<float>{2, 5}));
  EXPECT_EQ(t.GetOutput<float>(2), (std::vector<float>{3, 6}));
}

// ---- DEPTH_TO_SPACE, SPACE_TO_DEPTH -----------------------------------------------------------

TEST(DepthToSpaceTest, MatchesNaiveLoopAndRoundTrips) {
  const int bs = 2, h = 2, w = 3, depth = 8;
  const int out_depth = depth / (bs * bs);
  std::vector<float> data = Iota(h * w * depth);
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {1, h, w, depth});
  const int mid = t.AddOutput(kTfLiteFloat32);
  const int back = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinDepthToSpace, {in}, {mid}, fb::BuiltinOptions::DepthToSpaceOptions,
          fb::CreateDepthToSpaceOptions(t.fbb(), bs).Union());
  t.AddOp(kTfLiteBuiltinSpaceToDepth, {mid}, {back}, fb::BuiltinOptions::SpaceToDepthOptions,
          fb::CreateSpaceToDepthOptions(t.fbb(), bs).Union());
  ASSERT_TRUE(t.BuildAndInvoke<float>(data).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{1, h * bs, w * bs, out_depth}));
  std::vector<float> expected;
  for (int oy = 0; oy < h * bs; ++oy) {
    for (int ox = 0; ox < w * bs; ++ox) {
      for (int od = 0; od < out_depth; ++od) {
        const int id = od + ((oy % bs) * bs + ox % bs) * out_depth;
        expected.push_back(data[((oy / bs) * w + ox / bs) * depth + id]);
      }
    }
  }
  EXPECT_EQ(t.GetOutput<float>(0), expected);
  EXPECT_EQ(t.GetOutput<float>(1), data);
}

}  // namespace
}  // namespace touchstone
