// COCO instances JSON (ground truth) and COCO results JSON (detections), as pycocotools reads them.
#ifndef TOUCHSTONE_DATASETS_COCO_JSON_H_
#define TOUCHSTONE_DATASETS_COCO_JSON_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/status.h"

namespace touchstone {

struct CocoBox {
  int64_t image_id = 0;
  int64_t category_id = 0;
  double x = 0, y = 0, w = 0, h = 0;  // pixels, [x, y, width, height]
  double area = 0;                    // ground truth: the annotation's area; detections: w * h
  bool iscrowd = false;
  double score = 0;  // detections only
};

struct CocoImage {
  int64_t id = 0;
  std::string file_name;
  int width = 0;
  int height = 0;
};

struct CocoDataset {
  std::vector<CocoImage> images;
  std::vector<CocoBox> annotations;
  std::map<int64_t, std::string> categories;  // id -> name
};

// Errors name the file and the offending entry (StatusCode::kInvalidInput).
StatusOr<CocoDataset> ReadCocoInstances(const std::string& path);
// A results file: a list of {image_id, category_id, bbox, score}, or an instances-style dict whose
// "annotations" carry scores. Detections must refer to known images (as pycocotools asserts).
StatusOr<std::vector<CocoBox>> ReadCocoResults(const std::string& path, const CocoDataset& ground_truth);

}  // namespace touchstone

#endif  // TOUCHSTONE_DATASETS_COCO_JSON_H_
