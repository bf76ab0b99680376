#include "evaluation/quality_gate.h"

#include <cmath>

#include <gtest/gtest.h>

namespace touchstone {
namespace {

AccuracyRun Accuracy(double top1, double top5, std::vector<std::string> labels) {
  AccuracyRun run;
  run.topk_accuracy = {top1, 0, 0, 0, top5};
  for (size_t i = 0; i < labels.size(); ++i) run.images.push_back("img" + std::to_string(i) + ".jpg");
  run.top1_labels = std::move(labels);
  return run;
}

TEST(AccuracyGateTest, DropsAndChangedImages) {
  const AccuracyRun baseline = Accuracy(0.704, 0.900, {"tabby", "dog", "car"});
  AccuracyGateConfig config;  // any drop fails
  // The same accuracy with one image changed: PASS unless predictions must stay.
  const AccuracyRun same = Accuracy(0.704, 0.900, {"tabby", "wolf", "car"});
  AccuracyGateResult r = CompareAccuracy(baseline, same, config);
  EXPECT_EQ(r.verdict, GateVerdict::kPass);
  EXPECT_EQ(r.changed_images, 1);
  EXPECT_EQ(r.first_changed, (std::vector<std::string>{"img1.jpg: dog -> wolf"}));
  config.require_same_predictions = true;
  r = CompareAccuracy(baseline, same, config);
  EXPECT_EQ(r.verdict, GateVerdict::kRegression);
  EXPECT_EQ(FormatAccuracyGate(r),
            "Accuracy gate: REGRESSION: top-1 70.400% vs baseline 70.400% (+0.000 points), top-5 90.000% vs baseline "
            "90.000% (+0.000 points); limit -0.000 points; 1 images changed their top-1 label: img1.jpg: dog -> wolf "
            "(--require_same_predictions and 1 images changed their top-1 label)");
  config.require_same_predictions = false;
  // A 0.4-point top-1 drop: REGRESSION at the default limit, PASS at 0.5.
  const AccuracyRun lower = Accuracy(0.700, 0.900, {"tabby", "dog", "car"});
  EXPECT_EQ(CompareAccuracy(baseline, lower, config).verdict, GateVerdict::kRegression);
  config.max_accuracy_drop_pct = 0.5;
  EXPECT_EQ(CompareAccuracy(baseline, lower, config).verdict, GateVerdict::kPass);
  config.max_accuracy_drop_pct = 0.4;  // exactly at the limit passes
  EXPECT_EQ(CompareAccuracy(baseline, lower, config).verdict, GateVerdict::kPass);
  // Top-5 counts too.
  config.max_accuracy_drop_pct = 0.0;
  EXPECT_EQ(CompareAccuracy(baseline, Accuracy(0.704, 0.899, {"tabby", "dog", "car"}), config).verdict,
            GateVerdict::kRegression);
  EXPECT_EQ(CompareAccuracy(baseline, Accuracy(0.710, 0.900, {"tabby", "dog", "car"}), config).verdict,
            GateVerdict::kImprovement);
}

TEST(DetectionGateTest, EitherMetricAndTheClassesThatDropped) {
  DetectionRun baseline{{{"coco AP", 0.318}, {"tflite mAP", 0.250}}, {{"person", 0.401}, {"dog", 0.300}, {"car", 0.2}}};
  DetectionRun current{{{"coco AP", 0.318}, {"tflite mAP", 0.244}}, {{"person", 0.380}, {"dog", 0.290}, {"car", 0.25}}};
  DetectionGateResult r = CompareDetection(baseline, current, 0.0);
  EXPECT_EQ(r.verdict, GateVerdict::kRegression);
  ASSERT_EQ(r.worst_classes.size(), 2u);
  EXPECT_EQ(std::get<0>(r.worst_classes[0]), "person");
  EXPECT_EQ(std::get<0>(r.worst_classes[1]), "dog");
  EXPECT_EQ(FormatDetectionGate(r),
            "Detection gate: REGRESSION: coco AP 0.3180 vs baseline 0.3180 (+0.000 points), tflite mAP 0.2440 vs "
            "baseline 0.2500 (-0.600 points); limit -0.000 points; dropped most: person 0.4010 -> 0.3800, dog 0.3000 "
            "-> 0.2900 (tflite mAP dropped by more than 0.000 points)");
  EXPECT_EQ(CompareDetection(baseline, current, 1.0).verdict, GateVerdict::kPass);
  EXPECT_EQ(CompareDetection(baseline, baseline, 0.0).verdict, GateVerdict::kPass);
  DetectionRun better = baseline;
  better.metrics[0].second = 0.320;
  EXPECT_EQ(CompareDetection(baseline, better, 0.0).verdict, GateVerdict::kImprovement);
  DetectionRun only_coco{{{"coco AP", 0.318}}, {}};
  EXPECT_EQ(CompareDetection(only_coco, baseline, 0.0).verdict, GateVerdict::kNoisy);
}

TEST(ErrorGateTest, DoubledMaxErrorFails) {
  const std::vector<OutputErrors> baseline = {{0, "Identity", true, 1e-5, 0.0012}, {1, "q", true, 0.0, 0.0}};
  std::vector<OutputErrors> current = baseline;
  ErrorGateResult r = CompareOutputErrors(baseline, current, 10.0);
  EXPECT_EQ(r.verdict, GateVerdict::kPass);
  current[0].max_abs_error = 0.0024;
  r = CompareOutputErrors(baseline, current, 10.0);
  EXPECT_EQ(r.verdict, GateVerdict::kRegression);
  EXPECT_EQ(FormatErrorGate(r)[0],
            "Error gate: OutputDiff[0] 'Identity': REGRESSION: max_abs_error 0.0024 vs baseline 0.0012 (x2.000), "
            "avg_error 1e-05 vs baseline 1e-05; max_abs_error grew; limit +10%");
  EXPECT_EQ(FormatErrorGate(r)[1],
            "Error gate: OutputDiff[1] 'q': PASS: max_abs_error 0 vs baseline 0 (x1.000), "
            "avg_error 0 vs baseline 0; limit +10%");
  // An exact output that starts to differ at all is a regression.
  current = baseline;
  current[1].max_abs_error = 1.0;
  current[1].avg_error = 0.01;
  EXPECT_EQ(CompareOutputErrors(baseline, current, 10.0).outputs[1].verdict, GateVerdict::kRegression);
  // Halved errors: IMPROVEMENT for that output, and for the whole when the other passes.
  current = baseline;
  current[0] = {0, "Identity", true, 0.5e-5, 0.0006};
  EXPECT_EQ(CompareOutputErrors(baseline, current, 10.0).verdict, GateVerdict::kImprovement);
  current[0].compared = false;
  EXPECT_EQ(CompareOutputErrors(baseline, current, 10.0).verdict, GateVerdict::kRegression);
  current[0].compared = true;
  current[0].max_abs_error = NAN;
  EXPECT_EQ(CompareOutputErrors(baseline, current, 10.0).verdict, GateVerdict::kRegression);
}

}  // namespace
}  // namespace touchstone
