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
#include "evaluation/shards.h"
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

// Short names of the 12 COCO metrics, in CocoMetrics order: the keys of the report's "coco".
extern const char* const kCocoMetricNames[12];

// TFLite's ground truth of each image: boxes normalised in double then stored as float, boxes past an
// edge dropped (TFLite's preprocess_coco_minival.py).
std::vector<std::vector<TfliteBox>> TfliteGroundTruth(const CocoDataset& gt, const std::vector<CocoImage>& images);

// A model's normalised detections of each image as COCO's pixel boxes (the results JSON's).
std::vector<CocoBox> CocoDetections(const std::vector<CocoImage>& images,
                                    const std::vector<std::vector<TfliteBox>>& predicted);

// The images a page shows (report_view): at most kExamples, those with the most errors first (then list
// order). A detection of score >= kExampleMinScore is a hit when it overlaps an unmatched ground-truth
// box of its class by IoU >= 0.5 (greedy, highest score first), else a false positive; a ground-truth box
// no such detection hits is a miss. Boxes are TFLite's normalised [ymin, xmin, ymax, xmax].
constexpr size_t kExamples = 6;
constexpr double kExampleMinScore = 0.5;

// What coco_eval computes from a run's detections: the report's "tflite" (TFLite's AP per IoU
// threshold and mAP; null under --metric=coco), "coco" (the 12 figures; null under --metric=tflite or
// without COCO JSON), "per_class", "pr_curves" (COCO's precision at 101 recall points per IoU
// threshold; null without COCO's metric) and "examples".
struct DetectionScores {
  nlohmann::ordered_json tflite;
  nlohmann::ordered_json coco;
  nlohmann::ordered_json per_class;
  nlohmann::ordered_json pr_curves;
  nlohmann::ordered_json examples;
};
// `gt`: the COCO instances (null for TFLite's proto ground truth: TFLite's metric only, classes unnamed).
DetectionScores ScoreDetections(const std::string& metric, const CocoDataset* gt, const std::vector<CocoImage>& images,
                                const std::vector<std::vector<TfliteBox>>& truth,
                                const std::vector<std::vector<TfliteBox>>& predicted,
                                const std::vector<CocoBox>& detections);

// A shard report's "detections": each image of the shard (id, file) with the model's boxes as it output
// them ([ymin, xmin, ymax, xmax, class_id, score], normalised floats), what a merge scores again.
nlohmann::ordered_json ShardDetectionsJson(const std::vector<CocoImage>& images,
                                           const std::vector<std::vector<TfliteBox>>& predicted);

// The report one run over every image of `shards` (checked and in order: CheckShardReports) would have
// written: the shards' detections gathered in list order and scored again with `gt` (the instances the
// shards evaluated against: `gt_sha256`, the sha256 of its file, must be the one they recorded).
// Latencies are merged (MergedLatency); wall_seconds is the shards' sum.
StatusOr<nlohmann::ordered_json> MergeDetectionShards(const std::vector<ShardReport>& shards, const CocoDataset& gt,
                                                      const std::string& gt_sha256);

struct DetectionBaseline {
  ReportEnvelope envelope;
  DetectionRun run;
};
// Parses a coco_eval report. Errors (kInvalidInput) name `source`.
StatusOr<DetectionBaseline> ParseDetectionReport(const std::string& text, const std::string& source);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_DETECTION_REPORT_H_
