// The image-classification evaluation pipeline: for each labelled image, read and preprocess it
// (on worker threads, ahead of inference, through a bounded queue), run the model, rank its scores
// and count top-K hits. Optionally runs a second (reference) interpreter on the same tensor.
#ifndef TOUCHSTONE_EVALUATION_IMAGE_CLASSIFICATION_H_
#define TOUCHSTONE_EVALUATION_IMAGE_CLASSIFICATION_H_

#include <functional>
#include <string>
#include <vector>

#include "datasets/imagenet_folder.h"
#include "evaluation/image_preprocessing.h"
#include "evaluation/latency_stats.h"
#include "evaluation/topk.h"
#include "runtime/interpreter.h"
#include "runtime/status.h"

namespace touchstone {

struct ClassificationConfig {
  PreprocessingConfig preprocessing;
  std::vector<std::string> model_labels;
  int label_offset = 0;             // output index i is model_labels[i - label_offset]
  int num_preprocessing_threads = 1;  // 0: preprocess inline, one image at a time
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
  bool top1_changed = false;         // reference's top-1 index differs
};

struct ClassificationResult {
  TopKAccumulator topk;
  TopKAccumulator reference_topk;
  LatencyStats preprocessing_us;
  LatencyStats inference_us;
  LatencyStats reference_inference_us;
  int top1_changed = 0;
  std::vector<std::string> skipped;  // "path: reason"
  std::vector<ImagePrediction> predictions;
  double wall_seconds = 0.0;
};

// `progress(done, total)` is called after each image (may be empty).
Status RunClassification(const std::vector<LabelledImage>& images, const ClassificationConfig& config,
                         Interpreter* interpreter, Interpreter* reference, ClassificationResult* result,
                         const std::function<void(int, int)>& progress);

// The preprocessing a model's input asks for: size, type and layout from its input tensor
// ([1,H,W,3] or [1,3,H,W]); TFLite's normalisation unless mean/scale are given.
StatusOr<PreprocessingConfig> PreprocessingForModel(const TfLiteTensor& input);

// Output scores as doubles (raw values: the ranking of quantized scores does not need the scale).
StatusOr<std::vector<double>> ScoresOf(const TfLiteTensor& output);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_IMAGE_CLASSIFICATION_H_
