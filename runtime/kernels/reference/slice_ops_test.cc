// Reference SLICE and STRIDED_SLICE kernels through the loader and interpreter; expected values by
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

// ---- SLICE, STRIDED_SLICE ---------------------------------------------------------------------

TEST(SliceTest, SizeMinusOneRunsToTheEnd) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {3, 4});
  const int begin = t.AddConst<int32_t>(kTfLiteInt32, {2}, {1, 1});
  const int size = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, -1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSlice, {in, begin, size}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>(Iota(12)).ok());
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
          fb::CreateStridedSliceOptions(t.fbb(), c.begin_mask, c.end_mask, c.ellipsis_mask, c.new_axis_mask,
                                        c.shrink_axis_mask, c.offset)
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

// Slices whose innermost dimension has stride 1 copy contiguous runs: a whole tensor at once, whole
// rows under a partial or reversed outer dimension, a partial run inside each row.
TEST(StridedSliceTest, ContiguousRuns) {
  // The whole [1, 3, 4] as [3, 4] (shrink dimension 0): one run.
  RunStridedSlice({{1, 3, 4}, {0, 0, 0}, {1, 3, 4}, {1, 1, 1}, 0, 0, 0, 0, 1, false, {3, 4}, Iota(12)});
  // Rows 2 and 1 of [3, 4], reversed: a whole row per run, the outer offset stepping back.
  std::vector<float> rows = {8, 9, 10, 11, 4, 5, 6, 7};
  RunStridedSlice({{3, 4}, {2, 0}, {0, 4}, {-1, 1}, 0, 0, 0, 0, 0, false, {2, 4}, rows});
  // Columns 1..2 of every second row of [2, 3, 4]: a partial run under two outer dimensions.
  std::vector<float> columns = {1, 2, 9, 10, 13, 14, 21, 22};
  RunStridedSlice({{2, 3, 4}, {0, 0, 1}, {2, 3, 3}, {1, 2, 1}, 0, 0, 0, 0, 0, false, {2, 2, 2}, columns});
  // Rows 1..2 of each [3, 4] matrix of [2, 3, 4]: two whole rows form one run per matrix.
  std::vector<float> blocks = {4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23};
  RunStridedSlice({{2, 3, 4}, {0, 1, 0}, {2, 3, 4}, {1, 1, 1}, 0, 0, 0, 0, 0, false, {2, 2, 4}, blocks});
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
  t.AddOp(kTfLiteBuiltinStridedSlice, {shape, one, two, one}, {dim1}, fb::BuiltinOptions::StridedSliceOptions,
          fb::CreateStridedSliceOptions(t.fbb(), 0, 0, 0, 0, 1).Union());
  t.AddOp(kTfLiteBuiltinPack, {dim1, c_minus}, {new_shape}, fb::BuiltinOptions::PackOptions,
          fb::CreatePackOptions(t.fbb(), 2, 0).Union());
  t.AddOp(kTfLiteBuiltinReshape, {x, new_shape}, {reshaped});
  t.AddOp(kTfLiteBuiltinPack, {c_one, dim1}, {multiples}, fb::BuiltinOptions::PackOptions,
          fb::CreatePackOptions(t.fbb(), 2, 0).Union());
  t.AddOp(kTfLiteBuiltinTile, {reshaped, multiples}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>(Iota(6)).ok());
  // reshape to [3, 2], then tile columns 3 times: [3, 6].
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 6}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 4, 5, 4, 5, 4, 5}));
  ASSERT_TRUE(t.ResizeInput(0, {1, 4}).ok());
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput<float>(0, Iota(4, 10.f));
  ASSERT_TRUE(t.Invoke().ok());
  // reshape to [4, 1], tile 4 times: [4, 4].
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4, 4}));
  EXPECT_EQ(t.GetOutput<float>(0),
            (std::vector<float>{10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13}));
}

}  // namespace
}  // namespace touchstone
