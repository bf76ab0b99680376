#include "evaluation/image_classification.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include "evaluation/output_diff.h"
#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Prepared {
  Status status;
  std::vector<uint8_t> tensor;
  int64_t latency_us = 0;
};

Prepared PrepareOne(const LabelledImage& image, const PreprocessingConfig& config) {
  Prepared prepared;
  const int64_t start = NowMicros();
  std::ifstream in(image.path, std::ios::binary);
  if (!in) {
    prepared.status = InvalidInputError(image.path + ": cannot read image");
    return prepared;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  StatusOr<RgbImage> decoded = DecodeImage(bytes, image.path);
  if (!decoded.ok()) {
    prepared.status = decoded.status();
    return prepared;
  }
  StatusOr<std::vector<uint8_t>> tensor = PreprocessImage(decoded.value(), config);
  if (!tensor.ok()) {
    prepared.status = tensor.status();
    prepared.status.WithContext(image.path);
    return prepared;
  }
  prepared.tensor = std::move(tensor.value());
  prepared.latency_us = NowMicros() - start;
  return prepared;
}

// Preprocesses images on worker threads, at most `capacity` ahead of the consumer, handing them out
// in order.
class PreprocessingQueue {
 public:
  PreprocessingQueue(const std::vector<LabelledImage>& images, const PreprocessingConfig& config, int threads,
                     size_t capacity)
      : images_(images), config_(config), capacity_(capacity) {
    for (int t = 0; t < threads; ++t) workers_.emplace_back([this] { Work(); });
  }
  ~PreprocessingQueue() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  Prepared Take(size_t index) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return done_.count(index) > 0; });
    Prepared p = std::move(done_[index]);
    done_.erase(index);
    ++consumed_;
    changed_.notify_all();
    return p;
  }

 private:
  void Work() {
    while (true) {
      size_t index;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || (next_ < images_.size() && next_ < consumed_ + capacity_); });
        if (stopping_) return;
        index = next_++;
      }
      Prepared p = PrepareOne(images_[index], config_);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        done_[index] = std::move(p);
      }
      changed_.notify_all();
    }
  }

  const std::vector<LabelledImage>& images_;
  const PreprocessingConfig config_;
  const size_t capacity_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<size_t, Prepared> done_;
  size_t next_ = 0;
  size_t consumed_ = 0;
  bool stopping_ = false;
};

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
  StatusOr<std::vector<double>> s = ScoresOf(*interpreter->output_tensor(0));
  if (!s.ok()) return s.status();
  *scores = std::move(s.value());
  return Status::Ok();
}

}  // namespace

StatusOr<PreprocessingConfig> PreprocessingForModel(const TfLiteTensor& input) {
  PreprocessingConfig config;
  const TfLiteIntArray* d = input.dims;
  if (d->size != 4 || d->data[0] != 1 || (d->data[3] != 3 && d->data[1] != 3)) {
    std::string shape;
    for (int i = 0; i < d->size; ++i) shape += (i ? "," : "") + std::to_string(d->data[i]);
    return InvalidInputError(std::string("input '") + input.name + "' has shape [" + shape +
                             "]; an image model needs [1,H,W,3] or [1,3,H,W]");
  }
  config.nchw = d->data[3] != 3;
  config.output_height = config.nchw ? d->data[2] : d->data[1];
  config.output_width = config.nchw ? d->data[3] : d->data[2];
  config.output_type = input.type;
  if (input.type != kTfLiteFloat32 && input.type != kTfLiteUInt8 && input.type != kTfLiteInt8) {
    return InvalidInputError(std::string("input '") + input.name + "' has type " + TfLiteTypeGetName(input.type) +
                             "; image models take float32, uint8 or int8");
  }
  return config;
}

StatusOr<std::vector<double>> ScoresOf(const TfLiteTensor& output) {
  const int64_t n = tflite::NumElements(&output);
  if (output.type != kTfLiteFloat32 && output.type != kTfLiteUInt8 && output.type != kTfLiteInt8 &&
      output.type != kTfLiteInt16) {
    return InvalidInputError(std::string("output '") + output.name + "' has type " + TfLiteTypeGetName(output.type) +
                             "; classification needs scores");
  }
  std::vector<double> scores(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) scores[i] = ElementAsDouble(output, i);
  return scores;
}

Status RunClassification(const std::vector<LabelledImage>& images, const ClassificationConfig& config,
                         Interpreter* interpreter, Interpreter* reference, ClassificationResult* result,
                         const std::function<void(int, int)>& progress) {
  const int64_t start_us = NowMicros();
  result->topk = TopKAccumulator(config.top_k);
  result->reference_topk = TopKAccumulator(config.top_k);
  const size_t outputs = static_cast<size_t>(tflite::NumElements(interpreter->output_tensor(0)));
  const std::vector<std::string> labels = ShiftedLabels(config, outputs);
  std::unique_ptr<PreprocessingQueue> queue;
  if (config.num_preprocessing_threads > 0) {
    queue.reset(new PreprocessingQueue(images, config.preprocessing, config.num_preprocessing_threads,
                                       static_cast<size_t>(4 * config.num_preprocessing_threads + 2)));
  }
  for (size_t i = 0; i < images.size(); ++i) {
    Prepared prepared = queue ? queue->Take(i) : PrepareOne(images[i], config.preprocessing);
    if (!prepared.status.ok()) {
      if (!config.skip_unreadable_images) return prepared.status;
      result->skipped.push_back(prepared.status.message());
      if (progress) progress(static_cast<int>(i + 1), static_cast<int>(images.size()));
      continue;
    }
    result->preprocessing_us.Add(prepared.latency_us);
    std::vector<double> scores;
    int64_t latency_us = 0;
    TS_RETURN_IF_ERROR(Infer(interpreter, prepared.tensor, &scores, &latency_us));
    result->inference_us.Add(latency_us);
    ImagePrediction prediction;
    prediction.path = images[i].path;
    prediction.label = images[i].label;
    prediction.first_hit_rank = result->topk.Add(scores, labels, images[i].label);
    prediction.top_indices = TopKIndices(scores, config.top_k);
    if (reference != nullptr) {
      std::vector<double> reference_scores;
      TS_RETURN_IF_ERROR(Infer(reference, prepared.tensor, &reference_scores, &latency_us));
      result->reference_inference_us.Add(latency_us);
      prediction.reference_first_hit_rank = result->reference_topk.Add(reference_scores, labels, images[i].label);
      const std::vector<int> reference_top = TopKIndices(reference_scores, 1);
      prediction.top1_changed = !reference_top.empty() && !prediction.top_indices.empty() &&
                                reference_top[0] != prediction.top_indices[0];
      result->top1_changed += prediction.top1_changed ? 1 : 0;
    }
    if (config.keep_predictions) result->predictions.push_back(std::move(prediction));
    if (progress) progress(static_cast<int>(i + 1), static_cast<int>(images.size()));
  }
  result->wall_seconds = static_cast<double>(NowMicros() - start_us) / 1e6;
  return Status::Ok();
}

}  // namespace touchstone
