#include "evaluation/detection_report.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(DetectionReportTest, PerClassApBothMetrics) {
  CocoMetrics coco;
  coco.values[0] = 0.5;
  coco.category_ap = {{1, 1.0}, {2, 0.0}, {3, -1.0}};
  TfliteApResult tflite;
  tflite.overall_map = 0.25f;
  tflite.class_ap = {{1, 0.5f}, {4, 0.0f}};
  const nlohmann::ordered_json list = PerClassApJson(&coco, &tflite, {{1, "person"}, {2, "bicycle"}});
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0]["name"], "person");
  EXPECT_DOUBLE_EQ(list[0]["coco_ap"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(list[0]["tflite_ap"].get<double>(), 0.5);
  EXPECT_TRUE(list[2]["coco_ap"].is_null());  // no ground truth
  EXPECT_EQ(list[3]["name"], "class 4");
  EXPECT_TRUE(list[3]["coco_ap"].is_null());

  nlohmann::json report = {{"coco", {{"AP", 0.5}}}, {"tflite", {{"overall_map", 0.25}}}};
  report["per_class"] = nlohmann::json::parse(list.dump());
  const DetectionRun run = DetectionRunOf(report);
  ASSERT_EQ(run.metrics.size(), 2u);
  EXPECT_EQ(run.metrics[0].first, "coco AP");
  EXPECT_EQ(run.metrics[1].first, "tflite mAP");
  // COCO's AP where a class has one, else TFLite's.
  ASSERT_EQ(run.class_ap.size(), 3u);
  EXPECT_EQ(run.class_ap[2], (std::pair<std::string, double>{"class 4", 0.0}));
}

TEST(DetectionReportTest, SettingsNameTheImageSet) {
  std::vector<CocoImage> images(2);
  images[0].id = 1;
  images[0].file_name = "a.jpg";
  images[1].id = 2;
  images[1].file_name = "b.jpg";
  const auto settings = DetectionSettings(images, "0123456789abcdef", "both", 1);
  EXPECT_EQ(settings[0], (std::pair<std::string, std::string>{"images", "2"}));
  EXPECT_EQ(settings[2], (std::pair<std::string, std::string>{"ground_truth_sha256", "0123456789ab"}));
  images.pop_back();
  EXPECT_NE(DetectionSettings(images, "0123456789abcdef", "both", 1)[1].second, settings[1].second);
  EXPECT_EQ(ParseDetectionReport("{}", "x.json").status().code(), StatusCode::kInvalidInput);
}

// Three 100x50 images, one box each of class 1; the model finds two of them and adds a false positive.
struct DetectionFixture {
  CocoDataset gt;
  std::vector<std::vector<TfliteBox>> predicted;
  DetectionFixture() {
    for (int i = 0; i < 3; ++i) {
      gt.images.push_back({i + 1, "i" + std::to_string(i) + ".jpg", 100, 50});
      gt.annotations.push_back({/*image_id=*/i + 1, /*category_id=*/1, 10, 5, 40, 20, /*area=*/800});
    }
    gt.categories = {{1, "cat"}, {2, "dog"}};
    const TfliteBox hit{0.1f, 0.1f, 0.5f, 0.5f, /*class_id=*/1, /*score=*/0.9f};
    const TfliteBox wrong{0.1f, 0.1f, 0.5f, 0.5f, /*class_id=*/2, /*score=*/0.7f};
    predicted = {{hit}, {hit, wrong}, {}};
  }
};

TEST(DetectionReportTest, ExamplesMarkHitsMissesAndFalsePositives) {
  DetectionFixture f;
  const std::vector<std::vector<TfliteBox>> truth = TfliteGroundTruth(f.gt, f.gt.images);
  ASSERT_EQ(truth[0].size(), 1u);
  EXPECT_FLOAT_EQ(truth[0][0].ymax, 0.5f);
  const std::vector<CocoBox> detections = CocoDetections(f.gt.images, f.predicted);
  ASSERT_EQ(detections.size(), 3u);
  EXPECT_DOUBLE_EQ(detections[0].w, static_cast<double>(0.5f - 0.1f) * 100);
  const DetectionScores scores = ScoreDetections("both", &f.gt, f.gt.images, truth, f.predicted, detections);
  ASSERT_FALSE(scores.coco.is_null());
  ASSERT_EQ(scores.pr_curves["precision"].size(), 10u);
  ASSERT_EQ(scores.examples.size(), 3u);
  // Most errors first: image 2 (one false positive) and image 3 (one miss) before image 1 (none).
  EXPECT_EQ(scores.examples[0]["image_id"], 2);
  EXPECT_EQ(scores.examples[0]["false_positives"], 1);
  EXPECT_EQ(scores.examples[0]["detections"][1]["name"], "dog");
  EXPECT_FALSE(scores.examples[0]["detections"][1]["hit"].get<bool>());
  EXPECT_EQ(scores.examples[1]["image_id"], 3);
  EXPECT_EQ(scores.examples[1]["missed"], 1);
  EXPECT_TRUE(scores.examples[2]["ground_truth"][0]["hit"].get<bool>());
  EXPECT_TRUE(ScoreDetections("tflite", &f.gt, f.gt.images, truth, f.predicted, detections).pr_curves.is_null());
}

TEST(DetectionReportTest, MergedShardsScoreAsTheWholeRun) {
  DetectionFixture f;
  const std::string sha = std::string(64, 'e');
  const std::vector<std::vector<TfliteBox>> truth = TfliteGroundTruth(f.gt, f.gt.images);
  const DetectionScores whole =
      ScoreDetections("both", &f.gt, f.gt.images, truth, f.predicted, CocoDetections(f.gt.images, f.predicted));
  std::vector<ShardReport> shards;
  for (int index = 0; index < 2; ++index) {
    ReportEnvelope e{kDetectionReportSchema, kDetectionReportVersion, "coco_eval"};
    e.config.settings = DetectionSettings(f.gt.images, sha, "both", 1);
    e.shard = ShardPart(ShardSpecFromFlags(index, 2).value(), 3, "images");
    const std::vector<CocoImage> images(f.gt.images.begin() + e.shard.first, f.gt.images.begin() + e.shard.end);
    const std::vector<std::vector<TfliteBox>> predicted(f.predicted.begin() + e.shard.first,
                                                        f.predicted.begin() + e.shard.end);
    ShardReport r;
    r.path = "s" + std::to_string(index) + ".json";
    r.json = EnvelopeJson(e);
    r.json["detections"] = ShardDetectionsJson(images, predicted);
    shards.push_back(r);
  }
  ASSERT_TRUE(CheckShardReports(kDetectionReportVersion, &shards).ok());
  StatusOr<nlohmann::ordered_json> merged = MergeDetectionShards(shards, f.gt, sha);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged.value()["coco"].dump(), whole.coco.dump());
  EXPECT_EQ(merged.value()["tflite"].dump(), whole.tflite.dump());
  EXPECT_EQ(merged.value()["per_class"].dump(), whole.per_class.dump());
  EXPECT_EQ(merged.value()["examples"].dump(), whole.examples.dump());
  EXPECT_EQ(merged.value()["num_detections"], 3);
  // Another ground truth file is refused.
  EXPECT_NE(MergeDetectionShards(shards, f.gt, std::string(64, 'f')).status().message().find("is not the one"),
            std::string::npos);
}

}  // namespace
}  // namespace touchstone
