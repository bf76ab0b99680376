// imagenet_eval: top-1..top-10 accuracy of an image classifier on an ImageNet-style folder, with
// TensorFlow Lite's run_eval flags, preprocessing (bit-exact) and output lines, plus latencies. It
// measures accuracy and per-image latency (and the run's wall time); it does not measure throughput
// under load, and it knows nothing of a model's training distribution beyond the normalisation it is
// told (flags) or finds (--use_model_metadata). Delegates come from the provider registry.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/imagenet_folder.h"
#include "datasets/model_metadata.h"
#include "delegates/providers/apply_delegates.h"
#include "evaluation/classification_report.h"
#include "evaluation/image_classification.h"
#include "evaluation/machine_info.h"
#include "evaluation/sha256.h"
#include "evaluation/shards.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/model.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"
#include "tools/common/eval_tool_support.h"

namespace touchstone {
namespace {

using nlohmann::json;

struct EvalFlags {
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
  std::string input_mean;
  std::string input_std;
  bool use_model_metadata = false;
  std::string label_offset = "auto";
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
};

StatusOr<std::vector<float>> ParseFloats(const std::string& text, const std::string& flag) {
  std::vector<float> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const float v = std::strtof(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !std::isfinite(v)) {
      return UsageError("--" + flag + ": '" + item + "' is not a number");
    }
    values.push_back(v);
  }
  if (!text.empty() && text.back() == ',') return UsageError("--" + flag + ": empty item");
  if (values.size() != 0 && values.size() != 1 && values.size() != 3) {
    return UsageError("--" + flag + " takes one value or three (per channel)");
  }
  return values;
}

std::string Printed(float value) {
  std::ostringstream out;
  out << value;  // six significant digits, as TFLite prints it
  return out.str();
}

// The lines TFLite prints (and ours after them), all read from the report.
void PrintReport(const json& report) {
  std::cout << "Num evaluation runs: " << report["num_evaluation_runs"].get<int>() << std::endl;
  // TFLite's whole-microsecond figures.
  const json& latency = report["latency"];
  std::cout << "Preprocessing latency: avg=" << latency["preprocessing"]["tflite"]["avg"].get<double>()
            << "(us), std_dev=" << latency["preprocessing"]["tflite"]["std"].get<int64_t>() << "(us)" << std::endl;
  std::cout << "Inference latency: avg=" << latency["inference"]["tflite"]["avg"].get<double>() << "(us), std_dev="
            << latency["inference"]["tflite"]["std"].get<int64_t>() << "(us)" << std::endl;
  const json& accuracy = report["topk_accuracy"];
  for (size_t k = 0; k < accuracy.size(); ++k) {
    std::cout << "Top-" << k + 1 << " Accuracy: " << Printed(accuracy[k].get<float>()) << std::endl;
  }
  if (!report["reference"].is_null()) {
    const json& ref = report["reference"];
    for (size_t k = 0; k < ref["topk_accuracy"].size(); ++k) {
      std::cout << "Reference Top-" << k + 1 << " Accuracy: " << Printed(ref["topk_accuracy"][k].get<float>())
                << " (delta " << Printed(ref["topk_accuracy_delta"][k].get<float>()) << ")" << std::endl;
    }
    std::cout << "Reference inference latency: avg=" << ref["inference_latency"]["tflite"]["avg"].get<double>()
              << "(us), std_dev=" << ref["inference_latency"]["tflite"]["std"].get<int64_t>() << "(us)" << std::endl;
    std::cout << "Images whose top-1 changed against the reference: " << ref["top1_changed"].get<int>() << std::endl;
  }
  std::printf("Wall time: %.3f s (%.2f images/s)\n", report["wall_seconds"].get<double>(),
              report["images_per_second"].get<double>());
  std::fflush(stdout);
}

// The exit code (the gate's, or 0) or an error.
StatusOr<int> Run(const EvalFlags& flags, const FlagTable& table, const DelegateFlagGroup& delegate_flags) {
  for (const auto& required : {std::make_pair("model_file", flags.model_file),
                               std::make_pair("model_output_labels", flags.model_output_labels)}) {
    if (required.second.empty()) return UsageError(std::string("--") + required.first + " is required");
  }
  if (flags.class_folders_path.empty() &&
      (flags.ground_truth_images_path.empty() || flags.ground_truth_labels.empty())) {
    return UsageError("--ground_truth_images_path and --ground_truth_labels are required (or --class_folders_path)");
  }
  if (!flags.class_folders_path.empty() &&
      (!flags.ground_truth_images_path.empty() || !flags.ground_truth_labels.empty())) {
    return UsageError("--class_folders_path replaces --ground_truth_images_path and --ground_truth_labels; give one or the other");
  }
  if (!flags.class_folders_path.empty() && !flags.denylist_file_path.empty()) {
    return UsageError("--denylist_file_path numbers the images of --ground_truth_images_path; it does not apply to --class_folders_path");
  }
  TS_ASSIGN_OR_RETURN(std::vector<float> mean, ParseFloats(flags.input_mean, "input_mean"));
  TS_ASSIGN_OR_RETURN(std::vector<float> stddev, ParseFloats(flags.input_std, "input_std"));
  for (float s : stddev) {
    if (s == 0.0f) return UsageError("--input_std must not be 0");
  }
  const bool normalization_flags = !mean.empty() || !stddev.empty();
  if (normalization_flags && flags.use_model_metadata) {
    return UsageError("--use_model_metadata and --input_mean/--input_std both set the normalisation; give one");
  }

  TS_ASSIGN_OR_RETURN(ShardSpec shard, ShardSpecFromFlags(flags.shard_index, flags.num_shards));
  if (shard.enabled() && !flags.baseline.empty()) {
    return UsageError("--baseline gates a whole run: merge the shard reports (merge_reports) and compare the merged "
                      "report (report_diff)");
  }
  TS_RETURN_IF_ERROR(CheckOutputFileWritable(flags.output_file_path, "output_file_path"));
  const std::string start_time = UtcTimestamp();
  ClassificationBaseline baseline;
  if (!flags.baseline.empty()) {
    TS_ASSIGN_OR_RETURN(std::string text, ReadBaselineText(flags.baseline));
    TS_ASSIGN_OR_RETURN(baseline, ParseClassificationReport(text, flags.baseline));
  } else if (flags.allow_config_change || flags.require_same_predictions) {
    return UsageError("--allow_config_change and --require_same_predictions need --baseline=REPORT.json");
  }
  if (flags.max_accuracy_drop_pct < 0) return UsageError("--max_accuracy_drop_pct must not be negative");
  // Declared before the interpreter, which holds kernels of these delegates and must go first.
  TS_ASSIGN_OR_RETURN(std::vector<ProvidedDelegate> delegates,
                      CreateDelegatesWithName(table, delegate_flags, flags.delegate, flags.num_interpreter_threads,
                                              flags.use_reference_kernels));

  TS_ASSIGN_OR_RETURN(std::vector<std::string> labels, ReadLines(flags.model_output_labels));
  if (labels.empty()) return InvalidInputError(flags.model_output_labels + ": no labels");
  TS_ASSIGN_OR_RETURN(std::vector<LabelledImage> images,
                      flags.class_folders_path.empty()
                          ? LoadImageNetSet(flags.ground_truth_images_path, flags.ground_truth_labels,
                                            flags.denylist_file_path, flags.num_images)
                          : LoadClassFolders(flags.class_folders_path, 0));
  if (!flags.class_folders_path.empty() && flags.num_images > 0 && static_cast<int>(images.size()) > flags.num_images) {
    images.resize(static_cast<size_t>(flags.num_images));
  }
  if (images.empty()) return InvalidInputError("no images to evaluate (after the denylist)");

  TS_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::FromFile(flags.model_file));
  MetadataNormalization metadata_normalization;
  if (flags.use_model_metadata) {
    StatusOr<MetadataNormalization> read = ReadInputNormalization(*model, 0);
    if (!read.ok()) {
      Status status = read.status();
      return status.WithContext("--use_model_metadata");
    }
    metadata_normalization = read.value();
  }

  InterpreterOptions options;
  options.kernel_set = flags.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
  options.num_threads = flags.num_interpreter_threads;
  options.max_tensor_bytes = delegate_flags.max_tensor_bytes();
  options.allow_newer_op_versions = delegate_flags.allow_newer_op_versions();
  const std::shared_ptr<const Model>& loaded = model;
  std::vector<DelegateOutcome> outcomes;
  StatusOr<std::unique_ptr<Interpreter>> interpreter = BuildInterpreterWithDelegates(
      [&]() { return Interpreter::Create(loaded, options); }, delegates, ApplyDelegatesOptions(), &outcomes);
  PrintDelegateOutcomes(outcomes, interpreter.ok());
  if (!interpreter.ok()) return interpreter.status();
  std::unique_ptr<Interpreter> reference;
  if (flags.reference) {
    InterpreterOptions reference_options;
    reference_options.kernel_set = KernelSet::kReference;
    reference_options.max_tensor_bytes = options.max_tensor_bytes;
    reference_options.allow_newer_op_versions = options.allow_newer_op_versions;
    TS_ASSIGN_OR_RETURN(reference, Interpreter::Create(loaded, reference_options));
    TS_RETURN_IF_ERROR(reference->AllocateTensors());
  }

  Interpreter* interp = interpreter.value().get();
  if (interp->inputs().size() != 1 || interp->outputs().empty()) {
    return InvalidInputError(flags.model_file + ": an image classifier needs one input and an output (it has " +
                             std::to_string(interp->inputs().size()) + " inputs, " +
                             std::to_string(interp->outputs().size()) + " outputs)");
  }
  const TfLiteTensor& input = *interp->input_tensor(0);
  StatusOr<PreprocessingConfig> preprocessing = PreprocessingForModel(input);
  if (!preprocessing.ok()) {
    Status status = preprocessing.status();
    return status.WithContext(flags.model_file);
  }
  ImageInputConfig input_config;
  input_config.preprocessing = preprocessing.value();
  json normalization = {{"source", "tflite_default"}};
  if (normalization_flags || flags.use_model_metadata) {
    const std::vector<float> m = flags.use_model_metadata ? metadata_normalization.mean
                                 : mean.empty()           ? std::vector<float>{0.0f}
                                                          : mean;
    const std::vector<float> s = flags.use_model_metadata ? metadata_normalization.std
                                 : stddev.empty()         ? std::vector<float>{1.0f}
                                                          : stddev;
    Status set = SetNormalization(input, m, s, &input_config);
    if (!set.ok()) return set.WithContext(flags.model_file);
    normalization = {{"source", flags.use_model_metadata ? "model_metadata" : "flags"}, {"mean", m}, {"std", s}};
    if (input_config.quantization.enabled) {
      normalization["quantized"] = {{"scale", input_config.quantization.scale},
                                    {"zero_point", input_config.quantization.zero_point}};
    }
  }

  ClassificationConfig config;
  config.preprocessing = input_config.preprocessing;
  config.quantization = input_config.quantization;
  config.model_labels = labels;
  const TfLiteTensor& output = *interp->output_tensor(0);
  const int64_t outputs = tflite::NumElements(&output);
  std::string warning;
  std::optional<int> requested_offset;
  if (flags.label_offset != "auto") {
    char* end = nullptr;
    const long value = std::strtol(flags.label_offset.c_str(), &end, 10);
    if (flags.label_offset.empty() || *end != '\0' || value < -1000000 || value > 1000000) {
      return UsageError("--label_offset=" + flags.label_offset + ": expected auto or an integer");
    }
    requested_offset = static_cast<int>(value);
  }
  TS_ASSIGN_OR_RETURN(int offset,
                      ChooseLabelOffset(outputs, labels.size(), requested_offset, flags.model_output_labels, &warning));
  if (!warning.empty()) std::cerr << "WARNING: " << warning << " (--label_offset sets it)" << std::endl;
  config.label_offset = offset;
  config.num_preprocessing_threads = flags.num_preprocessing_threads;
  config.skip_unreadable_images = flags.skip_unreadable_images;
  config.keep_predictions = flags.per_image;

  ClassificationReport report;
  ReportEnvelope& envelope = report.envelope;
  envelope.start_time = start_time;
  envelope.machine = ReadMachineInfo();
  envelope.model.path = flags.model_file;
  envelope.model.size_bytes = static_cast<int64_t>(loaded->file_bytes());
  envelope.model.sha256 = Sha256Hex(loaded->file_data(), loaded->file_bytes());
  envelope.config.num_threads = flags.num_interpreter_threads;
  envelope.config.kernels = flags.use_reference_kernels ? "reference" : "optimized";
  for (const DelegateOutcome& o : outcomes) {
    ReportedDelegate d;
    d.provider = o.provider;
    d.applied = o.applied;
    d.delegate_kernels = o.delegate_kernels;
    d.fully_delegated = o.fully_delegated;
    d.error = o.error;
    envelope.config.delegates.push_back(d);
  }
  std::vector<int> input_shape;
  for (int i = 0; input.dims != nullptr && i < input.dims->size; ++i) input_shape.push_back(input.dims->data[i]);
  envelope.config.inputs.push_back(
      {input.name != nullptr ? input.name : "", TfLiteTypeGetName(input.type), input_shape, "images"});
  envelope.config.settings = DatasetSettings(images, labels, normalization.dump(), config.label_offset);
  CompleteEnvelope(table, delegate_flags, &envelope);
  // A shard evaluates its part of the list; the settings above name the whole list, as every shard's do.
  const ShardInfo part = ShardPart(shard, static_cast<int64_t>(images.size()), "images");
  if (part.present()) envelope.shard = part;
  report.image_root = flags.class_folders_path.empty() ? flags.ground_truth_images_path : flags.class_folders_path;
  report.details = {
      {"ground_truth_images_path", flags.ground_truth_images_path},
      {"ground_truth_labels", flags.ground_truth_labels},
      {"class_folders_path", flags.class_folders_path},
      {"model_output_labels", flags.model_output_labels},
      {"denylist_file_path", flags.denylist_file_path},
      {"num_images", flags.num_images},
      {"num_preprocessing_threads", flags.num_preprocessing_threads},
      {"skip_unreadable_images", flags.skip_unreadable_images},
      {"layout", config.preprocessing.nchw ? "NCHW" : "NHWC"},
      {"normalization", normalization},
      {"num_outputs", outputs},
      {"num_labels", labels.size()},
      {"label_offset", config.label_offset},
  };
  // A baseline made with another configuration is refused before any image is evaluated.
  if (!flags.baseline.empty()) {
    TS_RETURN_IF_ERROR(CheckComparable(baseline.envelope, envelope, flags.baseline, flags.allow_config_change,
                                       &report.gate.config_change));
  }
  ClassificationResult result;
  const std::vector<LabelledImage> part_images(images.begin() + part.first, images.begin() + part.end);
  TS_RETURN_IF_ERROR(RunClassification(part_images, config, interp, reference.get(), &result, MakeProgress()));
  for (EvaluatedImage& e : result.evaluated) e.image += static_cast<int>(part.first);  // index into the whole list
  for (const std::string& skipped : result.skipped) std::cerr << "WARNING: skipped " << skipped << std::endl;
  if (result.topk.images() == 0 && !part.present()) return InvalidInputError("every image was skipped; nothing evaluated");
  if (part.present()) {
    std::cout << "Shard " << part.index << " of " << part.count << ": images " << part.first << " to " << part.end
              << " of " << part.total << " (merge the shard reports with merge_reports)" << std::endl;
  }

  report.images = &images;
  report.result = &result;
  report.has_reference = reference != nullptr;
  report.per_image = flags.per_image;
  if (!flags.baseline.empty()) {
    report.gate.requested = true;
    report.gate.baseline_path = flags.baseline;
    AccuracyRun baseline_run, current_run;
    AccuracyRuns(baseline, images, result, &baseline_run, &current_run);
    AccuracyGateConfig gate_config;
    gate_config.max_accuracy_drop_pct = flags.max_accuracy_drop_pct;
    gate_config.require_same_predictions = flags.require_same_predictions;
    report.gate.accuracy = CompareAccuracy(baseline_run, current_run, gate_config);
  }
  // Labels and paths may hold any bytes: invalid UTF-8 is replaced, never a throw.
  const std::string text =
      ClassificationReportJson(report).dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  PrintReport(json::parse(text));
  if (report.gate.requested) {
    std::cout << FormatAccuracyGate(report.gate.accuracy) << "\n"
              << FormatGateVerdict(report.gate.accuracy.verdict, report.gate.config_change) << std::endl;
  }
  if (!flags.output_file_path.empty()) {
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.output_file_path, text, "output_file_path"));
  }
  return report.gate.requested ? GateExitCode(report.gate.accuracy.verdict) : 0;
}

int Main(int argc, char** argv) {
  EvalFlags flags;
  FlagTable table;
  table.AddString("model_file", &flags.model_file, "the .tflite classifier");
  table.AddString("ground_truth_images_path", &flags.ground_truth_images_path, "folder of images (sorted by name)");
  table.AddString("ground_truth_labels", &flags.ground_truth_labels, "one label per image, in image order");
  table.AddString("model_output_labels", &flags.model_output_labels, "one label per model output");
  table.AddString("output_file_path", &flags.output_file_path, "write the JSON report here (docs/imagenet_eval.md)");
  table.AddString("denylist_file_path", &flags.denylist_file_path, "1-based image numbers to leave out");
  table.AddString("class_folders_path", &flags.class_folders_path, "instead of images+labels: one folder per class, named by its label");
  table.AddInt("num_images", &flags.num_images, "evaluate the first N images (0: all)");
  table.AddInt("num_interpreter_threads", &flags.num_interpreter_threads, "interpreter threads");
  table.AddString("delegate", &flags.delegate, DelegateFlagHelp());
  table.AddString("input_mean", &flags.input_mean, "normalisation mean, one value or three (default: TFLite's)");
  table.AddString("input_std", &flags.input_std, "normalisation std, one value or three (default: TFLite's)");
  table.AddBool("use_model_metadata", &flags.use_model_metadata, "normalise with the mean/std of the model's TFLite metadata");
  table.AddString("label_offset", &flags.label_offset, "output i is label i-offset; auto: detect 1001 vs 1000 classes from the sizes");
  table.AddInt("num_preprocessing_threads", &flags.num_preprocessing_threads, "decode/preprocess ahead on N threads (0: inline)");
  table.AddBool("skip_unreadable_images", &flags.skip_unreadable_images, "skip corrupt images with a warning instead of stopping");
  table.AddBool("reference", &flags.reference, "also run the reference kernels and report both");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels, "run the reference kernels only");
  table.AddBool("per_image", &flags.per_image, "put per-image predictions in the JSON report");
  table.AddString("baseline", &flags.baseline,
                  "gate against this --output_file_path report of an earlier run: exit 1 when top-1 or top-5 drop by "
                  "more than --max_accuracy_drop_pct, 2 when the configurations differ (docs/gates.md)");
  table.AddBool("allow_config_change", &flags.allow_config_change,
                "let --baseline compare runs whose model, threads, kernels, delegates, images or labels differ");
  table.AddFloat("max_accuracy_drop_pct", &flags.max_accuracy_drop_pct,
                 "drop of top-1 or top-5 accuracy, in percentage points, that --baseline tolerates");
  table.AddBool("require_same_predictions", &flags.require_same_predictions,
                "--baseline also fails when any image's top-1 label changed");
  table.AddInt("shard_index", &flags.shard_index,
               "with --num_shards: evaluate shard I of N, images [T*I/N, T*(I+1)/N) of the list, and write a shard "
               "report for merge_reports (docs/cluster.md)");
  table.AddInt("num_shards", &flags.num_shards, "split the image list into N shards (with --shard_index)");
  DelegateFlagGroup delegate_flags;
  delegate_flags.AddTo(&table);
  bool help = false;
  Status parsed = table.Parse(argc, argv, &help, nullptr);
  if (help) {
    std::cout << table.Usage("imagenet_eval");
    return 0;
  }
  if (!parsed.ok()) return ReportFailure(parsed);
  if (flags.num_preprocessing_threads < 0 || flags.num_preprocessing_threads > 64) {
    return ReportFailure(UsageError("--num_preprocessing_threads must be in [0, 64]"));
  }
  std::vector<std::string> warnings;
  Status threads = CheckThreadCount("num_interpreter_threads", flags.num_interpreter_threads, false, &warnings);
  if (!threads.ok()) return ReportFailure(threads);
  if (flags.num_interpreter_threads > 256) {
    return ReportFailure(UsageError("--num_interpreter_threads must be in [1, 256]"));
  }
  for (const std::string& w : warnings) std::cerr << "WARNING: " << w << std::endl;
  if (flags.num_images < 0) return ReportFailure(UsageError("--num_images must not be negative"));
  return delegate_flags.RunIsolated(table, [&]() {
    StatusOr<int> code = Run(flags, table, delegate_flags);
    return code.ok() ? code.value() : ReportFailure(code.status());
  });
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
