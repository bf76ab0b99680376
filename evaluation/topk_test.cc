#include "evaluation/topk.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(TopKTest, StableSortKeepsLowerIndexOnTies) {
  EXPECT_EQ(TopKIndices({0.5, 0.9, 0.5, 0.9, 0.1}, 4), (std::vector<int>{1, 3, 0, 2}));
  EXPECT_EQ(TopKIndices({1.0}, 10), std::vector<int>{0});
}

TEST(TopKTest, CumulativeHits) {
  TopKAccumulator acc(3);
  const std::vector<std::string> labels = {"bg", "cat", "dog", "fox"};
  EXPECT_EQ(acc.Add({0.1, 0.7, 0.2, 0.0}, labels, "cat"), 1);
  EXPECT_EQ(acc.Add({0.1, 0.7, 0.2, 0.0}, labels, "dog"), 2);
  EXPECT_EQ(acc.Add({0.1, 0.7, 0.2, 0.0}, labels, "fox"), 0);  // rank 4: outside top-3
  EXPECT_EQ(acc.hits(), (std::vector<int>{1, 2, 2}));
  const std::vector<float> acc_values = acc.accuracies();
  EXPECT_FLOAT_EQ(acc_values[0], 1.0f / 3.0f);
  EXPECT_FLOAT_EQ(acc_values[2], 2.0f / 3.0f);
}

}  // namespace
}  // namespace touchstone
