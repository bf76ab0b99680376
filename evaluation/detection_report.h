// What coco_eval's report adds to the shared envelope for its gate (docs/gates.md): the settings two
// detection runs must share, per-class average precision under both definitions, and the figures the
// detection gate compares, read back from a report (quality_gate.h's DetectionRun).
#ifndef TOUCHSTONE_EVALUATION_DETECTION_REPORT_H_
#define TOUCHSTONE_EVALUATION_DETECTION_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/coco_json.h"
#include "evaluation/coco_metrics.h"
#include "evaluation/quality_gate.h"
#include "evaluation/report_envelope.h"
#include "runtime/status.h"

namespace touchstone {

constexpr const char* kDetectionReportSchema = "touchstone.coco_eval.report";
constexpr int kDetectionReportVersion = 2;

// The images evaluated (count, and a sha256 of their ids and file names), the ground truth (sha256 of
// its file), the metric and the class offset.
std::vector<std::pair<std::string, std::string>> DetectionSettings(const std::vector<CocoImage>& images,
                                                                   const std::string& ground_truth_sha256,
                                                                   const std::string& metric, int class_offset);

// Per-class AP, one entry per class id either metric saw: {"class_id", "name", "coco_ap", "tflite_ap"}
// (null where that metric did not run or the class has no ground truth). `names`: category names by id
// (empty: "class <id>").
nlohmann::ordered_json PerClassApJson(const CocoMetrics* coco, const TfliteApResult* tflite,
                                      const std::map<int64_t, std::string>& names);

// The gate's figures of a report: "coco AP" (AP@[.5:.95]) and "tflite mAP" where the report has them, and
// each class's AP (COCO's where it has one, else TFLite's), by name.
DetectionRun DetectionRunOf(const nlohmann::json& report);

struct DetectionBaseline {
  ReportEnvelope envelope;
  DetectionRun run;
};
// Parses a coco_eval report. Errors (kInvalidInput) name `source`.
StatusOr<DetectionBaseline> ParseDetectionReport(const std::string& text, const std::string& source);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_DETECTION_REPORT_H_
