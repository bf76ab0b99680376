// The image-classification evaluation pipeline: for each labelled image, read and preprocess it
// (on worker threads, ahead of inference, through a bounded queue), run the model, rank its scores
// and count top-K hits. Optionally runs a second (reference) interpreter on the same tensor.
// Also the pieces the detection pipeline shares: how a model's image input is filled (size, layout,
// type, normalisation) and the read-ahead queue.
#ifndef TOUCHSTONE_EVALUATION_IMAGE_CLASSIFICATION_H_
#define TOUCHSTONE_EVALUATION_IMAGE_CLASSIFICATION_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "datasets/imagenet_folder.h"
#include "evaluation/image_preprocessing.h"
#include "evaluation/latency_stats.h"
#include "evaluation/topk.h"
#include "runtime/interpreter.h"
#include "runtime/status.h"

namespace touchstone {

// Quantizing the normalised float image into a uint8 or int8 input: q = clamp(round(v / scale) +
// zero_point), rounding half away from zero, as TFLite's QUANTIZE op. Off by default: TFLite's own
// preprocessing writes quantized inputs directly (uint8 as is, int8 x - 128).
struct InputQuantization {
  bool enabled = false;
  TfLiteType type = kTfLiteNoType;  // kTfLiteUInt8 or kTfLiteInt8
  float scale = 0.0f;
  int32_t zero_point = 0;
};

// Everything that turns a decoded image into the bytes of a model's image input.
struct ImageInputConfig {
  PreprocessingConfig preprocessing;
  InputQuantization quantization;
};

// The preprocessing a model's input asks for: size, type and layout from its input tensor
// ([1,H,W,3] or [1,3,H,W]); TFLite's normalisation for the type.
StatusOr<PreprocessingConfig> PreprocessingForModel(const TfLiteTensor& input);

// Replaces TFLite's normalisation with (x - mean[c]) / std[c] (one value or three each): float32 inputs
// get it as TFLite computes its own, a multiplication by float32(1 / std); uint8 and int8 inputs get the
// normalised float value quantized with the input's scale and zero point. Errors: a std of 0, lists of
// other lengths, a quantized input without quantization parameters (kInvalidInput, naming the tensor).
Status SetNormalization(const TfLiteTensor& input, const std::vector<float>& mean, const std::vector<float>& std,
                        ImageInputConfig* config);

// Decoded image -> input tensor bytes.
StatusOr<std::vector<uint8_t>> ImageToTensor(const RgbImage& image, const ImageInputConfig& config);

// Reads, decodes and preprocesses a list of image files on `threads` worker threads, at most
// `capacity` images ahead of the consumer, and hands the tensors out in list order. With 0 threads
// every image is prepared inline, in Take. Workers stop when the queue is destroyed.
class ImageTensorQueue {
 public:
  struct Item {
    Status status;  // a read or decode error, naming the file
    std::vector<uint8_t> tensor;
    int64_t latency_us = 0;  // read + decode + preprocess of this image
  };
  ImageTensorQueue(std::vector<std::string> paths, ImageInputConfig config, int threads, size_t capacity = 0);
  ~ImageTensorQueue();
  ImageTensorQueue(const ImageTensorQueue&) = delete;
  ImageTensorQueue& operator=(const ImageTensorQueue&) = delete;

  // The next image's item; call once per path, in order.
  Item Next();

 private:
  void Work();

  const std::vector<std::string> paths_;
  const ImageInputConfig config_;
  const size_t capacity_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<size_t, Item> done_;
  size_t next_ = 0;      // next index a worker takes
  size_t consumed_ = 0;  // items handed out
  bool stopping_ = false;
};

// Reads and prepares one image file (what the queue's workers run).
ImageTensorQueue::Item PrepareImageFile(const std::string& path, const ImageInputConfig& config);

// Which output index holds which label, from the sizes: equal sizes need no offset; one output more
// than labels (a background class the label file lacks) reads output i as label i-1 (offset 1); one
// output fewer (a label file with a background line, a 1000-class model) reads output i as label i+1
// (offset -1); each of these two with a warning in *warning. A `requested` offset is taken as given.
// Any other difference is an error (kInvalidInput) naming the label file.
StatusOr<int> ChooseLabelOffset(int64_t outputs, size_t labels, std::optional<int> requested,
                                const std::string& labels_file, std::string* warning);

struct ClassificationConfig {
  PreprocessingConfig preprocessing;
  InputQuantization quantization;
  std::vector<std::string> model_labels;
  int label_offset = 0;                 // output index i is model_labels[i - label_offset]
  int num_preprocessing_threads = 1;    // 0: preprocess inline, one image at a time
  bool skip_unreadable_images = false;  // else the first corrupt image stops the run
  int top_k = 10;
  bool keep_predictions = false;
};

struct ImagePrediction {
  std::string path;
  std::string label;
  std::vector<int> top_indices;      // best first, output indices
  int first_hit_rank = 0;            // 1-based; 0 = miss
  int reference_first_hit_rank = 0;  // when a reference interpreter ran
  std::vector<int> reference_top_indices;
  bool top1_changed = false;  // reference's top-1 index differs
};

// One image the run evaluated (not skipped).
struct EvaluatedImage {
  int image = 0;            // index into the image list
  int top1 = -1;            // the output index ranked first
  int first_hit_rank = 0;   // 1-based; 0 = miss within top_k
  double top1_score = 0.0;  // its score, dequantized for a quantized output
};

struct ClassificationResult {
  TopKAccumulator topk;
  std::vector<EvaluatedImage> evaluated;  // every image evaluated, in list order (always kept: small)
  TopKAccumulator reference_topk;
  LatencyStats preprocessing_us;
  LatencyStats inference_us;
  LatencyStats reference_inference_us;
  int top1_changed = 0;
  std::vector<std::string> skipped;  // "path: reason"
  std::vector<ImagePrediction> predictions;
  std::vector<std::string> output_labels;  // label of each output index after the offset ("" for none)
  double wall_seconds = 0.0;
};

// `progress(done, total)` is called after each image (may be empty). Errors: an unreadable image
// (unless skipped), a failed Invoke (kExecution), an output that is not a score vector.
Status RunClassification(const std::vector<LabelledImage>& images, const ClassificationConfig& config,
                         Interpreter* interpreter, Interpreter* reference, ClassificationResult* result,
                         const std::function<void(int, int)>& progress);

// Accuracy per ground-truth label, over the images evaluated.
struct ClassAccuracy {
  std::string label;
  int images = 0;
  int top1_hits = 0;
  int top5_hits = 0;
};
// In order of the labels' first appearance in the image list.
std::vector<ClassAccuracy> PerClassAccuracy(const std::vector<LabelledImage>& images,
                                            const ClassificationResult& result);

// Output scores as doubles (raw values: the ranking of quantized scores does not need the scale).
StatusOr<std::vector<double>> ScoresOf(const TfLiteTensor& output);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_IMAGE_CLASSIFICATION_H_
