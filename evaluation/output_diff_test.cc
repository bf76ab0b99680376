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

// Runs split between accumulators (shards), each numbered from its first run, appended in order: the
// summary is bit for bit the one accumulator's over every run.
TEST(OutputDiffTest, AppendedShardsSummariseAsOneAccumulator) {
  std::vector<std::vector<float>> refs, tests;
  uint32_t x = 12345;
  auto next = [&]() {
    x = x * 1664525u + 1013904223u;
    return static_cast<float>(x >> 8) / 16777216.0f - 0.5f;
  };
  for (int run = 0; run < 9; ++run) {
    std::vector<float> r(6), t(6);
    for (size_t i = 0; i < r.size(); ++i) {
      r[i] = next();
      t[i] = r[i] + (run == 4 && i == 2 ? 0.5f : run == 6 && i == 1 ? 0.5f : 0.01f * next());
    }
    if (run == 7) t[3] = std::numeric_limits<float>::infinity();
    refs.push_back(r);
    tests.push_back(t);
  }
  TensorDiffAccumulator whole;
  for (size_t run = 0; run < refs.size(); ++run) {
    TestTensor r(kTfLiteFloat32, &refs[run]), t(kTfLiteFloat32, &tests[run]);
    ASSERT_TRUE(whole.AddRun(r.tensor, t.tensor).ok());
  }
  for (const std::vector<size_t>& cuts : std::vector<std::vector<size_t>>{{0, 9}, {3, 5}, {1, 2, 4, 5, 7, 8}, {9, 9}}) {
    TensorDiffAccumulator merged;
    size_t begin = 0;
    for (size_t p = 0; p <= cuts.size(); ++p) {
      const size_t end = p < cuts.size() ? cuts[p] : refs.size();
      TensorDiffAccumulator shard;
      shard.set_first_run(static_cast<int64_t>(begin));
      for (size_t run = begin; run < end; ++run) {
        TestTensor r(kTfLiteFloat32, &refs[run]), t(kTfLiteFloat32, &tests[run]);
        ASSERT_TRUE(shard.AddRun(r.tensor, t.tensor).ok());
      }
      // Carried as a state (what a shard report holds).
      merged.Append(TensorDiffAccumulator(shard.state()).state());
      begin = end;
    }
    const TensorDiffSummary a = whole.Summary(), b = merged.Summary();
    EXPECT_EQ(a.runs, b.runs);
    EXPECT_EQ(a.avg_error, b.avg_error);  // inf: a nonfinite mismatch in run 7
    EXPECT_EQ(a.std_dev, b.std_dev);
    EXPECT_EQ(a.max_abs_error, b.max_abs_error);
    EXPECT_EQ(a.mean_relative_error, b.mean_relative_error);
    EXPECT_EQ(a.max_relative_error, b.max_relative_error);
    EXPECT_EQ(a.cosine_similarity, b.cosine_similarity);
    EXPECT_EQ(a.max_abs_error_run, b.max_abs_error_run);
    EXPECT_EQ(a.max_abs_error_index, b.max_abs_error_index);
    EXPECT_EQ(a.reference_at_max, b.reference_at_max);
    EXPECT_EQ(a.test_at_max, b.test_at_max);
    EXPECT_EQ(a.elements, b.elements);
    EXPECT_EQ(a.elements_differing, b.elements_differing);
    EXPECT_EQ(a.nonfinite_mismatches, b.nonfinite_mismatches);
  }
  // Without the infinity: the first of two equal maxima (runs 4 and 6) is the one named.
  TensorDiffAccumulator finite_whole, finite_merged;
  for (size_t run = 0; run < 7; ++run) {
    TestTensor r(kTfLiteFloat32, &refs[run]), t(kTfLiteFloat32, &tests[run]);
    ASSERT_TRUE(finite_whole.AddRun(r.tensor, t.tensor).ok());
  }
  for (size_t begin : {0, 5}) {
    TensorDiffAccumulator shard;
    shard.set_first_run(static_cast<int64_t>(begin));
    for (size_t run = begin; run < (begin == 0 ? 5u : 7u); ++run) {
      TestTensor r(kTfLiteFloat32, &refs[run]), t(kTfLiteFloat32, &tests[run]);
      ASSERT_TRUE(shard.AddRun(r.tensor, t.tensor).ok());
    }
    finite_merged.Append(shard.state());
  }
  EXPECT_EQ(finite_whole.Summary().max_abs_error_run, finite_merged.Summary().max_abs_error_run);
  EXPECT_EQ(finite_whole.Summary().avg_error, finite_merged.Summary().avg_error);
  EXPECT_EQ(finite_whole.Summary().std_dev, finite_merged.Summary().std_dev);
}

TEST(OutputDiffTest, AppendedQuantizedHistogramsAdd) {
  std::vector<int8_t> ref = {0, 10, -5, 100}, a = {0, 11, -7, 90}, b = {1, 10, -5, 100};
  TestTensor r(kTfLiteInt8, &ref), ta(kTfLiteInt8, &a), tb(kTfLiteInt8, &b);
  for (TestTensor* t : {&r, &ta, &tb}) {
    t->tensor.quantization.type = kTfLiteAffineQuantization;
    t->tensor.params.scale = 0.5f;
    t->tensor.params.zero_point = 3;
  }
  TensorDiffAccumulator whole, first, second;
  ASSERT_TRUE(whole.AddRun(r.tensor, ta.tensor).ok());
  ASSERT_TRUE(whole.AddRun(r.tensor, tb.tensor).ok());
  ASSERT_TRUE(first.AddRun(r.tensor, ta.tensor).ok());
  second.set_first_run(1);
  ASSERT_TRUE(second.AddRun(r.tensor, tb.tensor).ok());
  first.Append(second.state());
  EXPECT_EQ(whole.Summary().step_histogram, first.Summary().step_histogram);
  EXPECT_EQ(first.Summary().step_histogram[0], 4);
  EXPECT_TRUE(first.Summary().quantized);
  EXPECT_EQ(whole.Summary().avg_error_dequantized, first.Summary().avg_error_dequantized);
  // Steps by power of two: 1 (2^0), 2 (2^1), 10 (2^3), and one 1-step difference in the second run.
  EXPECT_EQ(first.Summary().error_log2_histogram, (std::vector<std::pair<int, int64_t>>{{0, 2}, {1, 1}, {3, 1}}));
  EXPECT_EQ(first.Summary().zero_errors, 4);
  EXPECT_EQ(whole.Summary().error_log2_histogram, first.Summary().error_log2_histogram);
}

}  // namespace
}  // namespace touchstone
