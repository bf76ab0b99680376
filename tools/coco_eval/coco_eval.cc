// coco_eval: detection accuracy of a .tflite detector on COCO-style data, as two numbers people use:
// TFLite run_eval's average precision (to compare with old results) and the 12 official COCO
// metrics. It reads COCO instances JSON; it can also score an existing results JSON without a model.
// It measures accuracy and per-image latency, not throughput. Delegates come from the provider registry.
// --baseline gates on mAP (either metric) against an earlier report (docs/gates.md). The work is
// evaluation/coco_eval_pipeline.h; this main declares the flags and writes the report.
#include <string>

#include "evaluation/coco_eval_pipeline.h"
#include "evaluation/report_envelope.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/eval_tool_support.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"

namespace touchstone {
namespace {

// The exit code (the gate's, or 0) or an error. The checks keep the order the errors have always had.
StatusOr<int> Run(CocoEvalOptions options, const FlagTable& table, const DelegateFlagGroup& delegate_flags) {
  TS_RETURN_IF_ERROR(CheckCocoEvalOptions(options));
  TS_RETURN_IF_ERROR(CheckOutputFileWritable(options.output_file_path, "output_file_path"));
  TS_RETURN_IF_ERROR(CheckOutputFileWritable(options.write_detections, "write_detections"));
  TS_RETURN_IF_ERROR(CheckCocoGateOptions(options));
  TS_ASSIGN_OR_RETURN(const std::string baseline_text, ReadBaselineText(options.baseline));
  const EvalHooks hooks = BindEvalOptions(&options, table, delegate_flags);
  TS_ASSIGN_OR_RETURN(CocoEvalOutcome outcome, RunCocoEval(options, UtcTimestamp(), baseline_text, hooks));
  if (!options.write_detections.empty()) {
    TS_RETURN_IF_ERROR(WriteFileAtomically(options.write_detections, outcome.detections_json, "write_detections"));
  }
  if (!options.output_file_path.empty()) {
    TS_RETURN_IF_ERROR(WriteFileAtomically(options.output_file_path, outcome.report_json, "output_file_path"));
  }
  return outcome.exit_code;
}

int Main(int argc, char** argv) {
  CocoEvalOptions flags;
  FlagTable table;
  table.AddString("model_file", &flags.model_file, "the .tflite detector");
  table.AddString("model_output_labels", &flags.model_output_labels, "label file; its line count bounds the class ids");
  table.AddString("ground_truth_images_path", &flags.ground_truth_images_path,
                  "folder holding the images of the ground truth");
  table.AddString("ground_truth_json", &flags.ground_truth_json,
                  "COCO instances JSON (images, annotations, categories)");
  table.AddString("ground_truth_proto", &flags.ground_truth_proto,
                  "TFLite's binary ObjectDetectionGroundTruth proto instead of the JSON (TFLite's metric only)");
  table.AddString("output_file_path", &flags.output_file_path,
                  "write the JSON report with every metric here (docs/coco.md)");
  table.AddString("detections_json", &flags.detections_json, "score this COCO results JSON instead of running a model");
  table.AddString("write_detections", &flags.write_detections, "write the model's detections as a COCO results JSON");
  table.AddString("metric", &flags.metric, "TFLite's AP, the 12 COCO metrics, or both")
      .OneOf({"tflite", "coco", "both"});
  table.AddString("image_ids", &flags.image_ids, "comma-separated image ids to evaluate (default: all annotated)");
  table.AddString("output_tensors", &flags.output_tensors,
                  "boxes,classes,scores,count outputs by name or index (default: detected)");
  table.AddString("delegate", &flags.delegate, DelegateFlagHelp());
  AddEvalRunFlags(&table, &flags.num_images, &flags.num_interpreter_threads, &flags.num_preprocessing_threads);
  table.AddInt("class_offset", &flags.class_offset, "class id = class output + offset").InRange(-1000000, 1000000);
  table.AddBool("debug_mode", &flags.debug_mode, "print every image's detections");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels, "run the reference kernels");
  AddBaselineFlags(&table, &flags.baseline, &flags.allow_config_change, "mAP (either metric) drops by more than",
                   "images or ground truth", "max_accuracy_drop_pct", &flags.max_accuracy_drop_pct,
                   "drop of mAP, in percentage points of AP, that --baseline tolerates");
  AddShardFlags(&table, &flags.shard_index, &flags.num_shards,
                "evaluate shard I of N, images [T*I/N, T*(I+1)/N) of the list", "the images");
  DelegateFlagGroup delegate_flags;
  return RunEvalTool(argc, argv, "coco_eval", &table, &delegate_flags, &flags.num_interpreter_threads,
                     [&]() { return Run(flags, table, delegate_flags); });
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
