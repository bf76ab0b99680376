#include "evaluation/classification_report.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

// Four images of two classes; the model ranks output 0 ("cat") or 1 ("dog") first.
struct Fixture {
  std::vector<LabelledImage> images = {{"/a/1.jpg", "cat"}, {"/a/2.jpg", "cat"}, {"/a/3.jpg", "dog"}, {"/a/4.jpg", "dog"}};
  ClassificationResult result;
  Fixture() {
    result.output_labels = {"cat", "dog"};
    // Images 0, 1 and 3 right (rank 1); image 2 wrong (its label second: rank 2).
    result.evaluated = {{0, 0, 1}, {1, 0, 1}, {2, 0, 2}, {3, 1, 1}};
    const std::vector<std::string> labels = {"cat", "dog"};
    result.topk = TopKAccumulator(2);
    result.topk.Add({0.9, 0.1}, labels, "cat");
    result.topk.Add({0.8, 0.2}, labels, "cat");
    result.topk.Add({0.7, 0.3}, labels, "dog");
    result.topk.Add({0.4, 0.6}, labels, "dog");
  }
};

TEST(ClassificationReportTest, PerClassAccuracy) {
  Fixture f;
  const std::vector<ClassAccuracy> classes = PerClassAccuracy(f.images, f.result);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].label, "cat");
  EXPECT_EQ(classes[0].images, 2);
  EXPECT_EQ(classes[0].top1_hits, 2);
  EXPECT_EQ(classes[1].label, "dog");
  EXPECT_EQ(classes[1].top1_hits, 1);
  EXPECT_EQ(classes[1].top5_hits, 2);
}

TEST(ClassificationReportTest, RoundTripAndGate) {
  Fixture f;
  ClassificationReport report;
  report.envelope.start_time = "2026-11-28T00:00:00Z";
  report.envelope.config.settings = DatasetSettings(f.images, f.result.output_labels, "tflite_default", 0);
  report.images = &f.images;
  report.result = &f.result;
  const nlohmann::ordered_json j = ClassificationReportJson(report);
  EXPECT_DOUBLE_EQ(j["topk_accuracy"][0].get<double>(), 0.75);
  EXPECT_EQ(j["per_class"][1]["label"], "dog");
  EXPECT_DOUBLE_EQ(j["per_class"][1]["top1_accuracy"].get<double>(), 0.5);
  const StatusOr<ClassificationBaseline> baseline = ParseClassificationReport(j.dump(), "base.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status().message();
  EXPECT_EQ(baseline.value().top1_index, (std::vector<int>{0, 0, 0, 1}));
  EXPECT_TRUE(ConfigDifferences(baseline.value().envelope, report.envelope).empty());

  // The current run now gets image 2 right and image 1 wrong: same accuracy, two changed images.
  Fixture now;
  now.result.evaluated[1] = {1, 1, 2};
  now.result.evaluated[2] = {2, 1, 1};
  AccuracyRun base_run, current_run;
  AccuracyRuns(baseline.value(), now.images, now.result, &base_run, &current_run);
  EXPECT_EQ(current_run.images, (std::vector<std::string>{"1.jpg", "2.jpg", "3.jpg", "4.jpg"}));
  AccuracyGateConfig config;
  config.require_same_predictions = true;
  const AccuracyGateResult r = CompareAccuracy(base_run, current_run, config);
  EXPECT_EQ(r.verdict, GateVerdict::kRegression);
  EXPECT_EQ(r.first_changed, (std::vector<std::string>{"2.jpg: cat -> dog", "3.jpg: cat -> dog"}));

  // Another image set is another configuration.
  std::vector<LabelledImage> other = f.images;
  other[0].label = "dog";
  ReportEnvelope changed = report.envelope;
  changed.config.settings = DatasetSettings(other, f.result.output_labels, "tflite_default", 0);
  const std::vector<std::string> differences = ConfigDifferences(baseline.value().envelope, changed);
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].rfind("dataset_sha256 ", 0), 0u) << differences[0];
  EXPECT_EQ(ParseClassificationReport("[]", "x.json").status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace touchstone
