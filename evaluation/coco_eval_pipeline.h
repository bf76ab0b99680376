// coco_eval's evaluation as a library: a detector's accuracy on COCO-style data as TFLite run_eval's
// average precision and the 12 official COCO metrics, or the same figures for an existing results JSON
// without a model; per-image latency, shards and a baseline gate on mAP. The options are the tool's
// flags; what only the tool knows (its delegates, its command line, its progress display) comes in as
// hooks, so this depends on nothing in tools/.
#ifndef TOUCHSTONE_EVALUATION_COCO_EVAL_PIPELINE_H_
#define TOUCHSTONE_EVALUATION_COCO_EVAL_PIPELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/coco_json.h"
#include "evaluation/coco_metrics.h"
#include "evaluation/eval_hooks.h"
#include "runtime/status.h"

namespace touchstone {

// Field for field coco_eval's flags (docs/coco.md), so the tool binds its flags here.
struct CocoEvalOptions {
  std::string model_file;
  std::string model_output_labels;
  std::string ground_truth_images_path;
  std::string ground_truth_json;
  std::string ground_truth_proto;
  std::string output_file_path;
  std::string detections_json;
  std::string write_detections;
  std::string metric = "both";
  std::string image_ids;
  std::string output_tensors;
  std::string delegate;
  int32_t num_images = 0;
  int32_t num_interpreter_threads = 1;
  int32_t num_preprocessing_threads = 2;
  int32_t class_offset = 1;
  bool debug_mode = false;
  bool use_reference_kernels = false;
  std::string baseline;
  bool allow_config_change = false;
  float max_accuracy_drop_pct = 0.0f;
  int32_t shard_index = -1;
  int32_t num_shards = 0;
  // The interpreter's limits (the delegate flag group's --max_tensor_memory_mb, --allow_newer_op_versions).
  uint64_t max_tensor_bytes = uint64_t{16} << 30;
  bool allow_newer_op_versions = false;
};

// The usage errors the options alone show: the ground truth's two forms, --metric, what a results file
// or TFLite's proto excludes, the model's required flags, shards. Checked before any file is touched.
Status CheckCocoEvalOptions(const CocoEvalOptions& options);

// The gate's usage errors (--max_accuracy_drop_pct, --allow_config_change without --baseline). The tool
// checks them after its output files are known to be writable and before it reads the baseline.
Status CheckCocoGateOptions(const CocoEvalOptions& options);

// The images to evaluate and TFLite's ground truth of each (normalised boxes).
struct CocoGroundTruth {
  CocoDataset dataset;  // the COCO instances; empty for TFLite's proto
  std::vector<CocoImage> images;
  std::vector<std::vector<TfliteBox>> boxes;  // per image
};

// From --ground_truth_json: its annotated images (as TFLite's preprocess_coco_minival.py keeps them) in
// file-name order, narrowed by --image_ids and --num_images. From --ground_truth_proto, as run_eval: every
// image file of --ground_truth_images_path in sorted order (the first --num_images), its ground truth
// found by file name (none when the proto lacks it; the last entry of a name wins).
StatusOr<CocoGroundTruth> LoadCocoGroundTruth(const CocoEvalOptions& options);

// What a run leaves for the tool to write: the JSON report, the detections as a COCO results JSON (""
// without --write_detections) and the exit code (the gate's, or 0).
struct CocoEvalOutcome {
  std::string report_json;
  std::string detections_json;
  int exit_code = 0;
};

// Evaluates, printing TFLite's lines, COCO's (and the gate's) on stdout and notes on stderr.
// `start_time` is the run's (UtcTimestamp); `baseline_text` the --baseline report's text ("" without one).
StatusOr<CocoEvalOutcome> RunCocoEval(const CocoEvalOptions& options, const std::string& start_time,
                                      const std::string& baseline_text, const EvalHooks& hooks);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_COCO_EVAL_PIPELINE_H_
