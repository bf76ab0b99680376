// Fuzz target: the COCO JSON readers (datasets/coco_json.h) and, on what they accept, the COCO
// metrics. The input is an instances (ground-truth) document, optionally followed by a line
// "#results" and a results document; without one, the instances document is read as results too
// (an instances-style dict whose annotations carry scores is a valid results file).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "datasets/coco_json.h"
#include "evaluation/coco_metrics.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

constexpr char kSeparator[] = "\n#results\n";

void Evaluate(const touchstone::CocoDataset& truth, const std::vector<touchstone::CocoBox>& detections) {
  std::vector<int64_t> image_ids;
  for (const touchstone::CocoImage& image : truth.images) image_ids.push_back(image.id);
  std::vector<int64_t> category_ids;
  for (const auto& entry : truth.categories) category_ids.push_back(entry.first);
  std::sort(image_ids.begin(), image_ids.end());
  (void)touchstone::EvaluateCoco(truth.annotations, detections, image_ids, category_ids);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static touchstone::fuzz::MemFile* truth_file = new touchstone::fuzz::MemFile("coco_truth");
  static touchstone::fuzz::MemFile* results_file = new touchstone::fuzz::MemFile("coco_results");
  const uint8_t* end = data + size;
  const uint8_t* split = std::search(data, end, kSeparator, kSeparator + std::strlen(kSeparator));
  const std::string& truth_path = truth_file->Write(data, static_cast<size_t>(split - data));
  const std::string* results_path = &truth_path;
  if (split != end) {
    const uint8_t* results = split + std::strlen(kSeparator);
    results_path = &results_file->Write(results, static_cast<size_t>(end - results));
  }
  auto truth = touchstone::ReadCocoInstances(truth_path);
  if (!truth.ok()) {
    (void)touchstone::ReadCocoResults(*results_path, touchstone::CocoDataset());
    return 0;
  }
  auto detections = touchstone::ReadCocoResults(*results_path, truth.value());
  if (detections.ok()) Evaluate(truth.value(), detections.value());
  return 0;
}
