#include "evaluation/classification_report.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace touchstone {
namespace {

// Four images of two classes; the model ranks output 0 ("cat") or 1 ("dog") first.
struct Fixture {
  std::vector<LabelledImage> images = {
      {"/a/1.jpg", "cat"}, {"/a/2.jpg", "cat"}, {"/a/3.jpg", "dog"}, {"/a/4.jpg", "dog"}};
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

// The fixture's images [first, end) as one run over them would report them (image indices into the whole
// list), as a shard of `count` when count > 0.
nlohmann::ordered_json PartReport(const Fixture& f, int first, int end, int index, int count) {
  const std::vector<std::vector<double>> scores = {{0.9, 0.1}, {0.8, 0.2}, {0.7, 0.3}, {0.4, 0.6}};
  static ClassificationResult result;  // the report points at it
  result = ClassificationResult();
  result.output_labels = f.result.output_labels;
  result.topk = TopKAccumulator(2);
  for (int i = first; i < end; ++i) {
    const int rank = result.topk.Add(scores[i], result.output_labels, f.images[i].label);
    result.evaluated.push_back({i, scores[i][0] > scores[i][1] ? 0 : 1, rank, std::max(scores[i][0], scores[i][1])});
    result.inference_us.Add(100 + i);
    result.preprocessing_us.Add(10 + i);
  }
  result.wall_seconds = 0.5;
  ClassificationReport report;
  report.envelope.start_time = "2026-11-28T00:00:00Z";
  report.envelope.touchstone_version = "v1";
  report.envelope.config.settings = DatasetSettings(f.images, f.result.output_labels, "tflite_default", 0);
  if (count > 0) report.envelope.shard = ShardPart(ShardSpecFromFlags(index, count).value(), 4, "images");
  report.images = &f.images;
  report.result = &result;
  report.image_root = "/a";
  return ClassificationReportJson(report);
}

TEST(ClassificationReportTest, MergedShardsEqualTheWholeRun) {
  Fixture f;
  const nlohmann::ordered_json whole = PartReport(f, 0, 4, 0, 0);
  EXPECT_EQ(whole["worst_misclassified"].size(), 1u);
  EXPECT_EQ(whole["worst_misclassified"][0]["file"], "3.jpg");
  EXPECT_EQ(whole["worst_misclassified"][0]["top1_label"], "cat");
  for (int count : {1, 2, 3, 6}) {
    std::vector<ShardReport> shards;
    for (int index = count - 1; index >= 0; --index) {
      const ShardInfo part = ShardPart(ShardSpecFromFlags(index, count).value(), 4, "images");
      ShardReport r;
      r.path = "s" + std::to_string(index) + ".json";
      r.json = PartReport(f, static_cast<int>(part.first), static_cast<int>(part.end), index, count);
      EXPECT_TRUE(r.json["latency"]["inference"].contains("state"));
      shards.push_back(r);
    }
    ASSERT_TRUE(CheckShardReports(2, &shards).ok());
    StatusOr<nlohmann::ordered_json> merged = MergeClassificationShards(shards);
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    const nlohmann::ordered_json& m = merged.value();
    for (const char* key : {"num_evaluation_runs", "topk_accuracy", "topk_hits", "per_class", "predictions", "skipped",
                            "reference", "images", "worst_misclassified", "configuration", "model"}) {
      EXPECT_EQ(m[key].dump(), whole[key].dump()) << key << " with " << count << " shards";
    }
    EXPECT_EQ(m["latency"]["inference"]["count"], 4);
    EXPECT_FALSE(m["latency"]["inference"].contains("state"));
    EXPECT_EQ(m["latency"]["inference"]["tflite"]["avg"].get<double>(), 101.5);
    EXPECT_EQ(m["merged"]["shards"], count);
    EXPECT_FALSE(m.contains("shard"));
    EXPECT_DOUBLE_EQ(m["wall_seconds"].get<double>(), 0.5 * count);
  }
  // A shard report is not a baseline for a whole run.
  const StatusOr<ClassificationBaseline> shard = ParseClassificationReport(PartReport(f, 0, 2, 0, 2).dump(), "s.json");
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(
      ConfigDifferences(shard.value().envelope, ParseClassificationReport(whole.dump(), "w.json").value().envelope),
      (std::vector<std::string>{"shard 0 of 2 -> whole run"}));
}

}  // namespace
}  // namespace touchstone
