// Detection metrics, two definitions:
// - COCO's official bbox evaluation (pycocotools COCOeval): 10 IoU thresholds, 101 recall points,
//   maxDets 1/10/100, area ranges from the annotation area, crowd regions ignored and matched as
//   crowd; the 12 standard numbers.
// - TensorFlow Lite's run_eval average precision: per class greedy matching by score, IoU thresholds
//   0.50:0.05:0.95, 101-point interpolated precision, no area ranges and no detection cap; mAP is the
//   mean over thresholds of the mean over classes.
// docs/coco.md explains where the two differ.
#ifndef TOUCHSTONE_EVALUATION_COCO_METRICS_H_
#define TOUCHSTONE_EVALUATION_COCO_METRICS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/coco_json.h"

namespace touchstone {

struct CocoMetrics {
  // AP, AP50, AP75, APsmall, APmedium, APlarge, AR1, AR10, AR100, ARsmall, ARmedium, ARlarge;
  // -1 where no ground truth exists for the setting (as pycocotools prints).
  std::array<double, 12> values{};
  // AP@[.5:.95] (area all, 100 detections) of each category, in category id order; -1 where the
  // category has no ground truth.
  std::vector<std::pair<int64_t, double>> category_ap;
  // The precision-recall curve of each IoU threshold (0.50, 0.55, ..., 0.95): the interpolated precision
  // at COCO's 101 recall points (0, 0.01, ..., 1) averaged over the categories with ground truth (area
  // all, 100 detections), -1 where none has any. AP@[.5:.95] is the mean of these curves' points.
  std::vector<std::vector<double>> pr_curves;
  static const char* Label(int i);  // "Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]"
};

// image_ids and category_ids are the evaluation's universe (pycocotools: all images and categories of
// the ground truth, sorted).
CocoMetrics EvaluateCoco(const std::vector<CocoBox>& ground_truth, const std::vector<CocoBox>& detections,
                         std::vector<int64_t> image_ids, std::vector<int64_t> category_ids);

// TFLite's definition. Boxes are compared in whatever units they are given (TFLite uses normalised
// [ymin, xmin, ymax, xmax]; the IoU is the same in pixels up to rounding).
struct TfliteApResult {
  std::vector<double> iou_thresholds;    // 0.5, 0.55, ..., 0.95
  std::vector<float> average_precision;  // per threshold
  float overall_map = 0.0f;
  // Each class's AP averaged over the thresholds, in class id order.
  std::vector<std::pair<int, float>> class_ap;
};

struct TfliteBox {
  float ymin = 0, xmin = 0, ymax = 0, xmax = 0;
  int class_id = 0;
  float score = 0;
};

// A COCO box (pixels: x, y, width, height) as a TfliteBox on `image`, the way
// preprocess_coco_minival.py normalises it: divided in double, stored as float32; with its category and
// score (0 for ground truth).
TfliteBox NormalizedBox(const CocoBox& box, const CocoImage& image);

// One entry per image: its ground truth and its detections.
TfliteApResult EvaluateTfliteAp(const std::vector<std::vector<TfliteBox>>& ground_truth,
                                const std::vector<std::vector<TfliteBox>>& detections);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_COCO_METRICS_H_
