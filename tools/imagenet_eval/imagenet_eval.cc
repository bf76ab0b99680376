// imagenet_eval: top-1..top-10 accuracy of an image classifier on an ImageNet-style folder, with
// TensorFlow Lite's run_eval flags, preprocessing (bit-exact) and output lines, plus latencies. It
// measures accuracy and per-image latency; it does not measure throughput under load, and it knows
// nothing of a model's training distribution beyond the normalisation it is told.
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/imagenet_folder.h"
#include "evaluation/image_classification.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "runtime/kernels/kernel_util.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"

namespace touchstone {
namespace {

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
  int32_t label_offset = -1;
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
    if (item.empty() || *end != '\0') return UsageError("--" + flag + ": '" + item + "' is not a number");
    values.push_back(v);
  }
  if (values.size() != 0 && values.size() != 1 && values.size() != 3) {
    return UsageError("--" + flag + " takes one value or three (per channel)");
  }
  return values;
}

std::string Accuracy(float value) {
  std::ostringstream out;
  out << value;  // six significant digits, as TFLite prints it
  return out.str();
}

Status Run(const EvalFlags& flags) {
  for (const auto& required : {std::make_pair("model_file", flags.model_file),
                               std::make_pair("model_output_labels", flags.model_output_labels)}) {
    if (required.second.empty()) return UsageError(std::string("--") + required.first + " is required");
  }
  if (flags.class_folders_path.empty() &&
      (flags.ground_truth_images_path.empty() || flags.ground_truth_labels.empty())) {
    return UsageError("--ground_truth_images_path and --ground_truth_labels are required (or --class_folders_path)");
  }
  if (!flags.delegate.empty()) {
    return UsageError("--delegate=" + flags.delegate + ": no such delegate is available yet");
  }
  StatusOr<std::vector<float>> mean = ParseFloats(flags.input_mean, "input_mean");
  if (!mean.ok()) return mean.status();
  StatusOr<std::vector<float>> stddev = ParseFloats(flags.input_std, "input_std");
  if (!stddev.ok()) return stddev.status();
  for (float s : stddev.value()) {
    if (s == 0.0f) return UsageError("--input_std must not be 0");
  }

  StatusOr<std::vector<std::string>> labels = ReadLines(flags.model_output_labels);
  if (!labels.ok()) return labels.status();
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

  StatusOr<std::shared_ptr<const Model>> model = Model::FromFile(flags.model_file);
  if (!model.ok()) return model.status();
  InterpreterOptions options;
  options.kernel_set = flags.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
  options.num_threads = flags.num_interpreter_threads;
  StatusOr<std::unique_ptr<Interpreter>> interpreter = Interpreter::Create(model.value(), options);
  if (!interpreter.ok()) return interpreter.status();
  TS_RETURN_IF_ERROR(interpreter.value()->AllocateTensors());
  std::unique_ptr<Interpreter> reference;
  if (flags.reference) {
    InterpreterOptions reference_options;
    reference_options.kernel_set = KernelSet::kReference;
    StatusOr<std::unique_ptr<Interpreter>> created = Interpreter::Create(model.value(), reference_options);
    if (!created.ok()) return created.status();
    reference = std::move(created.value());
    TS_RETURN_IF_ERROR(reference->AllocateTensors());
  }

  Interpreter* interp = interpreter.value().get();
  if (interp->inputs().size() != 1 || interp->outputs().empty()) {
    return InvalidInputError(flags.model_file + ": an image classifier needs one input and an output");
  }
  StatusOr<PreprocessingConfig> preprocessing = PreprocessingForModel(*interp->input_tensor(0));
  if (!preprocessing.ok()) {
    Status status = preprocessing.status();
    return status.WithContext(flags.model_file);
  }
  ClassificationConfig config;
  config.preprocessing = preprocessing.value();
  if (!mean.value().empty() || !stddev.value().empty()) {
    config.preprocessing.mean = mean.value().empty() ? std::vector<float>{0.0f} : mean.value();
    for (float s : stddev.value().empty() ? std::vector<float>{1.0f} : stddev.value()) {
      config.preprocessing.scale.push_back(1.0f / s);
    }
  }
  config.model_labels = labels.value();
  const int64_t outputs = tflite::NumElements(interp->output_tensor(0));
  if (flags.label_offset >= 0) {
    config.label_offset = flags.label_offset;
  } else if (outputs == static_cast<int64_t>(labels.value().size()) + 1) {
    config.label_offset = 1;
    std::cerr << "WARNING: the model has " << outputs << " outputs and " << labels.value().size()
              << " labels: reading output i as label i-1 (--label_offset=0 to turn off)" << std::endl;
  } else if (outputs + 1 == static_cast<int64_t>(labels.value().size())) {
    config.label_offset = -1;
    std::cerr << "WARNING: the model has " << outputs << " outputs and " << labels.value().size()
              << " labels (with a background line): reading output i as label i+1" << std::endl;
  } else if (outputs != static_cast<int64_t>(labels.value().size())) {
    return InvalidInputError(flags.model_output_labels + ": has " + std::to_string(labels.value().size()) +
                             " labels but the model has " + std::to_string(outputs) + " outputs");
  }
  config.num_preprocessing_threads = flags.num_preprocessing_threads;
  config.skip_unreadable_images = flags.skip_unreadable_images;
  config.keep_predictions = flags.per_image || !flags.output_file_path.empty();

  const bool terminal = isatty(fileno(stderr));
  ClassificationResult result;
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](int done, int total) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = seconds > 0 ? done / seconds : 0.0;
    const double eta = rate > 0 ? (total - done) / rate : 0.0;
    if (terminal) {
      const int width = 30, filled = total > 0 ? width * done / total : width;
      std::fprintf(stderr, "\r[%s%s] %d/%d images, %.1f images/s, ETA %.0f s ", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), done, total, rate, eta);
      if (done == total) std::fprintf(stderr, "\n");
    } else if (done == total || done % 500 == 0) {
      std::fprintf(stderr, "Evaluated %d of %d images (%.1f images/s)\n", done, total, rate);
    }
  };
  TS_RETURN_IF_ERROR(RunClassification(images.value(), config, interp, reference.get(), &result, progress));

  std::cout << "Num evaluation runs: " << result.topk.images() << std::endl;
  std::cout << "Preprocessing latency: avg=" << result.preprocessing_us.mean_us()
            << "(us), std_dev=" << static_cast<int64_t>(result.preprocessing_us.stddev_us()) << "(us)" << std::endl;
  std::cout << "Inference latency: avg=" << result.inference_us.mean_us()
            << "(us), std_dev=" << static_cast<int64_t>(result.inference_us.stddev_us()) << "(us)" << std::endl;
  const std::vector<float> accuracies = result.topk.accuracies();
  for (size_t k = 0; k < accuracies.size(); ++k) {
    std::cout << "Top-" << k + 1 << " Accuracy: " << Accuracy(accuracies[k]) << std::endl;
  }
  if (reference) {
    const std::vector<float> ref = result.reference_topk.accuracies();
    for (size_t k = 0; k < ref.size(); ++k) {
      std::cout << "Reference Top-" << k + 1 << " Accuracy: " << Accuracy(ref[k])
                << " (delta " << Accuracy(accuracies[k] - ref[k]) << ")" << std::endl;
    }
    std::cout << "Images whose top-1 changed against the reference: " << result.top1_changed << std::endl;
  }
  for (const std::string& skipped : result.skipped) std::cerr << "WARNING: skipped " << skipped << std::endl;

  if (!flags.output_file_path.empty()) {
    nlohmann::json report;
    report["model_file"] = flags.model_file;
    report["num_images"] = result.topk.images();
    report["topk_accuracy"] = accuracies;
    report["topk_hits"] = result.topk.hits();
    report["preprocessing_latency_us"] = {{"avg", result.preprocessing_us.mean_us()},
                                          {"std_dev", result.preprocessing_us.stddev_us()}};
    report["inference_latency_us"] = {{"avg", result.inference_us.mean_us()},
                                      {"std_dev", result.inference_us.stddev_us()}};
    report["skipped"] = result.skipped;
    if (reference) {
      report["reference_topk_accuracy"] = result.reference_topk.accuracies();
      report["top1_changed"] = result.top1_changed;
    }
    if (flags.per_image) {
      for (const ImagePrediction& p : result.predictions) {
        report["images"].push_back({{"path", p.path}, {"label", p.label}, {"first_hit_rank", p.first_hit_rank},
                                    {"top_indices", p.top_indices}});
      }
    }
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.output_file_path, report.dump(1) + "\n", "output_file_path"));
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
  table.AddString("output_file_path", &flags.output_file_path, "write a JSON report here");
  table.AddString("denylist_file_path", &flags.denylist_file_path, "1-based image numbers to leave out");
  table.AddString("class_folders_path", &flags.class_folders_path, "instead of images+labels: one folder per class, named by its label");
  table.AddInt("num_images", &flags.num_images, "evaluate the first N images (0: all)");
  table.AddInt("num_interpreter_threads", &flags.num_interpreter_threads, "interpreter threads");
  table.AddString("delegate", &flags.delegate, "delegate to apply by name");
  table.AddString("input_mean", &flags.input_mean, "normalisation mean, one value or three (default: TFLite's)");
  table.AddString("input_std", &flags.input_std, "normalisation std, one value or three (default: TFLite's)");
  table.AddInt("label_offset", &flags.label_offset, "output i is label i-offset (-1: detect from the sizes)");
  table.AddInt("num_preprocessing_threads", &flags.num_preprocessing_threads, "decode/preprocess ahead on N threads (0: inline)");
  table.AddBool("skip_unreadable_images", &flags.skip_unreadable_images, "skip corrupt images with a warning instead of stopping");
  table.AddBool("reference", &flags.reference, "also run the reference kernels and report both");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels, "run the reference kernels only");
  table.AddBool("per_image", &flags.per_image, "put per-image predictions in the JSON report");
  bool help = false;
  Status parsed = table.Parse(argc, argv, &help, nullptr);
  if (help) {
    std::cout << table.Usage("imagenet_eval");
    return 0;
  }
  if (!parsed.ok()) return ReportFailure(parsed);
  if (flags.label_offset < -1) return ReportFailure(UsageError("--label_offset must be 0 or more (or -1: detect)"));
  if (flags.num_preprocessing_threads < 0 || flags.num_preprocessing_threads > 64) {
    return ReportFailure(UsageError("--num_preprocessing_threads must be in [0, 64]"));
  }
  Status status = Run(flags);
  if (!status.ok()) return ReportFailure(status);
  return 0;
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
