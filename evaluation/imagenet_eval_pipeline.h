// imagenet_eval's evaluation as a library: top-1..top-10 accuracy and per-image latency of an image
// classifier on an ImageNet-style folder (or one folder per class), with TensorFlow Lite's
// preprocessing and output lines, an optional reference-kernel comparison, shards and a baseline gate.
// The options are the tool's flags; what only the tool knows (its delegates, its command line, its
// progress display) comes in as hooks, so this depends on nothing in tools/.
#ifndef TOUCHSTONE_EVALUATION_IMAGENET_EVAL_PIPELINE_H_
#define TOUCHSTONE_EVALUATION_IMAGENET_EVAL_PIPELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "evaluation/eval_hooks.h"
#include "runtime/status.h"

namespace touchstone {

// Field for field imagenet_eval's flags (docs/imagenet_eval.md), so the tool binds its flags here.
struct ImageNetEvalOptions {
  std::string model_file;
  std::string ground_truth_images_path;
  std::string ground_truth_labels;
  std::string model_output_labels;
  std::string output_file_path;
  std::string denylist_file_path;
  std::string class_folders_path;
  int32_t num_images = 0;
  int32_t num_interpreter_threads = 1;
  std::string delegate;
  std::string input_mean;  // "", one value or three, comma separated
  std::string input_std;
  bool use_model_metadata = false;
  std::string label_offset = "auto";  // or an integer
  int32_t num_preprocessing_threads = 2;
  bool skip_unreadable_images = false;
  bool reference = false;
  bool use_reference_kernels = false;
  bool per_image = false;
  std::string baseline;
  bool allow_config_change = false;
  float max_accuracy_drop_pct = 0.0f;
  bool require_same_predictions = false;
  int32_t shard_index = -1;
  int32_t num_shards = 0;
  // The interpreter's limits (the delegate flag group's --max_tensor_memory_mb, --allow_newer_op_versions).
  uint64_t max_tensor_bytes = uint64_t{16} << 30;
  bool allow_newer_op_versions = false;
};

// The usage errors the options alone show (required ones missing, ones that exclude each other, a bad
// --input_mean/--input_std, shards with a baseline): checked before any file is touched.
Status CheckImageNetEvalOptions(const ImageNetEvalOptions& options);

// What a run leaves for the tool to write: the JSON report and the exit code (the gate's, or 0).
struct ImageNetEvalOutcome {
  std::string report_json;
  int exit_code = 0;
};

// Evaluates, printing TFLite's lines (and the gate's) on stdout and warnings on stderr. `start_time` is
// the run's (UtcTimestamp); `baseline_text` the --baseline report's text ("" without one).
StatusOr<ImageNetEvalOutcome> RunImageNetEval(const ImageNetEvalOptions& options, const std::string& start_time,
                                              const std::string& baseline_text, const EvalHooks& hooks);

// "1,2,3" as one value or three; "" as none. A bad item is a usage error naming --<flag>.
StatusOr<std::vector<float>> ParseNormalizationValues(const std::string& text, const std::string& flag);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_IMAGENET_EVAL_PIPELINE_H_
