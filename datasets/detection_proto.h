// TensorFlow Lite's binary ground truth for coco_object_detection_run_eval: the
// tflite.evaluation.ObjectDetectionGroundTruth proto that TFLite's preprocess_coco_minival.py writes
// (evaluation_stages.proto). Read with a small protobuf wire-format decoder (Touchstone does not link
// protobuf); only the fields run_eval reads:
//   ObjectDetectionGroundTruth { repeated ObjectDetectionResult detection_results = 1; }
//   ObjectDetectionResult { repeated ObjectInstance objects = 1; string image_name = 2; int64 image_id = 3; }
//   ObjectInstance { int32 class_id = 1; NormalizedBoundingBox bounding_box = 2; float score = 3; }
//   NormalizedBoundingBox { float normalized_top = 1; normalized_bottom = 2; normalized_left = 3;
//                           normalized_right = 4; }
// Unknown fields are skipped, as protobuf does.
#ifndef TOUCHSTONE_DATASETS_DETECTION_PROTO_H_
#define TOUCHSTONE_DATASETS_DETECTION_PROTO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/status.h"

namespace touchstone {

struct ProtoObject {
  int32_t class_id = 0;
  float top = 0, bottom = 0, left = 0, right = 0;  // normalised
  float score = 0;
};

struct ProtoDetectionResult {
  std::string image_name;
  int64_t image_id = 0;
  std::vector<ProtoObject> objects;
};

// Errors (kInvalidInput) name the file and what is malformed (truncated varint, a length past the end,
// a wire type protobuf does not use here).
StatusOr<std::vector<ProtoDetectionResult>> ReadDetectionGroundTruthProto(const std::string& path);
StatusOr<std::vector<ProtoDetectionResult>> ParseDetectionGroundTruthProto(const std::vector<uint8_t>& bytes,
                                                                           const std::string& name);

}  // namespace touchstone

#endif  // TOUCHSTONE_DATASETS_DETECTION_PROTO_H_
