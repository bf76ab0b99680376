// Reference shape, data-movement, reduction and sorting kernels, run through the real loader and
// interpreter. Expected values are worked by hand or by naive index loops written here, never by
// the kernels' own helpers.
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

std::vector<float> Iota(int n, float start = 0.f) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// ---- RESHAPE ----------------------------------------------------------------------------------

TEST(ReshapeTest, ShapeTensorWithInferredDimension) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {3, -1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, Iota(6));
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), Iota(6));
}

TEST(ReshapeTest, ShapeFromOptionsWhenNoShapeInput) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 2});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReshape, {in}, {out}, fb::BuiltinOptions::ReshapeOptions,
          fb::CreateReshapeOptions(t.fbb(), t.fbb().CreateVector(std::vector<int>{4})).Union());
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {1, 2, 3, 4});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4}));
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(ReshapeTest, LegacyZeroOptionMeansScalar) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {1, 1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {in}, {out}, fb::BuiltinOptions::ReshapeOptions,
          fb::CreateReshapeOptions(t.fbb(), t.fbb().CreateVector(std::vector<int>{0})).Union());
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {4.5f});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_TRUE(t.GetOutputShape(0).empty());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{4.5f}));
}

// As zero_size_constant.bin: a [0]-shaped constant shape (no data) gives a scalar output.
TEST(ReshapeTest, EmptyShapeTensorGivesScalar) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {1});
  const int shape = t.builder().AddTensor(kTfLiteInt32, {0}, "empty_shape");
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {42});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_TRUE(t.GetOutputShape(0).empty());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{42}));
}

TEST(ReshapeTest, ShapeKnownOnlyAtRunTime) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int shape = t.AddInput(kTfLiteInt32, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, Iota(6));
  t.SetInput<int32_t>(1, {-1, 2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), Iota(6));
  t.SetInput<int32_t>(1, {6, 1});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{6, 1}));
}

TEST(ReshapeTest, ZeroSizedInputInfersFromNonZeroDims) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 0});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {-1, 0});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 0}));
}

TEST(ReshapeTest, RefusesWrongElementCountAndTwoWildcards) {
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {2, 3});
    const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {4, 2});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
    EXPECT_FALSE(t.Build().ok());
  }
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {2, 3});
    const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {-1, -1});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
    EXPECT_FALSE(t.Build().ok());
  }
}

// ---- SQUEEZE, EXPAND_DIMS, SHAPE, RANK --------------------------------------------------------

TEST(SqueezeTest, AllOnesOrListedDims) {
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {1, 2, 1, 3});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinSqueeze, {in}, {out});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, Iota(6));
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
    EXPECT_EQ(t.GetOutput<float>(0), Iota(6));
  }
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {1, 2, 1, 3});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinSqueeze, {in}, {out}, fb::BuiltinOptions::SqueezeOptions,
            fb::CreateSqueezeOptions(t.fbb(), t.fbb().CreateVector(std::vector<int>{-2})).Union());
    ASSERT_TRUE(t.Build().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{1, 2, 3}));
  }
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {1, 2});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinSqueeze, {in}, {out}, fb::BuiltinOptions::SqueezeOptions,
            fb::CreateSqueezeOptions(t.fbb(), t.fbb().CreateVector(std::vector<int>{1})).Union());
    EXPECT_FALSE(t.Build().ok());
  }
}

TEST(ExpandDimsTest, NegativeAndInt64Axis) {
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {2, 3});
    const int axis = t.AddConst<int32_t>(kTfLiteInt32, {}, {-1});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinExpandDims, {in, axis}, {out});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, Iota(6));
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3, 1}));
    EXPECT_EQ(t.GetOutput<float>(0), Iota(6));
  }
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteInt8, {2});
    const int axis = t.AddConst<int64_t>(kTfLiteInt64, {1}, {0});
    const int out = t.AddOutput(kTfLiteInt8);
    t.AddOp(kTfLiteBuiltinExpandDims, {in, axis}, {out});
    ASSERT_TRUE(t.Build().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{1, 2}));
  }
}

TEST(ShapeTest, Int32AndInt64) {
  for (bool wide : {false, true}) {
    OpTest t;
    const TfLiteType type = wide ? kTfLiteInt64 : kTfLiteInt32;
    const int in = t.AddInput(kTfLiteFloat32, {2, 3, 4});
    const int out = t.AddOutput(type);
    t.AddOp(kTfLiteBuiltinShape, {in}, {out}, fb::BuiltinOptions::ShapeOptions,
            fb::CreateShapeOptions(t.fbb(), wide ? fb::TensorType::INT64 : fb::TensorType::INT32)
                .Union());
    ASSERT_TRUE(t.Build().ok());
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3}));
    if (wide) {
      EXPECT_EQ(t.GetOutput<int64_t>(0), (std::vector<int64_t>{2, 3, 4}));
    } else {
      EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{2, 3, 4}));
    }
  }
}

TEST(RankTest, ScalarRank) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3, 4});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinRank, {in}, {out});
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_TRUE(t.GetOutputShape(0).empty());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{3}));
}

// ---- TILE, TRANSPOSE, BROADCAST_TO, REVERSE_V2 ------------------------------------------------

TEST(TileTest, RepeatsEachDimension) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 2});
  const int multiples = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 3});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinTile, {in, multiples}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {1, 2, 3, 4});
  ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(t.Invoke().ok());
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

TEST(BroadcastToTest, AddsAndStretchesDims) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {3, 1});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {3}, {2, 3, 2});
  const int out = t.AddOutput(kTfLiteFloat32);
  // TFLite registers BROADCAST_TO from version 2 (version 1 is refused at load).
  t.AddOp(kTfLiteBuiltinBroadcastTo, {in, shape}, {out}, fb::BuiltinOptions::NONE, 0, 2);
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2, 3});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(ReverseV2Test, ReversesListedAxis) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 3});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {1}, {-1});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReverseV2, {in, axis}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 4}));
  EXPECT_EQ(t.GetOutput<float>(1), (std::vector<float>{2, 5}));
  EXPECT_EQ(t.GetOutput<float>(2), (std::vector<float>{3, 6}));
}

// ---- GATHER, GATHER_ND ------------------------------------------------------------------------

TEST(GatherTest, AxisZeroAndOne) {
  {
    OpTest t;
    const int params = t.AddInput(kTfLiteFloat32, {3, 2});
    const int idx = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 0});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinGather, {params, idx}, {out}, fb::BuiltinOptions::GatherOptions,
            fb::CreateGatherOptions(t.fbb(), 0).Union());
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
    ASSERT_TRUE(t.Invoke().ok());
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
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
    ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {7, 9});
  ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {10, 11, 12, 20, 21, 22});
  ASSERT_TRUE(t.Invoke().ok());
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
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {1, 2, 3, 4});
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2}));
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{3, 2}));
  }
  {
    OpTest t;
    const int params = t.AddInput(kTfLiteFloat32, {2, 2});
    const int idx = t.AddConst<int32_t>(kTfLiteInt32, {1, 1}, {1});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinGatherNd, {params, idx}, {out});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {1, 2, 3, 4});
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{1, 2}));
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{3, 4}));
  }
}

// ---- SLICE, STRIDED_SLICE ---------------------------------------------------------------------

TEST(SliceTest, SizeMinusOneRunsToTheEnd) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {3, 4});
  const int begin = t.AddConst<int32_t>(kTfLiteInt32, {2}, {1, 1});
  const int size = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, -1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSlice, {in, begin, size}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, Iota(12));
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{5, 6, 7, 9, 10, 11}));
}

TEST(SliceTest, RunTimeBeginInt64AndRefusal) {
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteInt8, {4});
    const int begin = t.AddInput(kTfLiteInt64, {1});
    const int size = t.AddConst<int64_t>(kTfLiteInt64, {1}, {2});
    const int out = t.AddOutput(kTfLiteInt8);
    t.AddOp(kTfLiteBuiltinSlice, {in, begin, size}, {out});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<int8_t>(0, {1, 2, 3, 4});
    t.SetInput<int64_t>(1, {2});
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{3, 4}));
    t.SetInput<int64_t>(1, {3});
    EXPECT_FALSE(t.Invoke().ok());
  }
}

struct StridedSliceCase {
  std::vector<int> input_shape;
  std::vector<int32_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  bool offset;
  std::vector<int> expected_shape;
  std::vector<float> expected;  // input values are 0, 1, 2, ...
};

void RunStridedSlice(const StridedSliceCase& c) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, c.input_shape);
  const int n = static_cast<int>(c.begin.size());
  const int b = t.AddConst<int32_t>(kTfLiteInt32, {n}, c.begin);
  const int e = t.AddConst<int32_t>(kTfLiteInt32, {n}, c.end);
  const int s = t.AddConst<int32_t>(kTfLiteInt32, {n}, c.strides);
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinStridedSlice, {in, b, e, s}, {out}, fb::BuiltinOptions::StridedSliceOptions,
          fb::CreateStridedSliceOptions(t.fbb(), c.begin_mask, c.end_mask, c.ellipsis_mask,
                                        c.new_axis_mask, c.shrink_axis_mask, c.offset)
              .Union());
  ASSERT_TRUE(t.Build().ok());
  int count = 1;
  for (int d : c.input_shape) count *= d;
  t.SetInput<float>(0, Iota(count));
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), c.expected_shape);
  EXPECT_EQ(t.GetOutput<float>(0), c.expected);
}

TEST(StridedSliceTest, Basics) {
  // Positive stride.
  RunStridedSlice({{10}, {1}, {8}, {3}, 0, 0, 0, 0, 0, false, {3}, {1, 4, 7}});
  // Negative indices and stride.
  RunStridedSlice({{5}, {-1}, {0}, {-2}, 0, 0, 0, 0, 0, false, {2}, {4, 2}});
  // begin_mask with a negative stride starts at the last element; end_mask runs to the first.
  RunStridedSlice({{4}, {0}, {0}, {-1}, 1, 1, 0, 0, 0, false, {4}, {3, 2, 1, 0}});
  // Out-of-range indices are clamped.
  RunStridedSlice({{4}, {-10}, {10}, {1}, 0, 0, 0, 0, 0, false, {4}, {0, 1, 2, 3}});
  // Empty result.
  RunStridedSlice({{4}, {3}, {1}, {1}, 0, 0, 0, 0, 0, false, {0}, {}});
}

TEST(StridedSliceTest, MasksOn2D) {
  // Rows 1.., every second column from 0: begin_mask on dim 0 is off, end_mask on dim 0 on.
  RunStridedSlice({{3, 4}, {1, 0}, {0, 4}, {1, 2}, 0, 1, 0, 0, 0, false, {2, 2}, {4, 6, 8, 10}});
  // Shrink dimension 0 at index 1 (row 1 as a vector).
  RunStridedSlice({{3, 4}, {1, 0}, {2, 4}, {1, 1}, 0, 0, 0, 0, 1, false, {4}, {4, 5, 6, 7}});
  // Shrink both dimensions with a negative index: a scalar.
  RunStridedSlice({{3, 4}, {-1, -2}, {0, 0}, {1, 1}, 0, 0, 0, 0, 3, false, {}, {10}});
}

TEST(StridedSliceTest, EllipsisAndNewAxis) {
  // x[..., 1:3] on [2, 3, 4].
  std::vector<float> expected;
  for (int i = 0; i < 6; ++i) {
    expected.push_back(i * 4 + 1);
    expected.push_back(i * 4 + 2);
  }
  RunStridedSlice({{2, 3, 4}, {0, 1}, {0, 3}, {1, 1}, 0, 0, 1, 0, 0, false, {2, 3, 2}, expected});
  // x[tf.newaxis, 0:2] on [2, 3]: a leading size-1 dimension.
  RunStridedSlice({{2, 3}, {0, 0}, {0, 2}, {1, 1}, 0, 0, 0, 1, 0, false, {1, 2, 3}, Iota(6)});
  // x[1, ..., tf.newaxis] on [2, 2]: shrink, ellipsis, then a trailing new axis.
  RunStridedSlice({{2, 2}, {1, 0, 0}, {2, 0, 0}, {1, 1, 1}, 0, 0, 2, 4, 1, false, {2, 1}, {2, 3}});
}

TEST(StridedSliceTest, OffsetEndIsRelative) {
  RunStridedSlice({{6}, {1}, {3}, {1}, 0, 0, 0, 0, 0, true, {3}, {1, 2, 3}});
}

// dynamic_shapes.bin's pattern: shapes computed at run time flow through SHAPE, STRIDED_SLICE,
// PACK, RESHAPE and TILE, and follow a resized input.
TEST(StridedSliceTest, RunTimeShapesFlowThroughShapeSlicePackReshapeTile) {
  OpTest t;
  const int x = t.AddInput(kTfLiteFloat32, {2, 3});
  const int shape = t.AddIntermediate(kTfLiteInt32);
  const int dim1 = t.AddIntermediate(kTfLiteInt32);
  const int new_shape = t.AddIntermediate(kTfLiteInt32);
  const int reshaped = t.AddIntermediate(kTfLiteFloat32);
  const int multiples = t.AddIntermediate(kTfLiteInt32);
  const int out = t.AddOutput(kTfLiteFloat32);
  const int one = t.AddConst<int32_t>(kTfLiteInt32, {1}, {1});
  const int two = t.AddConst<int32_t>(kTfLiteInt32, {1}, {2});
  const int c_one = t.AddConst<int32_t>(kTfLiteInt32, {}, {1});
  const int c_minus = t.AddConst<int32_t>(kTfLiteInt32, {}, {-1});
  t.AddOp(kTfLiteBuiltinShape, {x}, {shape}, fb::BuiltinOptions::ShapeOptions,
          fb::CreateShapeOptions(t.fbb(), fb::TensorType::INT32).Union());
  t.AddOp(kTfLiteBuiltinStridedSlice, {shape, one, two, one}, {dim1},
          fb::BuiltinOptions::StridedSliceOptions,
          fb::CreateStridedSliceOptions(t.fbb(), 0, 0, 0, 0, 1).Union());
  t.AddOp(kTfLiteBuiltinPack, {dim1, c_minus}, {new_shape}, fb::BuiltinOptions::PackOptions,
          fb::CreatePackOptions(t.fbb(), 2, 0).Union());
  t.AddOp(kTfLiteBuiltinReshape, {x, new_shape}, {reshaped});
  t.AddOp(kTfLiteBuiltinPack, {c_one, dim1}, {multiples}, fb::BuiltinOptions::PackOptions,
          fb::CreatePackOptions(t.fbb(), 2, 0).Union());
  t.AddOp(kTfLiteBuiltinTile, {reshaped, multiples}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, Iota(6));
  ASSERT_TRUE(t.Invoke().ok());
  // reshape to [3, 2], then tile columns 3 times: [3, 6].
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 6}));
  EXPECT_EQ(t.GetOutput<float>(0),
            (std::vector<float>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 4, 5, 4, 5, 4, 5}));
  ASSERT_TRUE(t.ResizeInput(0, {1, 4}).ok());
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput<float>(0, Iota(4, 10.f));
  ASSERT_TRUE(t.Invoke().ok());
  // reshape to [4, 1], tile 4 times: [4, 4].
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4, 4}));
  EXPECT_EQ(t.GetOutput<float>(0),
            (std::vector<float>{10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13}));
}

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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, Iota(8));
  ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{0, 5}));
  EXPECT_EQ(t.GetOutputShape(1), (std::vector<int>{2, 2}));
  EXPECT_EQ(t.GetOutput<int32_t>(1), (std::vector<int32_t>{1, 2, 6, 7}));
  EXPECT_EQ(t.GetOutput<int32_t>(2), (std::vector<int32_t>{3, 4, 8, 9}));
}

// ---- PAD, PADV2, MIRROR_PAD -------------------------------------------------------------------

TEST(PadTest, FloatZerosAndInt8ZeroPoint) {
  {
    OpTest t;
    const int in = t.AddInput(kTfLiteFloat32, {2, 2});
    const int pads = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {1, 0, 0, 2});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinPad, {in, pads}, {out});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {1, 2, 3, 4});
    ASSERT_TRUE(t.Invoke().ok());
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
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<int8_t>(0, {5, 6});
    ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{9, 1, 2, 9, 9, 9}));
}

std::vector<float> RunMirrorPad(fb::MirrorPadMode mode, const std::vector<int>& shape,
                                const std::vector<int32_t>& pads, std::vector<int>* out_shape,
                                bool* ok = nullptr) {
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
  EXPECT_EQ(RunMirrorPad(fb::MirrorPadMode::REFLECT, {3}, {2, 2}, &shape),
            (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
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

// ---- Reductions -------------------------------------------------------------------------------

template <typename T>
std::vector<T> RunReduce(int code, TfLiteType type, const std::vector<int>& shape,
                         const std::vector<T>& data, const std::vector<int32_t>& axes,
                         bool keep_dims, std::vector<int>* out_shape) {
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
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {2, 3}, {1, 2, 3, 4, 5, 6}, {1},
                             false, &shape),
            (std::vector<float>{2, 5}));
  EXPECT_EQ(shape, (std::vector<int>{2}));
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {2, 3}, {1, 2, 3, 4, 5, 6},
                             {0, -1}, true, &shape),
            (std::vector<float>{3.5f}));
  EXPECT_EQ(shape, (std::vector<int>{1, 1}));
  // Global average pooling of NHWC over H and W, keep_dims.
  std::vector<float> data = Iota(2 * 2 * 3, 1.f);
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {1, 2, 2, 3}, data, {1, 2}, true,
                             &shape),
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
  const std::vector<float> out =
      RunReduce<float>(kTfLiteBuiltinMean, kTfLiteFloat32, {0, 2}, {}, {0}, false, &shape);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(shape, (std::vector<int>{2}));
}

TEST(ReduceTest, MeanInt32TruncatesTowardZero) {
  std::vector<int> shape;
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinMean, kTfLiteInt32, {2, 2}, {1, 2, -1, -2}, {1}, false,
                               &shape),
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int8_t>(0, {23, 23, 23, 23, 23, 23, 25});
  ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  // Row 0: (10 - 5) + (20 - 5) = 20 real -> 25 quantized; row 1: 190 real -> saturates at 127.
  t.SetInput<int8_t>(0, {10, 20, 100, 100});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{25, 127}));
}

TEST(ReduceTest, SumProdMaxMin) {
  std::vector<int> shape;
  const std::vector<float> data = {1, -2, 3, 4, 5, -6};
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinSum, kTfLiteFloat32, {2, 3}, data, {0}, false, &shape),
            (std::vector<float>{5, 3, -3}));
  EXPECT_EQ(
      RunReduce<float>(kTfLiteBuiltinReduceProd, kTfLiteFloat32, {2, 3}, data, {1}, true, &shape),
      (std::vector<float>{-6, -120}));
  EXPECT_EQ(shape, (std::vector<int>{2, 1}));
  EXPECT_EQ(RunReduce<float>(kTfLiteBuiltinReduceMax, kTfLiteFloat32, {2, 3}, data, {1, 1}, false,
                             &shape),
            (std::vector<float>{3, 5}));
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinReduceMin, kTfLiteInt32, {2, 3}, {1, -2, 3, 4, 5, -6},
                               {0, 1}, false, &shape),
            (std::vector<int32_t>{-6}));
  EXPECT_TRUE(shape.empty());
}

// A kept last axis of 16 channels or more folds in blocks (FoldInto): sums, products, maxima and
// minima over H and W of a 2x3x37 input (two full blocks and 5 channels more) against a plain loop.
TEST(ReduceTest, KeptChannelsInBlocks) {
  const int pixels = 2 * 3, channels = 37;
  std::vector<int32_t> data(pixels * channels);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int32_t>((i * 7919) % 23) - 11;
  std::vector<int32_t> sum(channels, 0), prod(channels, 1), max(channels, INT32_MIN),
      min(channels, INT32_MAX);
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
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinSum, kTfLiteInt32, in_shape, data, {1, 2}, true,
                               &shape),
            sum);
  EXPECT_EQ(shape, (std::vector<int>{1, 1, 1, channels}));
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinReduceProd, kTfLiteInt32, in_shape, data, {1, 2},
                               false, &shape),
            prod);
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinReduceMax, kTfLiteInt32, in_shape, data, {2, 1},
                               false, &shape),
            max);
  EXPECT_EQ(RunReduce<int32_t>(kTfLiteBuiltinReduceMin, kTfLiteInt32, in_shape, data, {1, 2},
                               true, &shape),
            min);
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
  EXPECT_TRUE(
      RunReduce<float>(kTfLiteBuiltinSum, kTfLiteFloat32, {2, 3}, Iota(6), {2}, false, &shape)
          .empty());
}

// ---- ARG_MAX, ARG_MIN, TOPK_V2 ----------------------------------------------------------------

TEST(ArgMaxTest, FirstIndexWinsTies) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int axis = t.AddConst<int32_t>(kTfLiteInt32, {1}, {1});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinArgMax, {in, axis}, {out}, fb::BuiltinOptions::ArgMaxOptions,
          fb::CreateArgMaxOptions(t.fbb(), fb::TensorType::INT32).Union());
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 7, 7, 3, 2, 1});
  ASSERT_TRUE(t.Invoke().ok());
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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<uint8_t>(0, {5, 1, 3, 4, 1, 9});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int64_t>(0), (std::vector<int64_t>{1, 0, 0}));
}

TEST(TopKV2Test, DescendingWithTiesByLowerIndex) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 6});
  const int k = t.AddConst<int32_t>(kTfLiteInt32, {}, {3});
  const int values = t.AddOutput(kTfLiteFloat32);
  const int indices = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinTopkV2, {in, k}, {values, indices});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 5, 3, 5, 2, 0, -1, -1, -1, -2, -1, -3});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{5, 5, 3, -1, -1, -1}));
  EXPECT_EQ(t.GetOutput<int32_t>(1), (std::vector<int32_t>{1, 3, 2, 0, 1, 2}));
}

// ---- FILL, ZEROS_LIKE, ONES_LIKE, RANGE -------------------------------------------------------

TEST(FillTest, ConstantAndRunTimeDims) {
  {
    OpTest t;
    const int dims = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 3});
    const int value = t.AddInput(kTfLiteFloat32, {});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinFill, {dims, value}, {out});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {7.5f});
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
    EXPECT_EQ(t.GetOutput<float>(0), std::vector<float>(6, 7.5f));
  }
  {
    OpTest t;
    const int dims = t.AddInput(kTfLiteInt64, {1});
    const int value = t.AddConst<int32_t>(kTfLiteInt32, {}, {-4});
    const int out = t.AddOutput(kTfLiteInt32);
    t.AddOp(kTfLiteBuiltinFill, {dims, value}, {out});
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<int64_t>(0, {4});
    ASSERT_TRUE(t.Invoke().ok());
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
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {3, 4});
    ASSERT_TRUE(t.Invoke().ok());
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
    ASSERT_TRUE(t.Build().ok());
    t.SetInput<float>(0, {1.f});
    ASSERT_TRUE(t.Invoke().ok());
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

// ---- DEPTH_TO_SPACE, SPACE_TO_DEPTH, CUMSUM ---------------------------------------------------

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
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, data);
  ASSERT_TRUE(t.Invoke().ok());
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
      ASSERT_TRUE(t.Build().ok());
      // Rows [1, 2] and [3, 4], summed down each column.
      t.SetInput<float>(0, data);
      ASSERT_TRUE(t.Invoke().ok());
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
