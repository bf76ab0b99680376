// imagenet_eval: top-1..top-10 accuracy of an image classifier on an ImageNet-style folder, with
// TensorFlow Lite's run_eval flags, preprocessing (bit-exact) and output lines, plus latencies. It
// measures accuracy and per-image latency (and the run's wall time); it does not measure throughput
// under load, and it knows nothing of a model's training distribution beyond the normalisation it is
// told (flags) or finds (--use_model_metadata). Delegates come from the provider registry. The work is
// evaluation/imagenet_eval_pipeline.h; this main declares the flags and writes the report.
#include <string>

#include "evaluation/imagenet_eval_pipeline.h"
#include "evaluation/report_envelope.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/eval_tool_support.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"

namespace touchstone {
namespace {

// The exit code (the gate's, or 0) or an error.
StatusOr<int> Run(ImageNetEvalOptions options, const FlagTable& table, const DelegateFlagGroup& delegate_flags) {
  TS_RETURN_IF_ERROR(CheckImageNetEvalOptions(options));
  TS_RETURN_IF_ERROR(CheckOutputFileWritable(options.output_file_path, "output_file_path"));
  const std::string start_time = UtcTimestamp();
  TS_ASSIGN_OR_RETURN(const std::string baseline_text, ReadBaselineText(options.baseline));
  const EvalHooks hooks = BindEvalOptions(&options, table, delegate_flags);
  TS_ASSIGN_OR_RETURN(ImageNetEvalOutcome outcome, RunImageNetEval(options, start_time, baseline_text, hooks));
  if (!options.output_file_path.empty()) {
    TS_RETURN_IF_ERROR(WriteFileAtomically(options.output_file_path, outcome.report_json, "output_file_path"));
  }
  return outcome.exit_code;
}

int Main(int argc, char** argv) {
  ImageNetEvalOptions flags;
  FlagTable table;
  table.AddString("model_file", &flags.model_file, "the .tflite classifier");
  table.AddString("ground_truth_images_path", &flags.ground_truth_images_path, "folder of images (sorted by name)");
  table.AddString("ground_truth_labels", &flags.ground_truth_labels, "one label per image, in image order");
  table.AddString("model_output_labels", &flags.model_output_labels, "one label per model output");
  table.AddString("output_file_path", &flags.output_file_path, "write the JSON report here (docs/imagenet_eval.md)");
  table.AddString("denylist_file_path", &flags.denylist_file_path, "1-based image numbers to leave out");
  table.AddString("class_folders_path", &flags.class_folders_path,
                  "instead of images+labels: one folder per class, named by its label");
  AddEvalRunFlags(&table, &flags.num_images, &flags.num_interpreter_threads, &flags.num_preprocessing_threads);
  table.AddString("delegate", &flags.delegate, DelegateFlagHelp());
  table.AddString("input_mean", &flags.input_mean, "normalisation mean, one value or three (default: TFLite's)");
  table.AddString("input_std", &flags.input_std, "normalisation std, one value or three (default: TFLite's)");
  table.AddBool("use_model_metadata", &flags.use_model_metadata,
                "normalise with the mean/std of the model's TFLite metadata");
  table.AddString("label_offset", &flags.label_offset,
                  "output i is label i-offset; auto: detect 1001 vs 1000 classes from the sizes");
  table.AddBool("skip_unreadable_images", &flags.skip_unreadable_images,
                "skip corrupt images with a warning instead of stopping");
  table.AddBool("reference", &flags.reference, "also run the reference kernels and report both");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels, "run the reference kernels only");
  table.AddBool("per_image", &flags.per_image, "put per-image predictions in the JSON report");
  AddBaselineFlags(&table, &flags.baseline, &flags.allow_config_change, "top-1 or top-5 drop by more than",
                   "images or labels", "max_accuracy_drop_pct", &flags.max_accuracy_drop_pct,
                   "drop of top-1 or top-5 accuracy, in percentage points, that --baseline tolerates");
  table.AddBool("require_same_predictions", &flags.require_same_predictions,
                "--baseline also fails when any image's top-1 label changed");
  AddShardFlags(&table, &flags.shard_index, &flags.num_shards,
                "evaluate shard I of N, images [T*I/N, T*(I+1)/N) of the list", "the image list");
  DelegateFlagGroup delegate_flags;
  return RunEvalTool(argc, argv, "imagenet_eval", &table, &delegate_flags, &flags.num_interpreter_threads,
                     [&]() { return Run(flags, table, delegate_flags); });
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
