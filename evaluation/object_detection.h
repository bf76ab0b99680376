// The object-detection evaluation pipeline: preprocess each image as TFLite's ObjectDetectionStage
// does (bilinear resize of the whole image to the input size, the input type's default
// normalisation, no crop) on worker threads ahead of inference, run the model, and read
// boxes/classes/scores/count from the outputs the mapping names.
#ifndef TOUCHSTONE_EVALUATION_OBJECT_DETECTION_H_
#define TOUCHSTONE_EVALUATION_OBJECT_DETECTION_H_

#include <functional>
#include <string>
#include <vector>

#include "evaluation/coco_metrics.h"
#include "evaluation/image_classification.h"
#include "evaluation/image_preprocessing.h"
#include "evaluation/latency_stats.h"
#include "runtime/interpreter.h"
#include "runtime/status.h"

namespace touchstone {

// Output positions of the four detection tensors.
struct DetectionOutputs {
  int boxes = 0;    // [1, N, 4] ymin, xmin, ymax, xmax, normalised
  int classes = 1;  // [1, N]
  int scores = 2;   // [1, N]
  int count = 3;    // [1] or [] (float)
  std::string how;  // how the mapping was found (for the report): "flag", "names", "shapes", "order"
};

// The mapping from "--output_tensors=boxes,classes,scores,count" (names or positions), or, when `spec`
// is empty, detected for a model with four outputs: by TFLite_Detection_PostProcess's output names
// (":1" classes, ":2" scores, ":3" count), else by names saying box/class/score/num|count, else by
// shape when unambiguous (boxes the one [1,N,4] output, count the one single-element output; the other
// two taken in SSD's order only when they sit where SSD puts them), else SSD's order when the shapes are
// not known before a run (TFLite's assumption). Errors list the model's outputs: a bad spec (kUsage), a
// model that is not a detector or whose outputs cannot be told apart (kInvalidInput).
StatusOr<DetectionOutputs> ResolveDetectionOutputs(Interpreter* interpreter, const std::string& spec);

struct DetectionConfig {
  PreprocessingConfig preprocessing;  // crop_fraction 0: the whole image
  InputQuantization quantization;
  DetectionOutputs outputs;
  int class_offset = 1;               // class id = int(class output) + offset (SSD: 0-based without background)
  int num_preprocessing_threads = 2;  // 0: preprocess inline, one image at a time
};

// The detections in the outputs after an Invoke. Errors (kInvalidInput, naming the tensor): outputs
// that are not float32 or whose sizes disagree.
StatusOr<std::vector<TfliteBox>> ReadDetections(Interpreter* interpreter, const DetectionConfig& config);

struct DetectionResult {
  std::vector<std::vector<TfliteBox>> detections;  // per image, normalised
  LatencyStats preprocessing_us;
  LatencyStats inference_us;
  double wall_seconds = 0.0;
};

// Runs the model over `paths` in order; `progress(done, total)` after each image (may be empty). An
// unreadable image stops the run with an error naming it.
Status RunDetection(const std::vector<std::string>& paths, const DetectionConfig& config, Interpreter* interpreter,
                    DetectionResult* result, const std::function<void(int, int)>& progress);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_OBJECT_DETECTION_H_
