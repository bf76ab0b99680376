#include "runtime/tensor_util.h"

#include <vector>

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(TensorUtilTest, ShapesAsVectorsAndText) {
  TfLiteIntArray* dims = TfLiteIntArrayCreate(3);
  dims->data[0] = 1;
  dims->data[1] = 224;
  dims->data[2] = 3;
  TfLiteTensor tensor{};
  tensor.dims = dims;
  EXPECT_EQ(ShapeOf(&tensor), (std::vector<int>{1, 224, 3}));
  EXPECT_EQ(ShapeString(&tensor), "[1,224,3]");
  EXPECT_EQ(ShapeString(dims), "[1,224,3]");
  EXPECT_EQ(ShapeString(std::vector<int>{}), "[]");
  EXPECT_EQ(ShapeString(static_cast<const TfLiteIntArray*>(nullptr)), "[]");
  EXPECT_TRUE(ShapeOf(static_cast<const TfLiteIntArray*>(nullptr)).empty());
  TfLiteIntArrayFree(dims);
}

TEST(TensorUtilTest, ElementCount) {
  EXPECT_EQ(ElementCount({}), 1);
  EXPECT_EQ(ElementCount({2, 3, 4}), 24);
  EXPECT_EQ(ElementCount({2, 0, 4}), 0);
  EXPECT_EQ(ElementCount({65536, 65536}), int64_t{1} << 32);
}

TEST(TensorUtilTest, BroadcastShapes) {
  std::vector<int> out;
  ASSERT_TRUE(BroadcastShapes({2, 1, 3}, {4, 1}, &out));
  EXPECT_EQ(out, (std::vector<int>{2, 4, 3}));
  ASSERT_TRUE(BroadcastShapes({}, {5}, &out));
  EXPECT_EQ(out, (std::vector<int>{5}));
  ASSERT_TRUE(BroadcastShapes({0, 3}, {1, 3}, &out));
  EXPECT_EQ(out, (std::vector<int>{0, 3}));
  EXPECT_FALSE(BroadcastShapes({2, 3}, {3, 3}, &out));
  // The output may be one of the inputs.
  out = {3, 1};
  ASSERT_TRUE(BroadcastShapes(out, {1, 4}, &out));
  EXPECT_EQ(out, (std::vector<int>{3, 4}));
}

TEST(TensorUtilTest, AffineQuantizationNeedsAScale) {
  TfLiteTensor tensor{};
  EXPECT_EQ(AffineQuantization(&tensor), nullptr);
  TfLiteAffineQuantization affine{};
  tensor.quantization.type = kTfLiteAffineQuantization;
  tensor.quantization.params = &affine;
  EXPECT_EQ(AffineQuantization(&tensor), nullptr);  // no scales
  affine.scale = TfLiteFloatArrayCreate(1);
  EXPECT_EQ(AffineQuantization(&tensor), &affine);
  EXPECT_FALSE(IsPerChannelQuantized(&tensor));
  TfLiteFloatArrayFree(affine.scale);
  affine.scale = TfLiteFloatArrayCreate(3);
  EXPECT_TRUE(IsPerChannelQuantized(&tensor));
  TfLiteFloatArrayFree(affine.scale);
}

}  // namespace
}  // namespace touchstone
