#include "evaluation/output_diff.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace touchstone {
namespace {

// A tensor view over caller-owned data.
struct TestTensor {
  TfLiteTensor tensor{};
  TfLiteIntArray* dims;
  template <typename T>
  TestTensor(TfLiteType type, std::vector<T>* data) {
    dims = TfLiteIntArrayCreate(1);
    dims->data[0] = static_cast<int>(data->size());
    tensor.type = type;
    tensor.dims = dims;
    tensor.data.raw = reinterpret_cast<char*>(data->data());
    tensor.bytes = data->size() * sizeof(T);
    tensor.name = "t";
  }
  ~TestTensor() { TfLiteIntArrayFree(dims); }
};

TEST(OutputDiffTest, FloatFiguresByHand) {
  std::vector<float> ref = {1, -2, 4, 0}, test = {1.5f, -2, 3, 0};
  TestTensor r(kTfLiteFloat32, &ref), t(kTfLiteFloat32, &test);
  TensorDiffAccumulator acc;
  ASSERT_TRUE(acc.AddRun(r.tensor, t.tensor).ok());
  TensorDiffSummary s = acc.Summary();
  EXPECT_DOUBLE_EQ(s.avg_error, (0.5 + 0 + 1 + 0) / 4);
  EXPECT_DOUBLE_EQ(s.std_dev, 0.0);
  EXPECT_DOUBLE_EQ(s.max_abs_error, 1.0);
  EXPECT_DOUBLE_EQ(s.mean_relative_error, 0.375 / 4);
  const double dot = 1.5 + 4 + 12, nr = std::sqrt(1 + 4 + 16.0), nt = std::sqrt(2.25 + 4 + 9.0);
  EXPECT_NEAR(s.cosine_similarity, dot / (nr * nt), 1e-12);
}

TEST(OutputDiffTest, StdDevAcrossRunsAndIdenticalRuns) {
  std::vector<float> ref = {0, 0}, a = {1, 1}, b = {3, 3};
  TestTensor r(kTfLiteFloat32, &ref), ta(kTfLiteFloat32, &a), tb(kTfLiteFloat32, &b);
  TensorDiffAccumulator acc;
  ASSERT_TRUE(acc.AddRun(r.tensor, ta.tensor).ok());
  ASSERT_TRUE(acc.AddRun(r.tensor, tb.tensor).ok());
  EXPECT_DOUBLE_EQ(acc.Summary().avg_error, 2.0);
  EXPECT_DOUBLE_EQ(acc.Summary().std_dev, 1.0);
  TensorDiffAccumulator same;
  ASSERT_TRUE(same.AddRun(ta.tensor, ta.tensor).ok());
  EXPECT_EQ(same.Summary().avg_error, 0.0);
  EXPECT_EQ(same.Summary().max_abs_error, 0.0);
  EXPECT_DOUBLE_EQ(same.Summary().cosine_similarity, 1.0);
}

TEST(OutputDiffTest, QuantizedStepHistogram) {
  std::vector<int8_t> ref = {0, 10, -5, 100, 7}, test = {0, 11, -7, 90, 7};
  TestTensor r(kTfLiteInt8, &ref), t(kTfLiteInt8, &test);
  for (TestTensor* x : {&r, &t}) {
    x->tensor.quantization.type = kTfLiteAffineQuantization;
    x->tensor.params.scale = 0.5f;
    x->tensor.params.zero_point = 0;
  }
  TensorDiffAccumulator acc;
  ASSERT_TRUE(acc.AddRun(r.tensor, t.tensor).ok());
  TensorDiffSummary s = acc.Summary();
  ASSERT_TRUE(s.quantized);
  EXPECT_EQ(s.step_histogram[0], 2);
  EXPECT_EQ(s.step_histogram[1], 1);
  EXPECT_EQ(s.step_histogram[2], 1);
  EXPECT_EQ(s.step_histogram[3], 1);
  EXPECT_DOUBLE_EQ(s.max_abs_error, 10.0);
  EXPECT_DOUBLE_EQ(s.max_abs_error_dequantized, 5.0);
}

TEST(OutputDiffTest, ShapeOrTypeMismatchIsAnError) {
  std::vector<float> a = {1, 2}, b = {1, 2, 3};
  std::vector<int32_t> c = {1, 2};
  TestTensor ta(kTfLiteFloat32, &a), tb(kTfLiteFloat32, &b), tc(kTfLiteInt32, &c);
  TensorDiffAccumulator acc;
  EXPECT_FALSE(acc.AddRun(ta.tensor, tb.tensor).ok());
  EXPECT_FALSE(acc.AddRun(ta.tensor, tc.tensor).ok());
}

TEST(OutputDiffTest, WhereTheLargestDifferenceIsAndHowManyDiffer) {
  std::vector<float> ref = {1, 2, 3, 4}, a = {1, 2.5f, 3, 4}, b = {1, 2, 3, 7};
  TestTensor r(kTfLiteFloat32, &ref), ta(kTfLiteFloat32, &a), tb(kTfLiteFloat32, &b);
  TensorDiffAccumulator acc;
  ASSERT_TRUE(acc.AddRun(r.tensor, ta.tensor).ok());
  ASSERT_TRUE(acc.AddRun(r.tensor, tb.tensor).ok());
  TensorDiffSummary s = acc.Summary();
  EXPECT_EQ(s.elements, 4);
  EXPECT_EQ(s.elements_differing, 2);
  EXPECT_EQ(s.max_abs_error_run, 1);
  EXPECT_EQ(s.max_abs_error_index, 3);
  EXPECT_EQ(s.reference_at_max, 4.0);
  EXPECT_EQ(s.test_at_max, 7.0);
  TensorDiffAccumulator same;
  ASSERT_TRUE(same.AddRun(r.tensor, r.tensor).ok());
  EXPECT_EQ(same.Summary().max_abs_error_index, -1);
  EXPECT_EQ(same.Summary().elements_differing, 0);
}

TEST(OutputDiffTest, NonFiniteValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // The same NaN / infinity on both sides is no difference (a reference against itself is exactly 0).
  std::vector<float> ref = {nan, inf, -inf, 1.0f, -0.0f}, same = {nan, inf, -inf, 1.0f, 0.0f};
  TestTensor r(kTfLiteFloat32, &ref), s(kTfLiteFloat32, &same);
  TensorDiffAccumulator acc;
  ASSERT_TRUE(acc.AddRun(r.tensor, s.tensor).ok());
  EXPECT_EQ(acc.Summary().avg_error, 0.0);
  EXPECT_EQ(acc.Summary().max_abs_error, 0.0);
  EXPECT_EQ(acc.Summary().nonfinite_mismatches, 0);
  EXPECT_DOUBLE_EQ(acc.Summary().cosine_similarity, 1.0);
  // A NaN or infinity against anything else: an infinite error, counted, and never a silent pass.
  std::vector<float> wrong = {1.0f, inf, inf, nan, 0.0f};
  TestTensor w(kTfLiteFloat32, &wrong);
  TensorDiffAccumulator bad;
  ASSERT_TRUE(bad.AddRun(r.tensor, w.tensor).ok());
  TensorDiffSummary b = bad.Summary();
  EXPECT_EQ(b.nonfinite_mismatches, 3);
  EXPECT_TRUE(std::isinf(b.avg_error));
  EXPECT_TRUE(std::isinf(b.max_abs_error));
  EXPECT_EQ(b.max_abs_error_index, 0);
  EXPECT_FALSE(std::isnan(b.cosine_similarity));
}

TEST(OutputDiffTest, ComplexAndNonNumericTensors) {
  std::vector<float> ref = {1, 2, 3, 4}, test = {1, 2, 3, 5};  // two complex64 elements
  TestTensor r(kTfLiteFloat32, &ref), t(kTfLiteFloat32, &test);
  for (TestTensor* x : {&r, &t}) {
    x->tensor.type = kTfLiteComplex64;
    x->dims->data[0] = 2;
  }
  TensorDiffAccumulator acc;
  ASSERT_TRUE(acc.AddRun(r.tensor, t.tensor).ok());
  EXPECT_EQ(acc.Summary().elements, 4);
  EXPECT_DOUBLE_EQ(acc.Summary().avg_error, 0.25);
  EXPECT_EQ(acc.Summary().max_abs_error_index, 3);

  std::vector<uint8_t> a = {1, 2, 3}, b = {1, 2, 4};
  TestTensor sa(kTfLiteUInt8, &a), sb(kTfLiteUInt8, &b);
  for (TestTensor* x : {&sa, &sb}) x->tensor.type = kTfLiteString;
  TensorDiffAccumulator strings;
  ASSERT_TRUE(strings.AddRun(sa.tensor, sa.tensor).ok());
  ASSERT_TRUE(strings.AddRun(sa.tensor, sb.tensor).ok());
  TensorDiffSummary s = strings.Summary();
  EXPECT_TRUE(s.compared_bytewise);
  EXPECT_DOUBLE_EQ(s.avg_error, 0.5);
  EXPECT_EQ(s.max_abs_error, 1.0);
  EXPECT_EQ(s.max_abs_error_run, 1);
}

TEST(OutputDiffTest, TypeNames) {
  EXPECT_EQ(TypeName(kTfLiteFloat32), "float32");
  EXPECT_EQ(TypeName(kTfLiteInt8), "int8");
  EXPECT_TRUE(IsNumericType(kTfLiteBool));
  EXPECT_FALSE(IsNumericType(kTfLiteString));
}

}  // namespace
}  // namespace touchstone
