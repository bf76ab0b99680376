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

}  // namespace
}  // namespace touchstone
