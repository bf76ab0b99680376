#include "evaluation/coco_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "datasets/coco_json.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

CocoBox Box(int64_t image, int64_t category, double x, double y, double w, double h, double score = 0,
            bool crowd = false) {
  CocoBox b;
  b.image_id = image;
  b.category_id = category;
  b.x = x, b.y = y, b.w = w, b.h = h;
  b.area = w * h;
  b.score = score;
  b.iscrowd = crowd;
  return b;
}

// Found by the coco_json fuzzer: a width of 1e300 was converted to int (undefined behaviour).
TEST(CocoJsonTest, ImageDimensionsMustFitAnInt) {
  const std::string path = ::testing::TempDir() + "/dims.json";
  for (const char* width : {"1e300", "-1", "2147483648", "64.5", "\"64\""}) {
    std::ofstream(path) << "{\"images\":[{\"id\":1,\"width\":" << width << ",\"height\":48}],\"annotations\":[]}";
    auto gt = ReadCocoInstances(path);
    ASSERT_FALSE(gt.ok()) << width;
    EXPECT_NE(gt.status().message().find("images[0] has a width or height"), std::string::npos)
        << gt.status().message();
  }
  std::ofstream(path) << "{\"images\":[{\"id\":1,\"width\":2147483647,\"height\":0}],\"annotations\":[]}";
  auto gt = ReadCocoInstances(path);
  ASSERT_TRUE(gt.ok()) << gt.status().message();
  EXPECT_EQ(gt.value().images[0].width, 2147483647);
}

TEST(CocoMetricsTest, PerfectAndEmptyDetections) {
  std::vector<CocoBox> gt = {Box(1, 1, 10, 10, 50, 50), Box(2, 1, 0, 0, 200, 100)};
  std::vector<CocoBox> perfect = {Box(1, 1, 10, 10, 50, 50, 0.9), Box(2, 1, 0, 0, 200, 100, 0.8)};
  CocoMetrics m = EvaluateCoco(gt, perfect, {1, 2}, {1});
  EXPECT_DOUBLE_EQ(m.values[0], 1.0);
  EXPECT_DOUBLE_EQ(m.values[1], 1.0);
  EXPECT_DOUBLE_EQ(m.values[3], -1.0);  // no small objects
  EXPECT_DOUBLE_EQ(m.values[4], 1.0);   // 2500 px: medium
  EXPECT_DOUBLE_EQ(m.values[5], 1.0);   // 20000 px: large
  EXPECT_DOUBLE_EQ(m.values[6], 1.0);   // one object per image: one detection each finds it
  CocoMetrics none = EvaluateCoco(gt, {}, {1, 2}, {1});
  EXPECT_DOUBLE_EQ(none.values[0], 0.0);
  EXPECT_DOUBLE_EQ(none.values[8], 0.0);
}

TEST(CocoMetricsTest, FalsePositiveAboveTheTruePositive) {
  // One ground truth; a wrong box scores higher than the right one: precision 1/2 at recall 1.
  std::vector<CocoBox> gt = {Box(1, 1, 0, 0, 100, 100)};
  std::vector<CocoBox> dets = {Box(1, 1, 500, 500, 100, 100, 0.9), Box(1, 1, 0, 0, 100, 100, 0.5)};
  CocoMetrics m = EvaluateCoco(gt, dets, {1}, {1});
  EXPECT_NEAR(m.values[1], 0.5, 1e-12);
  EXPECT_NEAR(m.values[8], 1.0, 1e-12);
  EXPECT_NEAR(m.values[6], 0.0, 1e-12);  // maxDets=1 keeps only the wrong box
  // The curves: precision 1/2 at every recall point, at every threshold; their mean is the AP.
  ASSERT_EQ(m.pr_curves.size(), 10u);
  double sum = 0;
  for (const std::vector<double>& curve : m.pr_curves) {
    ASSERT_EQ(curve.size(), 101u);
    for (double p : curve) sum += p;
    EXPECT_NEAR(curve[0], 0.5, 1e-12);
    EXPECT_NEAR(curve[100], 0.5, 1e-12);
  }
  EXPECT_NEAR(sum / 1010, m.values[0], 1e-12);
  EXPECT_EQ(EvaluateCoco({}, dets, {1}, {1}).pr_curves[0][0], -1.0);  // no ground truth
}

TEST(CocoMetricsTest, PerCategoryAp) {
  // Category 1 found perfectly, category 2 missed, category 3 has no ground truth.
  std::vector<CocoBox> gt = {Box(1, 1, 10, 10, 50, 50), Box(1, 2, 100, 100, 50, 50)};
  std::vector<CocoBox> dets = {Box(1, 1, 10, 10, 50, 50, 0.9), Box(1, 2, 300, 300, 50, 50, 0.8)};
  CocoMetrics m = EvaluateCoco(gt, dets, {1}, {3, 1, 2});
  ASSERT_EQ(m.category_ap.size(), 3u);
  EXPECT_EQ(m.category_ap[0].first, 1);
  EXPECT_NEAR(m.category_ap[0].second, 1.0, 1e-12);  // precision 1/(1+eps) at every recall point
  EXPECT_EQ(m.category_ap[1].first, 2);
  EXPECT_EQ(m.category_ap[1].second, 0.0);
  EXPECT_EQ(m.category_ap[2].first, 3);
  EXPECT_EQ(m.category_ap[2].second, -1.0);
  EXPECT_NEAR(m.values[0], 0.5, 1e-12);  // the mean over the categories that have ground truth  // the mean over the
                                         // categories that have ground truth
  // TFLite's per-class AP, the mean over its ten thresholds.
  TfliteBox found{0.1f, 0.1f, 0.5f, 0.5f, 1, 0.9f};
  TfliteBox truth2{0.6f, 0.6f, 0.9f, 0.9f, 2, 0.0f};
  TfliteBox wrong2{0.0f, 0.0f, 0.1f, 0.1f, 2, 0.8f};
  TfliteApResult ap = EvaluateTfliteAp({{found, truth2}}, {{found, wrong2}});
  ASSERT_EQ(ap.class_ap.size(), 2u);
  EXPECT_EQ(ap.class_ap[0].first, 1);
  EXPECT_FLOAT_EQ(ap.class_ap[0].second, 1.0f);
  EXPECT_FLOAT_EQ(ap.class_ap[1].second, 0.0f);
  EXPECT_FLOAT_EQ(ap.overall_map, 0.5f);
}

TEST(CocoMetricsTest, CrowdRegionsAreIgnored) {
  // A detection inside a crowd region is neither a true nor a false positive.
  std::vector<CocoBox> gt = {Box(1, 1, 0, 0, 100, 100), Box(1, 1, 200, 200, 300, 300, 0, true)};
  std::vector<CocoBox> dets = {Box(1, 1, 250, 250, 50, 50, 0.95), Box(1, 1, 0, 0, 100, 100, 0.6)};
  CocoMetrics m = EvaluateCoco(gt, dets, {1}, {1});
  EXPECT_NEAR(m.values[0], 1.0, 1e-12);
}

// The official COCO numbers for rafaelpadilla/review_object_detection_metrics' fixture.
TEST(CocoMetricsTest, MatchesCocoApiOnTheSharedFixture) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string dir = shared + "/data/coco_eval/";
  auto gt = ReadCocoInstances(dir + "sampled_gts_bbox_area.json");
  ASSERT_TRUE(gt.ok()) << gt.status().message();
  const double expected[12] = {0.503647, 0.696973, 0.571667, 0.593252, 0.557991, 0.489363,
                               0.386813, 0.593680, 0.595353, 0.654764, 0.603130, 0.553744};
  for (const char* results : {"cocoapi_results.json", "sampled_bbox_results.json"}) {
    auto dets = ReadCocoResults(dir + results, gt.value());
    ASSERT_TRUE(dets.ok()) << dets.status().message();
    std::vector<int64_t> images, categories;
    for (const CocoImage& i : gt.value().images) images.push_back(i.id);
    for (const auto& c : gt.value().categories) categories.push_back(c.first);
    CocoMetrics m = EvaluateCoco(gt.value().annotations, dets.value(), images, categories);
    for (int i = 0; i < 12; ++i)
      EXPECT_NEAR(m.values[i], expected[i], 1e-6) << results << ": " << CocoMetrics::Label(i);
  }
  testing::ReportCases("coco_fixture", 2, 2);
}

// TFLite's AP from the detections TFLite's own run printed (--debug_mode) and the ground truth it
// read: the per-threshold APs and mAP it printed.
TEST(CocoMetricsTest, TfliteApFromTflitesOwnDetections) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  auto gt = ReadCocoInstances(shared + "/data/coco/instances_shared.json");
  ASSERT_TRUE(gt.ok()) << gt.status().message();
  // Images in file-name order, as run_eval reads the folder.
  std::vector<CocoImage> images = gt.value().images;
  std::sort(images.begin(), images.end(),
            [](const CocoImage& a, const CocoImage& b) { return a.file_name < b.file_name; });
  std::map<std::string, size_t> index;
  std::vector<std::vector<TfliteBox>> truth(images.size()), predicted(images.size());
  for (size_t i = 0; i < images.size(); ++i) index[images[i].file_name] = i;
  for (const CocoBox& a : gt.value().annotations) {
    size_t i = 0;
    while (images[i].id != a.image_id) ++i;
    const CocoImage& im = images[i];
    // preprocess_coco_minival.py: normalised in double, stored as float32; boxes past an edge dropped.
    if (a.x + a.w > im.width || a.y + a.h > im.height) continue;
    truth[i].push_back(NormalizedBox(a, im));
  }
  std::ifstream debug(shared + "/data/coco/predictions_debug_ssd.txt");
  ASSERT_TRUE(debug);
  std::string line;
  size_t current = 0;
  while (std::getline(debug, line)) {
    std::istringstream in(line);
    std::string word;
    in >> word;
    if (word == "Image:") {
      std::string name;
      in >> name;
      current = index.at(name);
    } else if (word == "Object") {
      predicted[current].emplace_back();
    } else if (word == "Score:") {
      in >> predicted[current].back().score;
    } else if (word == "Class-ID:") {
      in >> predicted[current].back().class_id;
    } else if (word == "Normalized") {
      std::string side;
      float value;
      in >> side >> value;
      TfliteBox& b = predicted[current].back();
      if (side == "Top:") b.ymin = value;
      if (side == "Bottom:") b.ymax = value;
      if (side == "Left:") b.xmin = value;
      if (side == "Right:") b.xmax = value;
    }
  }
  TfliteApResult result = EvaluateTfliteAp(truth, predicted);
  const char* expected[10] = {"0.471741", "0.426286", "0.426286", "0.403334",  "0.401553",
                              "0.353398", "0.261926", "0.205821", "0.0694569", "0.00870087"};
  ASSERT_EQ(result.average_precision.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    std::ostringstream printed;
    printed << result.average_precision[i];
    EXPECT_EQ(printed.str(), expected[i]) << "IoU threshold " << result.iou_thresholds[i];
  }
  std::ostringstream map;
  map << result.overall_map;
  EXPECT_EQ(map.str(), "0.30285");
}

}  // namespace
}  // namespace touchstone
