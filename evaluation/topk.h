// Top-K accuracy as TFLite's TopkAccuracyEvalStage computes it: scores ranked by a stable sort in
// descending order (ties keep the lower class index first); an image counts for every k at or
// above the rank of its first label hit; accuracy = hits / images.
#ifndef TOUCHSTONE_EVALUATION_TOPK_H_
#define TOUCHSTONE_EVALUATION_TOPK_H_

#include <string>
#include <utility>
#include <vector>

namespace touchstone {

// Indices of the k largest scores, best first.
std::vector<int> TopKIndices(const std::vector<double>& scores, int k);

class TopKAccumulator {
 public:
  explicit TopKAccumulator(int k = 10) : hits_(k, 0) {}
  // From counts accumulated elsewhere (a merge of shard reports): hits per k and images.
  TopKAccumulator(std::vector<int> hits, int images) : hits_(std::move(hits)), images_(images) {}
  // Returns the 1-based rank of the first hit, or 0 for a miss.
  int Add(const std::vector<double>& scores, const std::vector<std::string>& model_labels,
          const std::string& ground_truth);
  int images() const { return images_; }
  const std::vector<int>& hits() const { return hits_; }  // cumulative: hits_[k-1] for top-k
  // hits/images as float, as TFLite's metrics proto holds it.
  std::vector<float> accuracies() const;

 private:
  std::vector<int> hits_;
  int images_ = 0;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_TOPK_H_
