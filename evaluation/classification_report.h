// imagenet_eval's report: the shared envelope (report_envelope.h), top-K accuracy, per-class accuracy,
// every evaluated image's top-1 prediction (compact: indices), latencies, and the accuracy gate against
// an earlier report (quality_gate.h). The text lines the tool prints are read from the same JSON.
// Schema: docs/schemas/imagenet_eval.schema.json.
#ifndef TOUCHSTONE_EVALUATION_CLASSIFICATION_REPORT_H_
#define TOUCHSTONE_EVALUATION_CLASSIFICATION_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/imagenet_folder.h"
#include "evaluation/image_classification.h"
#include "evaluation/quality_gate.h"
#include "evaluation/report_envelope.h"
#include "evaluation/shards.h"
#include "runtime/status.h"

namespace touchstone {

constexpr const char* kClassificationReportSchema = "touchstone.imagenet_eval.report";
constexpr int kClassificationReportVersion = 2;

// The settings two accuracy runs must share (RunConfiguration::settings): the image set (count, and a
// sha256 of each image's file name and label, so the same set compares equal wherever it lives), the
// model's labels (sha256), and how images become inputs.
std::vector<std::pair<std::string, std::string>> DatasetSettings(const std::vector<LabelledImage>& images,
                                                                 const std::vector<std::string>& model_labels,
                                                                 const std::string& normalization, int label_offset);

struct ClassificationReport {
  ReportEnvelope envelope{kClassificationReportSchema, kClassificationReportVersion, "imagenet_eval"};
  nlohmann::ordered_json details;  // the tool's own configuration details (files, layout, normalisation)
  const std::vector<LabelledImage>* images = nullptr;
  const ClassificationResult* result = nullptr;
  bool has_reference = false;
  bool per_image = false;  // every image's top-10 with labels, not only the compact top-1 indices
  // The dataset's folder (--ground_truth_images_path or --class_folders_path): the worst misclassified
  // images are also named relative to it ("file"), for a page made elsewhere (report_view --images_root).
  std::string image_root;
  struct Gate {
    bool requested = false;
    std::string baseline_path;
    std::string config_change;
    AccuracyGateResult accuracy;
  } gate;
};

// The report. A shard report (envelope.shard) also holds each latency figure's state (shards.h).
// "worst_misclassified": at most kWorstMisclassified images whose label was not ranked first, worst
// first: label missed from the top 10, then ranked lower, then the more confident the wrong top-1, then
// list order.
nlohmann::ordered_json ClassificationReportJson(const ClassificationReport& report);
constexpr size_t kWorstMisclassified = 24;

// The report one run over every image of `shards` (checked and in order: CheckShardReports) would
// have written, from their per-image results: top-K and per-class counts added, predictions, skipped
// images and per-image entries in list order, the worst misclassified images chosen again from each
// shard's, the accuracies computed from the counts as a run computes them. Latencies are merged
// (MergedLatency); wall_seconds is the shards' sum, images_per_second the images over it.
StatusOr<nlohmann::ordered_json> MergeClassificationShards(const std::vector<ShardReport>& shards);

// What the gate needs from a report read back: the envelope, top-K accuracy and each evaluated image's
// top-1 output index.
struct ClassificationBaseline {
  ReportEnvelope envelope;
  std::vector<double> topk_accuracy;
  std::vector<int> evaluated_image;  // index into the image list
  std::vector<int> top1_index;
};
StatusOr<ClassificationBaseline> ParseClassificationReport(const std::string& text, const std::string& source);

// Both runs as the accuracy gate compares them: the images both evaluated, in list order, named by file,
// with their top-1 labels (`output_labels`: the current run's label of each output index).
void AccuracyRuns(const ClassificationBaseline& baseline, const std::vector<LabelledImage>& images,
                  const ClassificationResult& current, AccuracyRun* baseline_run, AccuracyRun* current_run);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_CLASSIFICATION_REPORT_H_
