#include "evaluation/imagenet_eval_pipeline.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "datasets/imagenet_folder.h"
#include "datasets/model_metadata.h"
#include "delegates/providers/apply_delegates.h"
#include "evaluation/classification_report.h"
#include "evaluation/eval_hooks.h"
#include "evaluation/image_classification.h"
#include "evaluation/machine_info.h"
#include "evaluation/sha256.h"
#include "evaluation/shards.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/logging.h"
#include "runtime/model.h"

namespace touchstone {
namespace {

using nlohmann::json;

// The lines TFLite prints (and ours after them), all read from the report. Figures as TFLite streams
// them: six significant digits ({:g}) of a double, or of a float for the accuracies.
void PrintReport(const json& report) {
  PrintTfliteLatencyLines(report);
  const json& accuracy = report["topk_accuracy"];
  for (size_t k = 0; k < accuracy.size(); ++k) {
    PrintLine(fmt::format("Top-{} Accuracy: {:g}", k + 1, accuracy[k].get<float>()));
  }
  if (!report["reference"].is_null()) {
    const json& ref = report["reference"];
    for (size_t k = 0; k < ref["topk_accuracy"].size(); ++k) {
      PrintLine(fmt::format("Reference Top-{} Accuracy: {:g} (delta {:g})", k + 1, ref["topk_accuracy"][k].get<float>(),
                            ref["topk_accuracy_delta"][k].get<float>()));
    }
    PrintLine(fmt::format("Reference inference latency: avg={:g}(us), std_dev={}(us)",
                          ref["inference_latency"]["tflite"]["avg"].get<double>(),
                          ref["inference_latency"]["tflite"]["std"].get<int64_t>()));
    PrintLine(fmt::format("Images whose top-1 changed against the reference: {}", ref["top1_changed"].get<int>()));
  }
  PrintLine(fmt::format("Wall time: {:.3f} s ({:.2f} images/s)", report["wall_seconds"].get<double>(),
                        report["images_per_second"].get<double>()));
}

// The images and their labels: the numbered folder with its label file (less the denylist), or one
// folder per class; the first --num_images of them.
StatusOr<std::vector<LabelledImage>> LoadGroundTruth(const ImageNetEvalOptions& o) {
  TS_ASSIGN_OR_RETURN(std::vector<LabelledImage> images,
                      o.class_folders_path.empty() ? LoadImageNetSet(o.ground_truth_images_path, o.ground_truth_labels,
                                                                     o.denylist_file_path, o.num_images)
                                                   : LoadClassFolders(o.class_folders_path, 0));
  if (!o.class_folders_path.empty() && o.num_images > 0 && static_cast<int>(images.size()) > o.num_images) {
    images.resize(static_cast<size_t>(o.num_images));
  }
  if (images.empty()) return InvalidInputError("no images to evaluate (after the denylist)");
  return images;
}

// The interpreter under test with the delegates applied (their outcomes printed) and, with
// --reference, one on the reference kernels.
struct Interpreters {
  std::unique_ptr<Interpreter> test;
  std::unique_ptr<Interpreter> reference;
  std::vector<DelegateOutcome> outcomes;
};

StatusOr<Interpreters> BuildInterpreters(const std::shared_ptr<const Model>& model, const ImageNetEvalOptions& o,
                                         const std::vector<ProvidedDelegate>& delegates) {
  InterpreterOptions options;
  options.kernel_set = o.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
  options.num_threads = o.num_interpreter_threads;
  options.max_tensor_bytes = o.max_tensor_bytes;
  options.allow_newer_op_versions = o.allow_newer_op_versions;
  Interpreters built;
  StatusOr<std::unique_ptr<Interpreter>> interpreter = BuildInterpreterWithDelegates(
      [&]() { return Interpreter::Create(model, options); }, delegates, ApplyDelegatesOptions(), &built.outcomes);
  PrintDelegateOutcomes(built.outcomes, interpreter.ok());
  TS_ASSIGN_OR_RETURN(built.test, std::move(interpreter));
  if (o.reference) {
    InterpreterOptions reference_options;
    reference_options.kernel_set = KernelSet::kReference;
    reference_options.max_tensor_bytes = options.max_tensor_bytes;
    reference_options.allow_newer_op_versions = options.allow_newer_op_versions;
    TS_ASSIGN_OR_RETURN(built.reference, Interpreter::Create(model, reference_options));
    TS_RETURN_IF_ERROR(built.reference->AllocateTensors());
  }
  return built;
}

// The input's preprocessing and normalisation (TFLite's default, the flags' or the metadata's), and
// the report's record of the normalisation in *normalization.
StatusOr<ImageInputConfig> ConfigureInput(const TfLiteTensor& input, const ImageNetEvalOptions& o,
                                          const MetadataNormalization& metadata, json* normalization) {
  StatusOr<PreprocessingConfig> preprocessing = PreprocessingForModel(input);
  if (!preprocessing.ok()) {
    Status status = preprocessing.status();
    return status.WithContext(o.model_file);
  }
  ImageInputConfig input_config;
  input_config.preprocessing = preprocessing.value();
  *normalization = {{"source", "tflite_default"}};
  TS_ASSIGN_OR_RETURN(std::vector<float> mean, ParseNormalizationValues(o.input_mean, "input_mean"));
  TS_ASSIGN_OR_RETURN(std::vector<float> stddev, ParseNormalizationValues(o.input_std, "input_std"));
  if (mean.empty() && stddev.empty() && !o.use_model_metadata) return input_config;
  const std::vector<float> m = o.use_model_metadata ? metadata.mean : mean.empty() ? std::vector<float>{0.0f} : mean;
  const std::vector<float> s = o.use_model_metadata ? metadata.std : stddev.empty() ? std::vector<float>{1.0f} : stddev;
  Status set = SetNormalization(input, m, s, &input_config);
  if (!set.ok()) return set.WithContext(o.model_file);
  *normalization = {{"source", o.use_model_metadata ? "model_metadata" : "flags"}, {"mean", m}, {"std", s}};
  if (input_config.quantization.enabled) {
    (*normalization)["quantized"] = {{"scale", input_config.quantization.scale},
                                     {"zero_point", input_config.quantization.zero_point}};
  }
  return input_config;
}

// Output i is label i - offset: --label_offset, or auto (1001 outputs for 1000 labels: 1). A guess
// prints a warning.
StatusOr<int> ResolveLabelOffset(const ImageNetEvalOptions& o, int64_t outputs, size_t num_labels) {
  std::optional<int> requested;
  if (o.label_offset != "auto") {
    int value = 0;
    if (!absl::SimpleAtoi(o.label_offset, &value) || value < -1000000 || value > 1000000) {
      return UsageError("--label_offset=" + o.label_offset + ": expected auto or an integer");
    }
    requested = value;
  }
  std::string warning;
  TS_ASSIGN_OR_RETURN(int offset, ChooseLabelOffset(outputs, num_labels, requested, o.model_output_labels, &warning));
  if (!warning.empty()) LogWarning("{} (--label_offset sets it)", warning);
  return offset;
}

// The envelope's model, configuration and settings (the whole list's, as every shard's are).
void FillEnvelope(const ImageNetEvalOptions& o, const Model& model, const Interpreters& interpreters,
                  const std::vector<LabelledImage>& images, const std::vector<std::string>& labels,
                  const json& normalization, int label_offset, ReportEnvelope* envelope) {
  envelope->machine = ReadMachineInfo();
  envelope->model.path = o.model_file;
  envelope->model.size_bytes = static_cast<int64_t>(model.file_bytes());
  envelope->model.sha256 = Sha256Hex(model.file_data(), model.file_bytes());
  envelope->config.num_threads = o.num_interpreter_threads;
  envelope->config.kernels = o.use_reference_kernels ? "reference" : "optimized";
  envelope->config.delegates = ReportedDelegates(interpreters.outcomes);
  const TfLiteTensor& input = *interpreters.test->input_tensor(0);
  std::vector<int> input_shape;
  for (int i = 0; input.dims != nullptr && i < input.dims->size; ++i) input_shape.push_back(input.dims->data[i]);
  envelope->config.inputs.push_back(
      {input.name != nullptr ? input.name : "", TfLiteTypeGetName(input.type), input_shape, "images"});
  envelope->config.settings = DatasetSettings(images, labels, normalization.dump(), label_offset);
}

json ReportDetails(const ImageNetEvalOptions& o, const ClassificationConfig& config, const json& normalization,
                   int64_t outputs, size_t num_labels) {
  return {
      {"ground_truth_images_path", o.ground_truth_images_path},
      {"ground_truth_labels", o.ground_truth_labels},
      {"class_folders_path", o.class_folders_path},
      {"model_output_labels", o.model_output_labels},
      {"denylist_file_path", o.denylist_file_path},
      {"num_images", o.num_images},
      {"num_preprocessing_threads", o.num_preprocessing_threads},
      {"skip_unreadable_images", o.skip_unreadable_images},
      {"layout", config.preprocessing.nchw ? "NCHW" : "NHWC"},
      {"normalization", normalization},
      {"num_outputs", outputs},
      {"num_labels", num_labels},
      {"label_offset", config.label_offset},
  };
}

// Evaluates this shard's part of `images` (all of them without shards) into *result, with indices into
// the whole list. Prints the skipped images and, for a shard, which part it did.
Status EvaluateImages(const std::vector<LabelledImage>& images, const ShardInfo& part,
                      const ClassificationConfig& config, const Interpreters& interpreters, const EvalHooks& hooks,
                      ClassificationResult* result) {
  const std::vector<LabelledImage> part_images(images.begin() + part.first, images.begin() + part.end);
  TS_RETURN_IF_ERROR(RunClassification(part_images, config, interpreters.test.get(), interpreters.reference.get(),
                                       result, hooks.make_progress ? hooks.make_progress() : nullptr));
  for (EvaluatedImage& e : result->evaluated) e.image += static_cast<int>(part.first);
  for (const std::string& skipped : result->skipped) LogWarning("skipped {}", skipped);
  if (result->topk.images() == 0 && !part.present()) {
    return InvalidInputError("every image was skipped; nothing evaluated");
  }
  if (part.present()) PrintLine(DescribeShard(part));
  return Status::Ok();
}

// The report's text, printed with the gate's lines; the exit code.
ImageNetEvalOutcome FinishReport(const ImageNetEvalOptions& o, const ClassificationBaseline& baseline,
                                 const std::vector<LabelledImage>& images, const ClassificationResult& result,
                                 ClassificationReport* report) {
  report->images = &images;
  report->result = &result;
  report->per_image = o.per_image;
  if (!o.baseline.empty()) {
    report->gate.requested = true;
    report->gate.baseline_path = o.baseline;
    AccuracyRun baseline_run, current_run;
    AccuracyRuns(baseline, images, result, &baseline_run, &current_run);
    AccuracyGateConfig gate_config;
    gate_config.max_accuracy_drop_pct = o.max_accuracy_drop_pct;
    gate_config.require_same_predictions = o.require_same_predictions;
    report->gate.accuracy = CompareAccuracy(baseline_run, current_run, gate_config);
  }
  ImageNetEvalOutcome outcome;
  // Labels and paths may hold any bytes: invalid UTF-8 is replaced, never a throw.
  outcome.report_json =
      ClassificationReportJson(*report).dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  PrintReport(json::parse(outcome.report_json));
  if (report->gate.requested) {
    std::cout << FormatAccuracyGate(report->gate.accuracy) << "\n"
              << FormatGateVerdict(report->gate.accuracy.verdict, report->gate.config_change) << std::endl;
  }
  outcome.exit_code = report->gate.requested ? GateExitCode(report->gate.accuracy.verdict) : 0;
  return outcome;
}

}  // namespace

StatusOr<std::vector<float>> ParseNormalizationValues(const std::string& text, const std::string& flag) {
  std::vector<float> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    float v = 0.0f;
    if (!absl::SimpleAtof(item, &v) || !std::isfinite(v)) {
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

Status CheckImageNetEvalOptions(const ImageNetEvalOptions& o) {
  for (const auto& required :
       {std::make_pair("model_file", o.model_file), std::make_pair("model_output_labels", o.model_output_labels)}) {
    if (required.second.empty()) return UsageError(std::string("--") + required.first + " is required");
  }
  if (o.class_folders_path.empty() && (o.ground_truth_images_path.empty() || o.ground_truth_labels.empty())) {
    return UsageError("--ground_truth_images_path and --ground_truth_labels are required (or --class_folders_path)");
  }
  if (!o.class_folders_path.empty() && (!o.ground_truth_images_path.empty() || !o.ground_truth_labels.empty())) {
    return UsageError(
        "--class_folders_path replaces --ground_truth_images_path and --ground_truth_labels; give one or the other");
  }
  if (!o.class_folders_path.empty() && !o.denylist_file_path.empty()) {
    return UsageError(
        "--denylist_file_path numbers the images of --ground_truth_images_path; it does not apply to "
        "--class_folders_path");
  }
  TS_ASSIGN_OR_RETURN(std::vector<float> mean, ParseNormalizationValues(o.input_mean, "input_mean"));
  TS_ASSIGN_OR_RETURN(std::vector<float> stddev, ParseNormalizationValues(o.input_std, "input_std"));
  for (float s : stddev) {
    if (s == 0.0f) return UsageError("--input_std must not be 0");
  }
  if ((!mean.empty() || !stddev.empty()) && o.use_model_metadata) {
    return UsageError("--use_model_metadata and --input_mean/--input_std both set the normalisation; give one");
  }
  TS_ASSIGN_OR_RETURN(ShardSpec shard, ShardSpecFromFlags(o.shard_index, o.num_shards));
  if (shard.enabled() && !o.baseline.empty()) {
    return UsageError(
        "--baseline gates a whole run: merge the shard reports (merge_reports) and compare the merged "
        "report (report_diff)");
  }
  return Status::Ok();
}

StatusOr<ImageNetEvalOutcome> RunImageNetEval(const ImageNetEvalOptions& o, const std::string& start_time,
                                              const std::string& baseline_text, const EvalHooks& hooks) {
  ClassificationBaseline baseline;
  if (!o.baseline.empty()) {
    TS_ASSIGN_OR_RETURN(baseline, ParseClassificationReport(baseline_text, o.baseline));
  } else if (o.allow_config_change || o.require_same_predictions) {
    return UsageError("--allow_config_change and --require_same_predictions need --baseline=REPORT.json");
  }
  if (o.max_accuracy_drop_pct < 0) return UsageError("--max_accuracy_drop_pct must not be negative");
  TS_ASSIGN_OR_RETURN(ShardSpec shard, ShardSpecFromFlags(o.shard_index, o.num_shards));
  // Declared before the interpreters, which hold kernels of these delegates and must go first.
  TS_ASSIGN_OR_RETURN(std::vector<ProvidedDelegate> delegates, hooks.create_delegates());
  TS_ASSIGN_OR_RETURN(std::vector<std::string> labels, ReadLines(o.model_output_labels));
  if (labels.empty()) return InvalidInputError(o.model_output_labels + ": no labels");
  TS_ASSIGN_OR_RETURN(std::vector<LabelledImage> images, LoadGroundTruth(o));

  TS_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::FromFile(o.model_file));
  MetadataNormalization metadata;
  if (o.use_model_metadata) {
    StatusOr<MetadataNormalization> read = ReadInputNormalization(*model, 0);
    if (!read.ok()) {
      Status status = read.status();
      return status.WithContext("--use_model_metadata");
    }
    metadata = read.value();
  }
  TS_ASSIGN_OR_RETURN(Interpreters interpreters, BuildInterpreters(model, o, delegates));
  Interpreter* interp = interpreters.test.get();
  if (interp->inputs().size() != 1 || interp->outputs().empty()) {
    return InvalidInputError(o.model_file + ": an image classifier needs one input and an output (it has " +
                             std::to_string(interp->inputs().size()) + " inputs, " +
                             std::to_string(interp->outputs().size()) + " outputs)");
  }
  json normalization;
  TS_ASSIGN_OR_RETURN(ImageInputConfig input_config,
                      ConfigureInput(*interp->input_tensor(0), o, metadata, &normalization));
  ClassificationConfig config;
  config.preprocessing = input_config.preprocessing;
  config.quantization = input_config.quantization;
  config.model_labels = labels;
  const int64_t outputs = tflite::NumElements(interp->output_tensor(0));
  TS_ASSIGN_OR_RETURN(config.label_offset, ResolveLabelOffset(o, outputs, labels.size()));
  config.num_preprocessing_threads = o.num_preprocessing_threads;
  config.skip_unreadable_images = o.skip_unreadable_images;
  config.keep_predictions = o.per_image;

  ClassificationReport report;
  report.envelope.start_time = start_time;
  FillEnvelope(o, *model, interpreters, images, labels, normalization, config.label_offset, &report.envelope);
  if (hooks.complete_envelope) hooks.complete_envelope(&report.envelope);
  const ShardInfo part = ShardPart(shard, static_cast<int64_t>(images.size()), "images");
  if (part.present()) report.envelope.shard = part;
  report.image_root = o.class_folders_path.empty() ? o.ground_truth_images_path : o.class_folders_path;
  report.details = ReportDetails(o, config, normalization, outputs, labels.size());
  // A baseline made with another configuration is refused before any image is evaluated.
  if (!o.baseline.empty()) {
    TS_RETURN_IF_ERROR(CheckComparable(baseline.envelope, report.envelope, o.baseline, o.allow_config_change,
                                       &report.gate.config_change));
  }
  ClassificationResult result;
  TS_RETURN_IF_ERROR(EvaluateImages(images, part, config, interpreters, hooks, &result));
  report.has_reference = interpreters.reference != nullptr;
  return FinishReport(o, baseline, images, result, &report);
}

}  // namespace touchstone
