#include "evaluation/topk.h"

#include <algorithm>
#include <numeric>

namespace touchstone {

std::vector<int> TopKIndices(const std::vector<double>& scores, int k) {
  std::vector<int> indices(scores.size());
  std::iota(indices.begin(), indices.end(), 0);
  std::stable_sort(indices.begin(), indices.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  if (static_cast<int>(indices.size()) > k) indices.resize(static_cast<size_t>(k));
  return indices;
}

int TopKAccumulator::Add(const std::vector<double>& scores, const std::vector<std::string>& model_labels,
                         const std::string& ground_truth) {
  ++images_;
  const std::vector<int> top = TopKIndices(scores, static_cast<int>(hits_.size()));
  for (size_t rank = 0; rank < top.size(); ++rank) {
    const int index = top[rank];
    if (index < static_cast<int>(model_labels.size()) && model_labels[index] == ground_truth) {
      for (size_t k = rank; k < hits_.size(); ++k) hits_[k]++;
      return static_cast<int>(rank) + 1;
    }
  }
  return 0;
}

std::vector<float> TopKAccumulator::accuracies() const {
  std::vector<float> result;
  for (int h : hits_) result.push_back(images_ > 0 ? static_cast<float>(h) / static_cast<float>(images_) : 0.0f);
  return result;
}

}  // namespace touchstone
