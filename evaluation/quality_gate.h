// The gates on what a run computed, against a baseline report of the same tool and configuration
// (docs/gates.md): accuracy (imagenet_eval), detection mAP (coco_eval) and output errors against the
// reference kernels (inference_diff). They speak the latency gate's words (regression_gate.h): PASS and
// IMPROVEMENT exit 0, REGRESSION 1. These figures are deterministic for a given model, data and
// configuration, so none of these gates says NOISY, except where the baseline lacks a figure.
#ifndef TOUCHSTONE_EVALUATION_QUALITY_GATE_H_
#define TOUCHSTONE_EVALUATION_QUALITY_GATE_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "evaluation/regression_gate.h"

namespace touchstone {

// --- imagenet_eval ------------------------------------------------------------------------------

struct AccuracyGateConfig {
  // Top-1 or top-5 accuracy may drop by at most this many percentage points (0: any drop fails).
  double max_accuracy_drop_pct = 0.0;
  // Any image whose top-1 label changed fails the gate.
  bool require_same_predictions = false;
  // Changed images named in the verdict.
  int max_listed_images = 10;
};

// One run's accuracy as a report holds it: top-k accuracy (fractions, k = 1..), and each image's
// top-1 label, in image order.
struct AccuracyRun {
  std::vector<double> topk_accuracy;
  std::vector<std::string> images;
  std::vector<std::string> top1_labels;
};

struct AccuracyGateResult {
  GateVerdict verdict = GateVerdict::kPass;
  double baseline_top1 = 0.0, current_top1 = 0.0;  // fractions
  double baseline_top5 = 0.0, current_top5 = 0.0;
  double max_accuracy_drop_pct = 0.0;
  int64_t changed_images = 0;              // whose top-1 label differs from the baseline's
  std::vector<std::string> first_changed;  // "<image>: <baseline label> -> <label>"
  bool require_same_predictions = false;
  std::string reason;  // why REGRESSION or NOISY
};

// The runs must be over the same images (CheckComparable has checked the dataset).
AccuracyGateResult CompareAccuracy(const AccuracyRun& baseline, const AccuracyRun& current,
                                   const AccuracyGateConfig& config);

// "Accuracy gate: REGRESSION: top-1 70.000% vs baseline 70.400% (-0.400 points), top-5 ... ; limit -0
// points; 3 images changed their top-1 label: a.jpg: tabby -> tiger cat, ..."
std::string FormatAccuracyGate(const AccuracyGateResult& result);

// --- coco_eval ----------------------------------------------------------------------------------

// One run's detection quality: each metric the run computed ("coco AP" = AP@[.5:.95], "tflite mAP")
// and per-class average precision, by class name.
struct DetectionRun {
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<std::pair<std::string, double>> class_ap;
};

struct DetectionGateResult {
  GateVerdict verdict = GateVerdict::kPass;
  struct Metric {
    std::string name;
    double baseline = 0.0, current = 0.0;
    GateVerdict verdict = GateVerdict::kPass;
  };
  std::vector<Metric> metrics;
  double max_accuracy_drop_pct = 0.0;
  // The classes whose AP dropped most (at most 5): name, baseline AP, current AP.
  std::vector<std::tuple<std::string, double, double>> worst_classes;
  std::string reason;
};

// A metric that drops by more than max_drop_pct points (AP as a percentage) is a REGRESSION; one that
// rises with none dropping is an IMPROVEMENT. A metric only one run has is NOISY.
DetectionGateResult CompareDetection(const DetectionRun& baseline, const DetectionRun& current, double max_drop_pct);

// "Detection gate: REGRESSION: coco AP 0.312 vs baseline 0.318 (-0.600 points), tflite mAP ...; limit -0
// points; dropped most: person 0.401 -> 0.380, ..."
std::string FormatDetectionGate(const DetectionGateResult& result);

// --- inference_diff ------------------------------------------------------------------------------

// One output's error figures against the reference.
struct OutputErrors {
  int index = 0;
  std::string name;
  bool compared = true;  // false: shapes or types differed (no figures)
  double avg_error = 0.0;
  double max_abs_error = 0.0;
};

struct ErrorGateResult {
  GateVerdict verdict = GateVerdict::kPass;
  struct Line {
    OutputErrors baseline, current;
    GateVerdict verdict = GateVerdict::kPass;
    std::string what;  // which figure grew, or why NOISY
  };
  std::vector<Line> outputs;
  double max_error_increase_pct = 0.0;
};

// Per output, avg_error and max_abs_error against the baseline's: either growing by more than
// max_increase_pct percent (beyond 1e-12, so that two exact runs pass) is a REGRESSION, and so is an
// output no longer compared; both shrinking by more than that percentage is an IMPROVEMENT.
ErrorGateResult CompareOutputErrors(const std::vector<OutputErrors>& baseline, const std::vector<OutputErrors>& current,
                                    double max_increase_pct);

// One line per output: "Error gate: OutputDiff[0] 'Identity': REGRESSION: max_abs_error 0.0024 vs
// baseline 0.0012 (x2.000), avg_error 1.1e-05 vs 1e-05; limit +10%".
std::vector<std::string> FormatErrorGate(const ErrorGateResult& result);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_QUALITY_GATE_H_
