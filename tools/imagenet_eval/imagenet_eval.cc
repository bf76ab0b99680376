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
#include "evaluation/image_classification.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/model.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/imagenet_eval/eval_tool_support.h"

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

json LatencyJson(const LatencyStats& stats) {
  return {{"count", stats.count()},   {"avg", stats.mean_us()},   {"std_dev", stats.stddev_us()},
          {"min", stats.min_us()},    {"max", stats.max_us()},    {"p50", stats.percentile_us(50)},
          {"p95", stats.percentile_us(95)}};
}

std::string ShapeText(const TfLiteTensor& t) {
  std::string shape = "[";
  for (int i = 0; t.dims != nullptr && i < t.dims->size; ++i) shape += (i ? "," : "") + std::to_string(t.dims->data[i]);
  return shape + "]";
}

// The lines TFLite prints (and ours after them), all read from the report.
void PrintReport(const json& report) {
  std::cout << "Num evaluation runs: " << report["num_evaluation_runs"].get<int>() << std::endl;
  const json& latency = report["latency_us"];
  std::cout << "Preprocessing latency: avg=" << latency["preprocessing"]["avg"].get<double>() << "(us), std_dev="
            << static_cast<int64_t>(latency["preprocessing"]["std_dev"].get<double>()) << "(us)" << std::endl;
  std::cout << "Inference latency: avg=" << latency["inference"]["avg"].get<double>() << "(us), std_dev="
            << static_cast<int64_t>(latency["inference"]["std_dev"].get<double>()) << "(us)" << std::endl;
  const json& accuracy = report["topk_accuracy"];
  for (size_t k = 0; k < accuracy.size(); ++k) {
    std::cout << "Top-" << k + 1 << " Accuracy: " << Printed(accuracy[k].get<float>()) << std::endl;
  }
  if (report.contains("reference")) {
    const json& ref = report["reference"];
    for (size_t k = 0; k < ref["topk_accuracy"].size(); ++k) {
      std::cout << "Reference Top-" << k + 1 << " Accuracy: " << Printed(ref["topk_accuracy"][k].get<float>())
                << " (delta " << Printed(ref["topk_accuracy_delta"][k].get<float>()) << ")" << std::endl;
    }
    std::cout << "Reference inference latency: avg=" << ref["inference_latency_us"]["avg"].get<double>()
              << "(us), std_dev=" << static_cast<int64_t>(ref["inference_latency_us"]["std_dev"].get<double>())
              << "(us)" << std::endl;
    std::cout << "Images whose top-1 changed against the reference: " << ref["top1_changed"].get<int>() << std::endl;
  }
  std::printf("Wall time: %.3f s (%.2f images/s)\n", report["wall_seconds"].get<double>(),
              report["images_per_second"].get<double>());
  std::fflush(stdout);
}

Status Run(const EvalFlags& flags, const FlagTable& table, const DelegateFlagGroup& delegate_flags) {
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
  StatusOr<std::vector<float>> mean = ParseFloats(flags.input_mean, "input_mean");
  if (!mean.ok()) return mean.status();
  StatusOr<std::vector<float>> stddev = ParseFloats(flags.input_std, "input_std");
  if (!stddev.ok()) return stddev.status();
  for (float s : stddev.value()) {
    if (s == 0.0f) return UsageError("--input_std must not be 0");
  }
  const bool normalization_flags = !mean.value().empty() || !stddev.value().empty();
  if (normalization_flags && flags.use_model_metadata) {
    return UsageError("--use_model_metadata and --input_mean/--input_std both set the normalisation; give one");
  }

  TS_RETURN_IF_ERROR(CheckWritable(flags.output_file_path, "output_file_path"));
  // Declared before the interpreter, which holds kernels of these delegates and must go first.
  StatusOr<std::vector<ProvidedDelegate>> delegates =
      CreateDelegatesWithName(table, delegate_flags, flags.delegate, flags.num_interpreter_threads,
                              flags.use_reference_kernels);
  if (!delegates.ok()) return delegates.status();

  StatusOr<std::vector<std::string>> labels = ReadLines(flags.model_output_labels);
  if (!labels.ok()) return labels.status();
  if (labels.value().empty()) return InvalidInputError(flags.model_output_labels + ": no labels");
  StatusOr<std::vector<LabelledImage>> images =
      flags.class_folders_path.empty()
          ? LoadImageNetSet(flags.ground_truth_images_path, flags.ground_truth_labels, flags.denylist_file_path,
                            flags.num_images)
          : LoadClassFolders(flags.class_folders_path, 0);
  if (!images.ok()) return images.status();
  if (!flags.class_folders_path.empty() && flags.num_images > 0 &&
      static_cast<int>(images.value().size()) > flags.num_images) {
    images.value().resize(static_cast<size_t>(flags.num_images));
  }
  if (images.value().empty()) return InvalidInputError("no images to evaluate (after the denylist)");

  StatusOr<std::shared_ptr<const Model>> model = Model::FromFile(flags.model_file);
  if (!model.ok()) return model.status();
  MetadataNormalization metadata_normalization;
  if (flags.use_model_metadata) {
    StatusOr<MetadataNormalization> read = ReadInputNormalization(*model.value(), 0);
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
  const std::shared_ptr<const Model>& loaded = model.value();
  std::vector<DelegateOutcome> outcomes;
  StatusOr<std::unique_ptr<Interpreter>> interpreter = BuildInterpreterWithDelegates(
      [&]() { return Interpreter::Create(loaded, options); }, delegates.value(), ApplyDelegatesOptions(), &outcomes);
  PrintDelegateOutcomes(outcomes, interpreter.ok());
  if (!interpreter.ok()) return interpreter.status();
  std::unique_ptr<Interpreter> reference;
  if (flags.reference) {
    InterpreterOptions reference_options;
    reference_options.kernel_set = KernelSet::kReference;
    reference_options.max_tensor_bytes = options.max_tensor_bytes;
    StatusOr<std::unique_ptr<Interpreter>> created = Interpreter::Create(loaded, reference_options);
    if (!created.ok()) return created.status();
    reference = std::move(created.value());
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
                                 : mean.value().empty()   ? std::vector<float>{0.0f}
                                                          : mean.value();
    const std::vector<float> s = flags.use_model_metadata ? metadata_normalization.std
                                 : stddev.value().empty() ? std::vector<float>{1.0f}
                                                          : stddev.value();
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
  config.model_labels = labels.value();
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
  StatusOr<int> offset = ChooseLabelOffset(outputs, labels.value().size(), requested_offset,
                                           flags.model_output_labels, &warning);
  if (!offset.ok()) return offset.status();
  if (!warning.empty()) std::cerr << "WARNING: " << warning << " (--label_offset sets it)" << std::endl;
  config.label_offset = offset.value();
  config.num_preprocessing_threads = flags.num_preprocessing_threads;
  config.skip_unreadable_images = flags.skip_unreadable_images;
  config.keep_predictions = flags.per_image;

  ClassificationResult result;
  TS_RETURN_IF_ERROR(RunClassification(images.value(), config, interp, reference.get(), &result,
                                       MakeProgress(stderr, isatty(fileno(stderr)) != 0)));
  for (const std::string& skipped : result.skipped) std::cerr << "WARNING: skipped " << skipped << std::endl;
  if (result.topk.images() == 0) return InvalidInputError("every image was skipped; nothing evaluated");

  json report;
  report["tool"] = "imagenet_eval";
  json delegates_json = json::array();
  for (const DelegateOutcome& o : outcomes) {
    delegates_json.push_back({{"provider", o.provider}, {"applied", o.applied}, {"delegate_kernels", o.delegate_kernels},
                              {"fully_delegated", o.fully_delegated}, {"error", o.error}});
  }
  report["configuration"] = {
      {"model_file", flags.model_file},
      {"ground_truth_images_path", flags.ground_truth_images_path},
      {"ground_truth_labels", flags.ground_truth_labels},
      {"class_folders_path", flags.class_folders_path},
      {"model_output_labels", flags.model_output_labels},
      {"denylist_file_path", flags.denylist_file_path},
      {"num_images", flags.num_images},
      {"num_interpreter_threads", flags.num_interpreter_threads},
      {"num_preprocessing_threads", flags.num_preprocessing_threads},
      {"kernel_set", flags.use_reference_kernels ? "reference" : "optimized"},
      {"delegate", flags.delegate},
      {"delegates", delegates_json},
      {"skip_unreadable_images", flags.skip_unreadable_images},
      {"input", {{"name", input.name != nullptr ? input.name : ""},
                 {"shape", ShapeText(input)},
                 {"type", TfLiteTypeGetName(input.type)},
                 {"layout", config.preprocessing.nchw ? "NCHW" : "NHWC"}}},
      {"normalization", normalization},
      {"num_outputs", outputs},
      {"num_labels", labels.value().size()},
      {"label_offset", config.label_offset},
  };
  report["num_evaluation_runs"] = result.topk.images();
  report["topk_accuracy"] = result.topk.accuracies();
  report["topk_hits"] = result.topk.hits();
  report["latency_us"] = {{"preprocessing", LatencyJson(result.preprocessing_us)},
                          {"inference", LatencyJson(result.inference_us)}};
  report["wall_seconds"] = result.wall_seconds;
  report["images_per_second"] =
      result.wall_seconds > 0 ? static_cast<double>(images.value().size()) / result.wall_seconds : 0.0;
  report["skipped"] = result.skipped;
  if (reference) {
    const std::vector<float> ours = result.topk.accuracies(), ref = result.reference_topk.accuracies();
    std::vector<float> delta;
    for (size_t k = 0; k < ours.size(); ++k) delta.push_back(ours[k] - ref[k]);
    report["reference"] = {{"topk_accuracy", ref},
                           {"topk_hits", result.reference_topk.hits()},
                           {"topk_accuracy_delta", delta},
                           {"top1_changed", result.top1_changed},
                           {"inference_latency_us", LatencyJson(result.reference_inference_us)}};
  }
  if (flags.per_image) {
    report["images"] = json::array();
    for (const ImagePrediction& p : result.predictions) {
      json image = {{"path", p.path}, {"label", p.label}, {"first_hit_rank", p.first_hit_rank},
                    {"top_indices", p.top_indices}};
      json top_labels = json::array();
      for (int i : p.top_indices) top_labels.push_back(result.output_labels[i]);
      image["top_labels"] = top_labels;
      if (reference) {
        image["reference_first_hit_rank"] = p.reference_first_hit_rank;
        image["reference_top_indices"] = p.reference_top_indices;
        image["top1_changed"] = p.top1_changed;
      }
      report["images"].push_back(image);
    }
  }
  PrintReport(report);
  if (!flags.output_file_path.empty()) {
    // Labels and paths may hold any bytes: invalid UTF-8 is replaced, never a throw.
    const std::string text = report.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.output_file_path, text, "output_file_path"));
  }
  return Status::Ok();
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
  if (flags.num_interpreter_threads < 1 || flags.num_interpreter_threads > 256) {
    return ReportFailure(UsageError("--num_interpreter_threads must be in [1, 256]"));
  }
  if (flags.num_images < 0) return ReportFailure(UsageError("--num_images must not be negative"));
  return delegate_flags.RunIsolated(table, [&]() {
    Status status = Run(flags, table, delegate_flags);
    return status.ok() ? 0 : ReportFailure(status);
  });
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
