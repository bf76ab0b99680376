// Reference RESHAPE, SQUEEZE, EXPAND_DIMS, SHAPE and RANK kernels through the loader and
// interpreter; expected values by hand or naive loops.
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

// ---- RESHAPE ----------------------------------------------------------------------------------

TEST(ReshapeTest, ShapeTensorWithInferredDimension) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {3, -1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>(Iota(6)).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), Iota(6));
}

TEST(ReshapeTest, ShapeFromOptionsWhenNoShapeInput) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 2});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReshape, {in}, {out}, fb::BuiltinOptions::ReshapeOptions,
          fb::CreateReshapeOptions(t.fbb(), t.fbb().CreateVector(std::vector<int>{4})).Union());
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({1, 2, 3, 4}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4}));
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(ReshapeTest, LegacyZeroOptionMeansScalar) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {1, 1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {in}, {out}, fb::BuiltinOptions::ReshapeOptions,
          fb::CreateReshapeOptions(t.fbb(), t.fbb().CreateVector(std::vector<int>{0})).Union());
  ASSERT_TRUE(t.BuildAndInvoke<float>({4.5f}).ok());
  EXPECT_TRUE(t.GetOutputShape(0).empty());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{4.5f}));
}

// As zero_size_constant.bin: a [0]-shaped constant shape (no data) gives a scalar output. Its values
// (none) are known at Prepare although it lives in the arena: the output is sized there, not at every
// Invoke.
TEST(ReshapeTest, EmptyShapeTensorGivesScalar) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {1});
  const int shape = t.builder().AddTensor(kTfLiteInt32, {0}, "empty_shape");
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({42}).ok());
  EXPECT_NE(t.interpreter()->output_tensor(0)->allocation_type, kTfLiteDynamic);
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

// The ADD after the dynamic RESHAPE is prepared again only when the RESHAPE changed its output's shape
// (TFLite's rule): its output follows every new shape, and stays right when the shape repeats.
TEST(ReshapeTest, NodeAfterDynamicOutputFollowsShapeChanges) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int shape = t.AddInput(kTfLiteInt32, {2});
  const int reshaped = t.AddIntermediate(kTfLiteFloat32);
  const int ten = t.AddConst<float>(kTfLiteFloat32, {1}, {10});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {in, shape}, {reshaped});
  t.AddOp(kTfLiteBuiltinAdd, {reshaped, ten}, {out}, fb::BuiltinOptions::AddOptions,
          fb::CreateAddOptions(t.fbb()).Union());
  ASSERT_TRUE(t.Build().ok());
  const std::vector<std::vector<int32_t>> shapes = {{3, 2}, {3, 2}, {6, 1}, {6, 1}, {2, 3}, {3, 2}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    SCOPED_TRACE(i);
    std::vector<float> data = Iota(6);
    for (float& v : data) v += static_cast<float>(i);
    t.SetInput<float>(0, data);
    t.SetInput<int32_t>(1, shapes[i]);
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{shapes[i][0], shapes[i][1]}));
    for (float& v : data) v += 10;
    EXPECT_EQ(t.GetOutput<float>(0), data);
  }
}

// A constant reshaped is computed once, at Prepare, into a read-only tensor (as TFLite 2.14 does);
// no Invoke runs the node, and the ADD reading it sees its values on every run.
TEST(ReshapeTest, ConstantInputReshapedOnceAtPrepare) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {3, 2});
  const int constant = t.AddConst<float>(kTfLiteFloat32, {2, 3}, Iota(6));
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {3, 2});
  const int reshaped = t.AddIntermediate(kTfLiteFloat32);
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {constant, shape}, {reshaped});
  t.AddOp(kTfLiteBuiltinAdd, {in, reshaped}, {out}, fb::BuiltinOptions::AddOptions,
          fb::CreateAddOptions(t.fbb()).Union());
  ASSERT_TRUE(t.Build().ok());
  EXPECT_EQ(t.interpreter()->tensor(reshaped)->allocation_type, kTfLitePersistentRo);
  EXPECT_EQ(t.interpreter()->subgraph(0)->node_kernel(0), "prepare");
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    std::vector<float> data(6, static_cast<float>(100 * run));
    t.SetInput<float>(0, data);
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
    for (size_t i = 0; i < data.size(); ++i) data[i] += static_cast<float>(i);
    EXPECT_EQ(t.GetOutput<float>(0), data);
  }
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
    ASSERT_TRUE(t.BuildAndInvoke<float>(Iota(6)).ok());
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
    ASSERT_TRUE(t.BuildAndInvoke<float>(Iota(6)).ok());
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
            fb::CreateShapeOptions(t.fbb(), wide ? fb::TensorType::INT64 : fb::TensorType::INT32).Union());
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

}  // namespace
}  // namespace touchstone
