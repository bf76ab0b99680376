#include "evaluation/image_classification.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "evaluation/output_diff.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> ShiftedLabels(const ClassificationConfig& config, size_t outputs) {
  std::vector<std::string> labels(outputs);
  for (size_t i = 0; i < outputs; ++i) {
    const long source = static_cast<long>(i) - config.label_offset;
    if (source >= 0 && source < static_cast<long>(config.model_labels.size())) labels[i] = config.model_labels[source];
  }
  return labels;
}

Status Infer(Interpreter* interpreter, const std::vector<uint8_t>& tensor, std::vector<double>* scores,
             int64_t* latency_us) {
  TfLiteTensor* input = interpreter->input_tensor(0);
  if (input->bytes != tensor.size()) {
    return InvalidInputError("preprocessed image has " + std::to_string(tensor.size()) + " bytes, input needs " +
                             std::to_string(input->bytes));
  }
  std::memcpy(input->data.raw, tensor.data(), tensor.size());
  const int64_t start = NowMicros();
  TS_RETURN_IF_ERROR(interpreter->Invoke());
  *latency_us = NowMicros() - start;
  TS_ASSIGN_OR_RETURN(std::vector<double> s, ScoresOf(*interpreter->output_tensor(0)));
  *scores = std::move(s);
  return Status::Ok();
}

std::string TensorName(const TfLiteTensor& tensor) { return tensor.name != nullptr ? tensor.name : "?"; }

}  // namespace

StatusOr<PreprocessingConfig> PreprocessingForModel(const TfLiteTensor& input) {
  PreprocessingConfig config;
  const TfLiteIntArray* d = input.dims;
  if (d == nullptr || d->size != 4 || d->data[0] != 1 || (d->data[3] != 3 && d->data[1] != 3)) {
    std::string shape;
    for (int i = 0; d != nullptr && i < d->size; ++i) shape += (i ? "," : "") + std::to_string(d->data[i]);
    return InvalidInputError("input '" + TensorName(input) + "' has shape [" + shape +
                             "]; an image model needs [1,H,W,3] or [1,3,H,W]");
  }
  config.nchw = d->data[3] != 3;
  config.output_height = config.nchw ? d->data[2] : d->data[1];
  config.output_width = config.nchw ? d->data[3] : d->data[2];
  if (config.output_height <= 0 || config.output_width <= 0) {
    return InvalidInputError("input '" + TensorName(input) + "' has an empty image size");
  }
  config.output_type = input.type;
  if (input.type != kTfLiteFloat32 && input.type != kTfLiteUInt8 && input.type != kTfLiteInt8) {
    return InvalidInputError("input '" + TensorName(input) + "' has type " + TfLiteTypeGetName(input.type) +
                             "; image models take float32, uint8 or int8");
  }
  return config;
}

Status SetNormalization(const TfLiteTensor& input, const std::vector<float>& mean, const std::vector<float>& std,
                        ImageInputConfig* config) {
  for (const std::vector<float>* values : {&mean, &std}) {
    if (values->size() != 1 && values->size() != 3) {
      return InvalidInputError("normalisation of input '" + TensorName(input) +
                               "' needs one value or three (per channel) for mean and std");
    }
    for (float v : *values) {
      if (!std::isfinite(v))
        return InvalidInputError("normalisation of input '" + TensorName(input) + "': a value is not finite");
    }
  }
  PreprocessingConfig& p = config->preprocessing;
  p.mean = mean;
  p.scale.clear();
  for (float s : std) {
    if (s == 0.0f) return InvalidInputError("normalisation of input '" + TensorName(input) + "': std must not be 0");
    p.scale.push_back(1.0f / s);
  }
  config->quantization = InputQuantization();
  if (input.type == kTfLiteFloat32) {
    p.output_type = kTfLiteFloat32;
    return Status::Ok();
  }
  if (input.type != kTfLiteUInt8 && input.type != kTfLiteInt8) {
    return InvalidInputError("input '" + TensorName(input) + "' has type " + TfLiteTypeGetName(input.type) +
                             "; image models take float32, uint8 or int8");
  }
  float scale = input.params.scale;
  int32_t zero_point = input.params.zero_point;
  if (IsPerChannelQuantized(&input)) {
    return InvalidInputError("input '" + TensorName(input) +
                             "' is quantized per channel; cannot quantize a normalised image");
  }
  if (!(scale > 0.0f) || !std::isfinite(scale)) {
    return InvalidInputError("input '" + TensorName(input) + "' is " + TfLiteTypeGetName(input.type) +
                             " without quantization parameters; cannot quantize a normalised image");
  }
  p.output_type = kTfLiteFloat32;  // normalised in float, then quantized by ImageToTensor
  config->quantization.enabled = true;
  config->quantization.type = input.type;
  config->quantization.scale = scale;
  config->quantization.zero_point = zero_point;
  return Status::Ok();
}

StatusOr<std::vector<uint8_t>> ImageToTensor(const RgbImage& image, const ImageInputConfig& config) {
  StatusOr<std::vector<uint8_t>> tensor = PreprocessImage(image, config.preprocessing);
  if (!tensor.ok() || !config.quantization.enabled) return tensor;
  const std::vector<uint8_t>& floats = tensor.value();
  const size_t n = floats.size() / sizeof(float);
  std::vector<uint8_t> out(n);
  const bool is_uint8 = config.quantization.type == kTfLiteUInt8;
  const int32_t low = is_uint8 ? 0 : -128, high = is_uint8 ? 255 : 127;
  for (size_t i = 0; i < n; ++i) {
    float v;
    std::memcpy(&v, &floats[i * sizeof(float)], sizeof(float));
    const float q = std::round(v / config.quantization.scale);
    // Clamp in float before converting: a huge or non-finite value must not overflow the int conversion.
    const float shifted = q + static_cast<float>(config.quantization.zero_point);
    int32_t value = std::isnan(shifted)                   ? low
                    : shifted <= static_cast<float>(low)  ? low
                    : shifted >= static_cast<float>(high) ? high
                                                          : static_cast<int32_t>(shifted);
    out[i] = is_uint8 ? static_cast<uint8_t>(value) : static_cast<uint8_t>(static_cast<int8_t>(value));
  }
  return out;
}

ImageTensorQueue::Item PrepareImageFile(const std::string& path, const ImageInputConfig& config) {
  ImageTensorQueue::Item item;
  const int64_t start = NowMicros();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    item.status = InvalidInputError(path + ": cannot read image");
    return item;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  StatusOr<RgbImage> decoded = DecodeImage(bytes, path);
  if (!decoded.ok()) {
    item.status = decoded.status();
    return item;
  }
  StatusOr<std::vector<uint8_t>> tensor = ImageToTensor(decoded.value(), config);
  if (!tensor.ok()) {
    item.status = tensor.status();
    item.status.WithContext(path);
    return item;
  }
  item.tensor = std::move(tensor.value());
  item.latency_us = NowMicros() - start;
  return item;
}

ImageTensorQueue::ImageTensorQueue(std::vector<std::string> paths, ImageInputConfig config, int threads,
                                   size_t capacity)
    : paths_(std::move(paths)),
      config_(std::move(config)),
      capacity_(capacity > 0 ? capacity : static_cast<size_t>(4 * std::max(threads, 0) + 2)) {
  for (int t = 0; t < threads; ++t) workers_.emplace_back([this] { Work(); });
}

ImageTensorQueue::~ImageTensorQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& w : workers_) w.join();
}

ImageTensorQueue::Item ImageTensorQueue::Next() {
  if (workers_.empty()) {
    Item item = consumed_ < paths_.size() ? PrepareImageFile(paths_[consumed_], config_) : Item();
    ++consumed_;
    return item;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  const size_t index = consumed_;
  if (index >= paths_.size()) return Item();
  changed_.wait(lock, [&] { return done_.count(index) > 0; });
  Item item = std::move(done_[index]);
  done_.erase(index);
  ++consumed_;
  lock.unlock();
  changed_.notify_all();
  return item;
}

void ImageTensorQueue::Work() {
  while (true) {
    size_t index;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || (next_ < paths_.size() && next_ < consumed_ + capacity_); });
      if (stopping_) return;
      index = next_++;
    }
    Item item = PrepareImageFile(paths_[index], config_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_[index] = std::move(item);
    }
    changed_.notify_all();
  }
}

StatusOr<int> ChooseLabelOffset(int64_t outputs, size_t labels, std::optional<int> requested,
                                const std::string& labels_file, std::string* warning) {
  warning->clear();
  const int64_t n = static_cast<int64_t>(labels);
  if (requested.has_value()) return *requested;
  if (outputs == n) return 0;
  if (outputs == n + 1) {
    *warning = "the model has " + std::to_string(outputs) + " outputs and " + labels_file + " has " +
               std::to_string(n) + " labels: reading output i as label i-1 (output 0 as background)";
    return 1;
  }
  if (outputs + 1 == n) {
    *warning = "the model has " + std::to_string(outputs) + " outputs and " + labels_file + " has " +
               std::to_string(n) + " labels (a background line first?): reading output i as label i+1";
    return -1;
  }
  return InvalidInputError(labels_file + ": has " + std::to_string(n) + " labels but the model has " +
                           std::to_string(outputs) + " outputs");
}

StatusOr<std::vector<double>> ScoresOf(const TfLiteTensor& output) {
  const int64_t n = tflite::NumElements(&output);
  if (output.type != kTfLiteFloat32 && output.type != kTfLiteUInt8 && output.type != kTfLiteInt8 &&
      output.type != kTfLiteInt16) {
    return InvalidInputError("output '" + TensorName(output) + "' has type " + TfLiteTypeGetName(output.type) +
                             "; classification needs scores");
  }
  if (output.data.raw == nullptr && n > 0) return ExecutionError("output '" + TensorName(output) + "' has no data");
  std::vector<double> scores(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double v = ElementAsDouble(output, i);
    // A NaN score ranks last (a NaN would break the ordering the sort needs).
    scores[i] = std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
  }
  return scores;
}

std::vector<ClassAccuracy> PerClassAccuracy(const std::vector<LabelledImage>& images,
                                            const ClassificationResult& result) {
  std::vector<ClassAccuracy> classes;
  absl::flat_hash_map<std::string, size_t> index;
  for (const EvaluatedImage& e : result.evaluated) {
    const std::string& label = images[static_cast<size_t>(e.image)].label;
    auto it = index.find(label);
    if (it == index.end()) {
      it = index.emplace(label, classes.size()).first;
      classes.push_back({label, 0, 0, 0});
    }
    ClassAccuracy& c = classes[it->second];
    ++c.images;
    if (e.first_hit_rank == 1) ++c.top1_hits;
    if (e.first_hit_rank >= 1 && e.first_hit_rank <= 5) ++c.top5_hits;
  }
  return classes;
}

Status RunClassification(const std::vector<LabelledImage>& images, const ClassificationConfig& config,
                         Interpreter* interpreter, Interpreter* reference, ClassificationResult* result,
                         const std::function<void(int, int)>& progress) {
  const int64_t start_us = NowMicros();
  result->topk = TopKAccumulator(config.top_k);
  result->reference_topk = TopKAccumulator(config.top_k);
  const size_t outputs = static_cast<size_t>(tflite::NumElements(interpreter->output_tensor(0)));
  result->output_labels = ShiftedLabels(config, outputs);
  const std::vector<std::string>& labels = result->output_labels;
  std::vector<std::string> paths;
  for (const LabelledImage& image : images) paths.push_back(image.path);
  ImageInputConfig input;
  input.preprocessing = config.preprocessing;
  input.quantization = config.quantization;
  ImageTensorQueue queue(std::move(paths), input, std::max(config.num_preprocessing_threads, 0));
  for (size_t i = 0; i < images.size(); ++i) {
    ImageTensorQueue::Item prepared = queue.Next();
    if (!prepared.status.ok()) {
      if (!config.skip_unreadable_images) return prepared.status;
      result->skipped.push_back(prepared.status.message());
      if (progress) progress(static_cast<int>(i + 1), static_cast<int>(images.size()));
      continue;
    }
    result->preprocessing_us.Add(prepared.latency_us);
    std::vector<double> scores;
    int64_t latency_us = 0;
    Status inferred = Infer(interpreter, prepared.tensor, &scores, &latency_us);
    if (!inferred.ok()) return inferred.WithContext(images[i].path);
    result->inference_us.Add(latency_us);
    ImagePrediction prediction;
    prediction.path = images[i].path;
    prediction.label = images[i].label;
    prediction.first_hit_rank = result->topk.Add(scores, labels, images[i].label);
    prediction.top_indices = TopKIndices(scores, config.top_k);
    EvaluatedImage evaluated{static_cast<int>(i), prediction.top_indices.empty() ? -1 : prediction.top_indices[0],
                             prediction.first_hit_rank};
    if (evaluated.top1 >= 0) {
      const TfLiteTensor& output = *interpreter->output_tensor(0);
      const double raw = scores[static_cast<size_t>(evaluated.top1)];
      evaluated.top1_score = output.type != kTfLiteFloat32 && output.params.scale > 0
                                 ? (raw - output.params.zero_point) * output.params.scale
                                 : raw;
    }
    result->evaluated.push_back(evaluated);
    if (reference != nullptr) {
      std::vector<double> reference_scores;
      Status checked = Infer(reference, prepared.tensor, &reference_scores, &latency_us);
      if (!checked.ok()) return checked.WithContext(images[i].path + ": reference kernels");
      result->reference_inference_us.Add(latency_us);
      prediction.reference_first_hit_rank = result->reference_topk.Add(reference_scores, labels, images[i].label);
      prediction.reference_top_indices = TopKIndices(reference_scores, config.top_k);
      prediction.top1_changed = !prediction.reference_top_indices.empty() && !prediction.top_indices.empty() &&
                                prediction.reference_top_indices[0] != prediction.top_indices[0];
      result->top1_changed += prediction.top1_changed ? 1 : 0;
    }
    if (config.keep_predictions) result->predictions.push_back(std::move(prediction));
    if (progress) progress(static_cast<int>(i + 1), static_cast<int>(images.size()));
  }
  result->wall_seconds = static_cast<double>(NowMicros() - start_us) / 1e6;
  return Status::Ok();
}

}  // namespace touchstone
