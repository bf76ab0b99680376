// The object-detection evaluation pipeline: preprocess each image as TFLite's ObjectDetectionStage
// does (bilinear resize of the whole image to the input size, the input type's default
// normalisation, no crop), run the model, and read boxes/classes/scores/count from the outputs the
// mapping names.
#ifndef TOUCHSTONE_EVALUATION_OBJECT_DETECTION_H_
#define TOUCHSTONE_EVALUATION_OBJECT_DETECTION_H_

#include <string>
#include <vector>

#include "evaluation/coco_metrics.h"
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
};

// From "--output_tensors=boxes,classes,scores,count" (names or positions; empty: TFLite's SSD order
// when the model has four outputs). Errors list the model's outputs.
StatusOr<DetectionOutputs> ResolveDetectionOutputs(Interpreter* interpreter, const std::string& spec);

struct DetectionConfig {
  PreprocessingConfig preprocessing;  // crop_fraction 0: the whole image
  DetectionOutputs outputs;
  int class_offset = 1;  // class id = int(class output) + offset (SSD: 0-based without background)
};

struct DetectionRun {
  std::vector<TfliteBox> detections;  // normalised
  int64_t preprocessing_us = 0;
  int64_t inference_us = 0;
};

StatusOr<DetectionRun> DetectImage(const std::string& path, const DetectionConfig& config, Interpreter* interpreter);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_OBJECT_DETECTION_H_
