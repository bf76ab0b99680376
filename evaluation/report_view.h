// report_view's pages: a self-contained HTML page from any Touchstone report (benchmark_model,
// inference_diff, imagenet_eval, coco_eval, whole, shard or merged), and a page comparing two reports of
// one tool. Everything is inline: the style, the charts (svg_chart.h), and the images as data: URIs
// (report_images.h); a page fetches nothing. What each page draws (docs/report_view.md):
//   benchmark_model  the latency histogram, every kept run in run order (warm-up and regular, with a
//                    rolling median), the percentile table, per-op time sorted, a timeline of the last
//                    profiled invoke (nodes on the observer's threads, delegate kernels marked, the ops
//                    they reported on their own lanes), the memory figures
//   inference_diff   each output's error histogram (quantization steps for quantized outputs, else
//                    |diff| by power of two), the layer-wise error curve along the graph with breaches and
//                    the first diverging op marked
//   imagenet_eval    the top-K curve, per-class accuracy sorted, the worst misclassified images with their
//                    true and predicted labels
//   coco_eval        precision-recall curves per IoU threshold, per-class AP, the images with the most
//                    errors with ground truth and detections drawn
//   comparison       the configuration differences, every figure with its change and verdict and the
//                    tool's gate (report_diff.h), and the tool's charts with both runs overlaid
// Each chart is an <svg class="chart" data-chart="..."> (the browser test counts them and their elements).
#ifndef TOUCHSTONE_EVALUATION_REPORT_VIEW_H_
#define TOUCHSTONE_EVALUATION_REPORT_VIEW_H_

#include <string>

#include <nlohmann/json.hpp>

#include "evaluation/report_diff.h"
#include "runtime/status.h"

namespace touchstone {

struct PageOptions {
  // Where the report's images are on this machine: imagenet_eval's worst images are read from
  // <images_root>/<file>, coco_eval's examples from <images_root>/<file_name>. "": the paths the report
  // names (imagenet_eval's "path", coco_eval's details.ground_truth_images_path), as seen from here.
  std::string images_root;
  // Thumbnails' and drawn images' longest side, pixels.
  int thumbnail_px = 180;
  int example_px = 480;
  // The report files' names, for headings.
  std::string report_name;
  std::string baseline_name;
};

// The page of one report. Errors (kInvalidInput): not a Touchstone report, or one of a tool this build
// does not know. An image the page cannot read is a note on the page, not an error.
StatusOr<std::string> ReportPage(const nlohmann::json& report, const PageOptions& options);

// The page comparing `current` against `baseline` (two reports of one tool; else kInvalidInput).
StatusOr<std::string> ComparisonPage(const nlohmann::json& baseline, const nlohmann::json& current,
                                     const PageOptions& options, const ReportDiffConfig& config);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_REPORT_VIEW_H_
