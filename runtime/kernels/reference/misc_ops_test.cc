// Reference kernels of misc_ops.cc, space_batch_ops.cc, segment_ops.cc and fft.cc, run through the
// real loader and interpreter. Expected values are worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;

constexpr float kPi = 3.14159265358979323846f;

// ---- ADD_N -------------------------------------------------------------------------------------

TEST(AddNTest, SumsThreeFloatInputs) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2, 2});
  const int b = t.AddInput(kTfLiteFloat32, {2, 2});
  const int c = t.AddInput(kTfLiteFloat32, {2, 2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAddN, {a, b, c}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1.f, 2.f, 3.f, 4.f});
  t.SetInput<float>(1, {0.5f, -2.f, 0.f, 10.f});
  t.SetInput<float>(2, {-1.f, 1.f, 0.25f, -4.f});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0.5f, 1.f, 3.25f, 10.f}));
}

// TFLite's optimized Add clamps each partial sum to the finite float range.
TEST(AddNTest, FloatSumsClampToFiniteRange) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2});
  const int b = t.AddInput(kTfLiteFloat32, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAddN, {a, b}, {out});
  ASSERT_TRUE(t.Build().ok());
  const float inf = std::numeric_limits<float>::infinity();
  t.SetInput<float>(0, {inf, -inf});
  t.SetInput<float>(1, {1.f, 1.f});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0),
            (std::vector<float>{std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()}));
}

TEST(AddNTest, Int32AndZeroSize) {
  OpTest t;
  const int a = t.AddInput(kTfLiteInt32, {3});
  const int b = t.AddInput(kTfLiteInt32, {3});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinAddN, {a, b}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {1, -7, 100});
  t.SetInput<int32_t>(1, {2, 7, -300});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{3, 0, -200}));

  OpTest z;
  const int za = z.AddInput(kTfLiteFloat32, {0, 3});
  const int zb = z.AddInput(kTfLiteFloat32, {0, 3});
  const int zout = z.AddOutput(kTfLiteFloat32);
  z.AddOp(kTfLiteBuiltinAddN, {za, zb}, {zout});
  ASSERT_TRUE(z.Build().ok());
  ASSERT_TRUE(z.Invoke().ok());
  EXPECT_EQ(z.GetOutputShape(0), (std::vector<int>{0, 3}));
}

TEST(AddNTest, RefusesMismatchedShapes) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2});
  const int b = t.AddInput(kTfLiteFloat32, {3});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAddN, {a, b}, {out});
  EXPECT_FALSE(t.Build().ok());
}

// ---- ATAN2, SIGN -------------------------------------------------------------------------------

TEST(Atan2Test, FourQuadrants) {
  OpTest t;
  const int y = t.AddInput(kTfLiteFloat32, {5});
  const int x = t.AddInput(kTfLiteFloat32, {5});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAtan2, {y, x}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1.f, 1.f, -1.f, 0.f, 0.f});
  t.SetInput<float>(1, {1.f, -1.f, -1.f, -1.f, 2.f});
  ASSERT_TRUE(t.Invoke().ok());
  const std::vector<float> got = t.GetOutput<float>(0);
  const std::vector<float> want = {kPi / 4, 3 * kPi / 4, -3 * kPi / 4, kPi, 0.f};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << i;
}

TEST(Atan2Test, RefusesDifferentRanks) {
  OpTest t;
  const int y = t.AddInput(kTfLiteFloat32, {2, 2});
  const int x = t.AddInput(kTfLiteFloat32, {4});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAtan2, {y, x}, {out});
  EXPECT_FALSE(t.Build().ok());
}

// TFLite pairs elements in memory order and gives the output y's shape; x's missing elements are 0.
TEST(Atan2Test, ShapesOfOneRankPairInMemoryOrder) {
  OpTest t;
  const int y = t.AddInput(kTfLiteFloat32, {3, 1});
  const int x = t.AddInput(kTfLiteFloat32, {1, 2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAtan2, {y, x}, {out});
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(t.Build().ok());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("WARNING: ATAN2"), std::string::npos);
  t.SetInput<float>(0, {1.f, 1.f, -1.f});
  t.SetInput<float>(1, {1.f, -1.f});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 1}));
  const std::vector<float> got = t.GetOutput<float>(0);
  const std::vector<float> want = {kPi / 4, 3 * kPi / 4, -kPi / 2};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << i;
}

TEST(SignTest, FloatWithNanAndInt32) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {5});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSign, {in}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>({-2.5f, 0.f, -0.f, 3.f, std::nanf("")}).ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{-1.f, 0.f, 0.f, 1.f, 0.f}));

  OpTest i;
  const int iin = i.AddInput(kTfLiteInt32, {3});
  const int iout = i.AddOutput(kTfLiteInt32);
  i.AddOp(kTfLiteBuiltinSign, {iin}, {iout});
  ASSERT_TRUE(i.BuildAndInvoke<int32_t>({-7, 0, 42}).ok());
  EXPECT_EQ(i.GetOutput<int32_t>(0), (std::vector<int32_t>{-1, 0, 1}));
}

TEST(SignTest, RefusesInt8) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt8, {3});
  const int out = t.AddOutput(kTfLiteInt8);
  t.AddOp(kTfLiteBuiltinSign, {in}, {out});
  EXPECT_FALSE(t.Build().ok());
}

// ---- BUCKETIZE ---------------------------------------------------------------------------------

flatbuffers::Offset<void> BucketizeOptions(OpTest& t, const std::vector<float>& boundaries) {
  return fb::CreateBucketizeOptions(t.fbb(), t.fbb().CreateVector(boundaries)).Union();
}

TEST(BucketizeTest, FloatAndIntInputs) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {6});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinBucketize, {in}, {out}, fb::BuiltinOptions::BucketizeOptions,
          BucketizeOptions(t, {0.f, 10.f, 100.f}));
  ASSERT_TRUE(t.BuildAndInvoke<float>({-5.f, 0.f, 5.f, 10.f, 99.9f, 150.f}).ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{0, 1, 1, 2, 2, 3}));

  OpTest i;
  const int iin = i.AddInput(kTfLiteInt32, {2, 2});
  const int iout = i.AddOutput(kTfLiteInt32);
  i.AddOp(kTfLiteBuiltinBucketize, {iin}, {iout}, fb::BuiltinOptions::BucketizeOptions,
          BucketizeOptions(i, {1.5f, 2.5f}));
  ASSERT_TRUE(i.BuildAndInvoke<int32_t>({1, 2, 3, -1}).ok());
  EXPECT_EQ(i.GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(i.GetOutput<int32_t>(0), (std::vector<int32_t>{0, 1, 2, 0}));
}

TEST(BucketizeTest, RefusesUnsortedBoundaries) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinBucketize, {in}, {out}, fb::BuiltinOptions::BucketizeOptions, BucketizeOptions(t, {3.f, 1.f}));
  EXPECT_FALSE(t.Build().ok());
}

// ---- DYNAMIC_UPDATE_SLICE ----------------------------------------------------------------------

TEST(DynamicUpdateSliceTest, ClampsStartIndices) {
  OpTest t;
  const int operand = t.AddInput(kTfLiteFloat32, {3, 3});
  const int update = t.AddInput(kTfLiteFloat32, {2, 2});
  const int start = t.AddInput(kTfLiteInt32, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinDynamicUpdateSlice, {operand, update, start}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, std::vector<float>(9, 0.f));
  t.SetInput<float>(1, {1.f, 2.f, 3.f, 4.f});
  t.SetInput<int32_t>(2, {2, -1});  // clamped to (1, 0)
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0.f, 0.f, 0.f, 1.f, 2.f, 0.f, 3.f, 4.f, 0.f}));
}

TEST(DynamicUpdateSliceTest, Int64IndicesOnInt8) {
  OpTest t;
  const int operand = t.AddInput(kTfLiteInt8, {1, 4});
  const int update = t.AddInput(kTfLiteInt8, {1, 2});
  const int start = t.AddConst<int64_t>(kTfLiteInt64, {2}, {0, 1});
  const int out = t.AddOutput(kTfLiteInt8);
  t.AddOp(kTfLiteBuiltinDynamicUpdateSlice, {operand, update, start}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int8_t>(0, {1, 2, 3, 4});
  t.SetInput<int8_t>(1, {-9, -8});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{1, -9, -8, 4}));
}

TEST(DynamicUpdateSliceTest, RefusesUpdateLargerThanOperand) {
  OpTest t;
  const int operand = t.AddInput(kTfLiteFloat32, {2, 2});
  const int update = t.AddInput(kTfLiteFloat32, {3, 1});
  const int start = t.AddInput(kTfLiteInt32, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinDynamicUpdateSlice, {operand, update, start}, {out});
  EXPECT_FALSE(t.Build().ok());
}

// ---- EMBEDDING_LOOKUP --------------------------------------------------------------------------

TEST(EmbeddingLookupTest, FloatRowsAndOutOfRangeId) {
  OpTest t;
  const int ids = t.AddInput(kTfLiteInt32, {3});
  const int table = t.AddConst<float>(kTfLiteFloat32, {3, 2}, {0.f, 0.5f, 1.f, 1.5f, 2.f, 2.5f});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinEmbeddingLookup, {ids, table}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({2, 0, 2}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{2.f, 2.5f, 0.f, 0.5f, 2.f, 2.5f}));
  t.SetInput<int32_t>(0, {0, 3, 1});
  EXPECT_FALSE(t.Invoke().ok());
}

// A uint8 table with a float output is dequantized reading the bytes as int8, as TFLite does.
TEST(EmbeddingLookupTest, HybridDequantizesRows) {
  OpTest t;
  const int ids = t.AddInput(kTfLiteInt32, {2});
  const int table = t.AddConst<uint8_t>(kTfLiteUInt8, {2, 1, 2}, {2, 200, 4, 6});
  t.builder().SetQuantization(table, {0.5f}, {0});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinEmbeddingLookup, {ids, table}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({0, 1}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1.f, -28.f, 2.f, 3.f}));
}

// ---- MATRIX_DIAG, MATRIX_SET_DIAG --------------------------------------------------------------

TEST(MatrixDiagTest, BatchOfDiagonals) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt8, {2, 2});
  const int out = t.AddOutput(kTfLiteInt8);
  t.AddOp(kTfLiteBuiltinMatrixDiag, {in}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<int8_t>({1, 2, -3, 4}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{1, 0, 0, 2, -3, 0, 0, 4}));
}

TEST(MatrixSetDiagTest, WideMatrix) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int diag = t.AddInput(kTfLiteFloat32, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinMatrixSetDiag, {in, diag}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  t.SetInput<float>(1, {-1.f, -2.f});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{-1.f, 2.f, 3.f, 4.f, -2.f, 6.f}));
}

TEST(MatrixSetDiagTest, RefusesWrongDiagonalShape) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 3});
  const int diag = t.AddInput(kTfLiteFloat32, {3});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinMatrixSetDiag, {in, diag}, {out});
  EXPECT_FALSE(t.Build().ok());
}

// ---- ONE_HOT -----------------------------------------------------------------------------------

int AddOneHot(OpTest& t, TfLiteType indices_type, const std::vector<int>& indices_shape, int axis,
              bool depth_is_input = false) {
  const int indices = t.AddInput(indices_type, indices_shape);
  const int depth = depth_is_input ? t.AddInput(kTfLiteInt32, {}) : t.AddConst<int32_t>(kTfLiteInt32, {}, {3});
  const int on = t.AddConst<float>(kTfLiteFloat32, {}, {5.f});
  const int off = t.AddConst<float>(kTfLiteFloat32, {}, {-1.f});
  const int out = t.AddOutput(kTfLiteFloat32);
  return t.AddOp(kTfLiteBuiltinOneHot, {indices, depth, on, off}, {out}, fb::BuiltinOptions::OneHotOptions,
                 fb::CreateOneHotOptions(t.fbb(), axis).Union());
}

TEST(OneHotTest, LastAxisWithOutOfRangeIndices) {
  OpTest t;
  AddOneHot(t, kTfLiteInt32, {4}, -1);
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({0, 2, -1, 5}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4, 3}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1}));
}

TEST(OneHotTest, AxisZeroInt64Indices) {
  OpTest t;
  AddOneHot(t, kTfLiteInt64, {2}, 0);
  ASSERT_TRUE(t.BuildAndInvoke<int64_t>({1, 2}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{-1, -1, 5, -1, -1, 5}));
}

TEST(OneHotTest, DepthKnownOnlyAtRunTime) {
  OpTest t;
  AddOneHot(t, kTfLiteInt32, {2}, -1, /*depth_is_input=*/true);
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {1, 0});
  t.SetInput<int32_t>(1, {2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{-1, 5, 5, -1}));
}

TEST(OneHotTest, RefusesAxisOutOfRange) {
  OpTest t;
  AddOneHot(t, kTfLiteInt32, {2}, 2);
  EXPECT_FALSE(t.Build().ok());
}

// ---- REVERSE_SEQUENCE --------------------------------------------------------------------------

TEST(ReverseSequenceTest, BatchMajorAndSequenceMajor) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {2, 4});
  const int lengths = t.AddConst<int32_t>(kTfLiteInt32, {2}, {3, 0});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinReverseSequence, {in, lengths}, {out}, fb::BuiltinOptions::ReverseSequenceOptions,
          fb::CreateReverseSequenceOptions(t.fbb(), /*seq_dim=*/1, /*batch_dim=*/0).Union());
  ASSERT_TRUE(t.BuildAndInvoke<int32_t>({1, 2, 3, 4, 5, 6, 7, 8}).ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{3, 2, 1, 4, 5, 6, 7, 8}));

  // [seq 3, batch 2, 2 channels], batch_dim 1.
  OpTest s;
  const int sin = s.AddInput(kTfLiteFloat32, {3, 2, 2});
  const int slen = s.AddInput(kTfLiteInt64, {2});
  const int sout = s.AddOutput(kTfLiteFloat32);
  s.AddOp(kTfLiteBuiltinReverseSequence, {sin, slen}, {sout}, fb::BuiltinOptions::ReverseSequenceOptions,
          fb::CreateReverseSequenceOptions(s.fbb(), /*seq_dim=*/0, /*batch_dim=*/1).Union());
  ASSERT_TRUE(s.Build().ok());
  s.SetInput<float>(0, {0, 1, 10, 11, 2, 3, 12, 13, 4, 5, 14, 15});
  s.SetInput<int64_t>(1, {2, 3});
  ASSERT_TRUE(s.Invoke().ok());
  EXPECT_EQ(s.GetOutput<float>(0), (std::vector<float>{2, 3, 14, 15, 0, 1, 12, 13, 4, 5, 10, 11}));
  s.SetInput<int64_t>(1, {2, 4});
  EXPECT_FALSE(s.Invoke().ok());
}

TEST(ReverseSequenceTest, RefusesSameAxes) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 2});
  const int lengths = t.AddInput(kTfLiteInt32, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReverseSequence, {in, lengths}, {out}, fb::BuiltinOptions::ReverseSequenceOptions,
          fb::CreateReverseSequenceOptions(t.fbb(), 1, 1).Union());
  EXPECT_FALSE(t.Build().ok());
}

// ---- UNIQUE, WHERE -----------------------------------------------------------------------------

TEST(UniqueTest, FirstAppearanceOrderInt64Indices) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {7});
  const int values = t.AddOutput(kTfLiteFloat32);
  const int indices = t.AddOutput(kTfLiteInt64);
  t.AddOp(kTfLiteBuiltinUnique, {in}, {values, indices}, fb::BuiltinOptions::UniqueOptions,
          fb::CreateUniqueOptions(t.fbb(), fb::TensorType::INT64).Union());
  ASSERT_TRUE(t.BuildAndInvoke<float>({4.f, 1.f, 4.f, -0.f, 0.f, 7.f, 1.f}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{4.f, 1.f, -0.f, 7.f}));
  EXPECT_EQ(t.GetOutput<int64_t>(1), (std::vector<int64_t>{0, 1, 0, 2, 2, 3, 1}));
}

TEST(UniqueTest, EmptyInputAndRefusal) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt32, {0});
  const int values = t.AddOutput(kTfLiteInt32);
  const int indices = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinUnique, {in}, {values, indices}, fb::BuiltinOptions::UniqueOptions,
          fb::CreateUniqueOptions(t.fbb(), fb::TensorType::INT32).Union());
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{0}));
  EXPECT_EQ(t.GetOutputShape(1), (std::vector<int>{0}));

  OpTest r;
  const int rin = r.AddInput(kTfLiteInt32, {2, 2});
  const int rv = r.AddOutput(kTfLiteInt32);
  const int ri = r.AddOutput(kTfLiteInt32);
  r.AddOp(kTfLiteBuiltinUnique, {rin}, {rv, ri}, fb::BuiltinOptions::UniqueOptions,
          fb::CreateUniqueOptions(r.fbb(), fb::TensorType::INT32).Union());
  EXPECT_FALSE(r.Build().ok());
}

TEST(WhereTest, CoordinatesOfTrueElements) {
  OpTest t;
  const int in = t.AddInput(kTfLiteBool, {2, 3});
  const int out = t.AddOutput(kTfLiteInt64);
  t.AddOp(kTfLiteBuiltinWhere, {in}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<uint8_t>({1, 0, 0, 0, 1, 1}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<int64_t>(0), (std::vector<int64_t>{0, 0, 1, 1, 1, 2}));
}

TEST(WhereTest, ConstantFloatConditionAndScalarRefusal) {
  OpTest t;
  const int cond = t.AddConst<float>(kTfLiteFloat32, {4}, {0.f, -0.f, 2.f, std::nanf("")});
  const int out = t.AddOutput(kTfLiteInt64);
  t.AddOp(kTfLiteBuiltinWhere, {cond}, {out});
  ASSERT_TRUE(t.Build().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 1}));  // sized at Prepare
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int64_t>(0), (std::vector<int64_t>{2, 3}));

  OpTest s;
  const int scalar = s.AddInput(kTfLiteBool, {});
  const int sout = s.AddOutput(kTfLiteInt64);
  s.AddOp(kTfLiteBuiltinWhere, {scalar}, {sout});
  EXPECT_FALSE(s.Build().ok());
}

// ---- SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND ------------------------------------------------------

TEST(SpaceToBatchNdTest, FourDimensionalBlocks) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {1, 4, 4, 1});
  const int block = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 2});
  const int pads = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {0, 0, 0, 0});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSpaceToBatchNd, {in, block, pads}, {out});
  ASSERT_TRUE(t.Build().ok());
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  t.SetInput<float>(0, x);
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4, 2, 2, 1}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
}

// Padding of a quantized tensor is the output zero point.
TEST(SpaceToBatchNdTest, Int8PadsWithZeroPointIn3D) {
  OpTest t;
  const int in = t.AddInput(kTfLiteInt8, {1, 3, 2});
  t.builder().SetQuantization(in, {0.5f}, {-3});
  const int block = t.AddConst<int32_t>(kTfLiteInt32, {1}, {2});
  const int pads = t.AddConst<int32_t>(kTfLiteInt32, {1, 2}, {1, 0});
  const int out = t.AddOutput(kTfLiteInt8);
  t.builder().SetQuantization(out, {0.5f}, {-3});
  t.AddOp(kTfLiteBuiltinSpaceToBatchNd, {in, block, pads}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<int8_t>({1, 2, 3, 4, 5, 6}).ok());
  // Padded rows: [pad, (1,2), (3,4), (5,6)]; batch 0 takes rows 0 and 2, batch 1 rows 1 and 3.
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(t.GetOutput<int8_t>(0), (std::vector<int8_t>{-3, -3, 3, 4, 1, 2, 5, 6}));
}

TEST(SpaceToBatchNdTest, RefusesIndivisiblePaddedSize) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {1, 3, 3, 1});
  const int block = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 2});
  const int pads = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {0, 0, 0, 0});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSpaceToBatchNd, {in, block, pads}, {out});
  EXPECT_FALSE(t.Build().ok());
}

TEST(BatchToSpaceNdTest, InverseWithCrops) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {4, 2, 2, 1});
  const int block = t.AddInput(kTfLiteInt32, {2});  // run-time block: output sized in Eval
  const int crops = t.AddConst<int32_t>(kTfLiteInt32, {2, 2}, {0, 1, 1, 0});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinBatchToSpaceNd, {in, block, crops}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
  t.SetInput<int32_t>(1, {2, 2});
  ASSERT_TRUE(t.Invoke().ok());
  // The 4x4 image 0..15 with its last row and first column cropped.
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{1, 3, 3, 1}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 2, 3, 5, 6, 7, 9, 10, 11}));
  t.SetInput<int32_t>(1, {3, 1});  // 4 batches are not a multiple of 3
  EXPECT_FALSE(t.Invoke().ok());
}

TEST(BatchToSpaceNdTest, RefusesTwoDimensionalInput) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {4, 2});
  const int block = t.AddConst<int32_t>(kTfLiteInt32, {0}, {});
  const int crops = t.AddConst<int32_t>(kTfLiteInt32, {0, 2}, {});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinBatchToSpaceNd, {in, block, crops}, {out});
  EXPECT_FALSE(t.Build().ok());
}

// ---- SCATTER_ND --------------------------------------------------------------------------------

TEST(ScatterNdTest, RowsAccumulate) {
  OpTest t;
  const int indices = t.AddConst<int32_t>(kTfLiteInt32, {3, 1}, {2, 0, 2});
  const int updates = t.AddInput(kTfLiteFloat32, {3, 2});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {3, 2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinScatterNd, {indices, updates, shape}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>({1.f, 2.f, 3.f, 4.f, 10.f, 20.f}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{3.f, 4.f, 0.f, 0.f, 11.f, 22.f}));
}

TEST(ScatterNdTest, BoolOrsAndOutOfBoundsIndex) {
  OpTest t;
  const int indices = t.AddInput(kTfLiteInt32, {2, 2});
  const int updates = t.AddInput(kTfLiteBool, {2});
  const int shape = t.AddInput(kTfLiteInt32, {2});  // run-time shape: output sized in Eval
  const int out = t.AddOutput(kTfLiteBool);
  t.AddOp(kTfLiteBuiltinScatterNd, {indices, updates, shape}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {1, 1, 1, 1});
  t.SetInput<uint8_t>(1, {1, 0});
  t.SetInput<int32_t>(2, {2, 2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<bool>(0), (std::vector<bool>{false, false, false, true}));
  t.SetInput<int32_t>(0, {1, 1, 2, 0});  // flat position 4 of a 4-element output
  EXPECT_FALSE(t.Invoke().ok());
}

// ---- SEGMENT_SUM, UNSORTED_SEGMENT_* -----------------------------------------------------------

TEST(SegmentSumTest, ConstantIdsSizeAtPrepare) {
  OpTest t;
  const int data = t.AddInput(kTfLiteFloat32, {4, 2});
  const int ids = t.AddConst<int32_t>(kTfLiteInt32, {4}, {0, 0, 1, 1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSegmentSum, {data, ids}, {out});
  ASSERT_TRUE(t.Build().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2}));
  t.SetInput<float>(0, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{4.f, 6.f, 12.f, 14.f}));
}

TEST(SegmentSumTest, RunTimeIdsAreValidated) {
  OpTest t;
  const int data = t.AddInput(kTfLiteInt32, {3});
  const int ids = t.AddInput(kTfLiteInt32, {3});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinSegmentSum, {data, ids}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {5, 6, 7});
  t.SetInput<int32_t>(1, {0, 1, 2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{5, 6, 7}));
  t.SetInput<int32_t>(1, {0, 0, 1000000});  // a gap: would write far outside the output
  EXPECT_FALSE(t.Invoke().ok());
  t.SetInput<int32_t>(1, {1, 1, 1});  // must start at 0
  EXPECT_FALSE(t.Invoke().ok());
}

TEST(SegmentSumTest, RefusesUnsortedConstantIds) {
  OpTest t;
  const int data = t.AddInput(kTfLiteFloat32, {3});
  const int ids = t.AddConst<int32_t>(kTfLiteInt32, {3}, {0, 2, 1});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinSegmentSum, {data, ids}, {out});
  EXPECT_FALSE(t.Build().ok());
}

// data {1..5}, ids {0, 2, 0, -1, 2} (the -1 row is dropped), 4 segments.
std::vector<float> RunUnsortedSegment(int op) {
  OpTest t;
  const int data = t.AddInput(kTfLiteFloat32, {5});
  const int ids = t.AddConst<int32_t>(kTfLiteInt32, {5}, {0, 2, 0, -1, 2});
  const int num = t.AddConst<int32_t>(kTfLiteInt32, {}, {4});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(op, {data, ids, num}, {out});
  EXPECT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1.f, 2.f, 3.f, 4.f, 5.f});
  EXPECT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{4}));
  return t.GetOutput<float>(0);
}

TEST(UnsortedSegmentTest, FourReductions) {
  const float lowest = std::numeric_limits<float>::lowest();
  const float max = std::numeric_limits<float>::max();
  EXPECT_EQ(RunUnsortedSegment(kTfLiteBuiltinUnsortedSegmentSum), (std::vector<float>{4.f, 0.f, 7.f, 0.f}));
  EXPECT_EQ(RunUnsortedSegment(kTfLiteBuiltinUnsortedSegmentProd), (std::vector<float>{3.f, 1.f, 10.f, 1.f}));
  EXPECT_EQ(RunUnsortedSegment(kTfLiteBuiltinUnsortedSegmentMax), (std::vector<float>{3.f, lowest, 5.f, lowest}));
  EXPECT_EQ(RunUnsortedSegment(kTfLiteBuiltinUnsortedSegmentMin), (std::vector<float>{1.f, max, 2.f, max}));
}

TEST(UnsortedSegmentTest, TwoDimensionalIdsAndRunTimeRefusal) {
  OpTest t;
  const int data = t.AddInput(kTfLiteInt32, {2, 2, 2});
  const int ids = t.AddInput(kTfLiteInt32, {2, 2});
  const int num = t.AddInput(kTfLiteInt32, {1});
  const int out = t.AddOutput(kTfLiteInt32);
  t.AddOp(kTfLiteBuiltinUnsortedSegmentMax, {data, ids, num}, {out});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<int32_t>(0, {1, 2, 3, 4, 5, 6, 7, 8});
  t.SetInput<int32_t>(1, {1, 0, 1, 0});
  t.SetInput<int32_t>(2, {2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(t.GetOutput<int32_t>(0), (std::vector<int32_t>{7, 8, 5, 6}));
  t.SetInput<int32_t>(1, {0, 0, 2, 0});  // id 2 with 2 segments
  EXPECT_FALSE(t.Invoke().ok());
}

// ---- RFFT2D, COMPLEX_ABS -----------------------------------------------------------------------

TEST(Rfft2dTest, TwoByFourSpectrum) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 4});
  const int len = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 4});
  const int out = t.AddOutput(kTfLiteComplex64);
  t.AddOp(kTfLiteBuiltinRfft2d, {in, len}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 2, 3, 4, 5, 6, 7, 8}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
  // Rows: DFT[1,2,3,4] = {10, -2+2i, -2}, DFT[5,6,7,8] = {26, -2+2i, -2}; columns: sum, difference.
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{36, 0, -4, 4, -4, 0, -16, 0, 0, 0, 0, 0}));
}

TEST(Rfft2dTest, PadsAndCropsEachSlice) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 1, 5});
  const int len = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 4});
  const int out = t.AddOutput(kTfLiteComplex64);
  t.AddOp(kTfLiteBuiltinRfft2d, {in, len}, {out});
  // Each slice's row is cropped to 4 values; the second row is zero padding.
  ASSERT_TRUE(t.BuildAndInvoke<float>({1, 1, 1, 0, 9, 0, 1, 0, 0, 9}).ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 2, 3}));
  EXPECT_EQ(t.GetOutput<float>(0),
            (std::vector<float>{3, 0, 0, -1, 1, 0, 3, 0, 0, -1, 1, 0, 1, 0, 0, -1, -1, 0, 1, 0, 0, -1, -1, 0}));
}

TEST(Rfft2dTest, RefusesLengthNotPowerOfTwo) {
  OpTest t;
  const int in = t.AddInput(kTfLiteFloat32, {2, 4});
  const int len = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 6});
  const int out = t.AddOutput(kTfLiteComplex64);
  t.AddOp(kTfLiteBuiltinRfft2d, {in, len}, {out});
  EXPECT_FALSE(t.Build().ok());
}

TEST(ComplexAbsTest, MagnitudesAndTypeRefusal) {
  OpTest t;
  const int in = t.AddInput(kTfLiteComplex64, {2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinComplexAbs, {in}, {out});
  ASSERT_TRUE(t.BuildAndInvoke<float>({3.f, 4.f, 0.f, -2.f}).ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{5.f, 2.f}));

  OpTest r;
  const int rin = r.AddInput(kTfLiteFloat32, {2});
  const int rout = r.AddOutput(kTfLiteFloat32);
  r.AddOp(kTfLiteBuiltinComplexAbs, {rin}, {rout});
  EXPECT_FALSE(r.Build().ok());
}

}  // namespace
}  // namespace touchstone
