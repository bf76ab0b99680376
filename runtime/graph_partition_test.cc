// Partitioning on hand-built graphs, checked subset by subset.
#include "runtime/graph_partition.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

// Node i reads inputs[i] and writes outputs[i].
PartitionGraph Graph(std::vector<std::vector<int>> inputs, std::vector<std::vector<int>> outputs,
                     std::vector<int> graph_outputs) {
  PartitionGraph g;
  g.node_inputs = std::move(inputs);
  g.node_outputs = std::move(outputs);
  g.graph_outputs = std::move(graph_outputs);
  return g;
}

std::vector<int> Plan(int n) {
  std::vector<int> plan;
  for (int i = 0; i < n; ++i) plan.push_back(i);
  return plan;
}

TEST(GraphPartitionTest, ChainWithUnsupportedMiddleSplitsInThree) {
  // t0 -A-> t1 -B-> t2 -C-> t3; A and C delegated.
  PartitionGraph g = Graph({{0}, {1}, {2}}, {{1}, {2}, {3}}, {3});
  auto subsets = PartitionIntoIndependentSubsets(g, Plan(3), {0, 2});
  ASSERT_EQ(subsets.size(), 3u);
  EXPECT_TRUE(subsets[0].delegated);
  EXPECT_EQ(subsets[0].nodes, std::vector<int>{0});
  EXPECT_EQ(subsets[0].input_tensors, std::vector<int>{0});
  EXPECT_EQ(subsets[0].output_tensors, std::vector<int>{1});
  EXPECT_FALSE(subsets[1].delegated);
  EXPECT_EQ(subsets[1].nodes, std::vector<int>{1});
  EXPECT_TRUE(subsets[2].delegated);
  EXPECT_EQ(subsets[2].nodes, std::vector<int>{2});
  EXPECT_EQ(subsets[2].output_tensors, std::vector<int>{3});
}

TEST(GraphPartitionTest, DiamondAroundAnUnsupportedBranch) {
  // A: t0->t1; B (unsupported): t1->t2; C: t1->t3; D: t2,t3->t4. A, C, D delegated.
  PartitionGraph g = Graph({{0}, {1}, {1}, {2, 3}}, {{1}, {2}, {3}, {4}}, {4});
  auto subsets = PartitionIntoIndependentSubsets(g, Plan(4), {0, 2, 3});
  ASSERT_EQ(subsets.size(), 3u);
  EXPECT_EQ(subsets[0].nodes, (std::vector<int>{0, 2}));  // A and C together
  EXPECT_EQ(subsets[0].output_tensors, (std::vector<int>{1, 3}));
  EXPECT_EQ(subsets[1].nodes, std::vector<int>{1});
  EXPECT_EQ(subsets[2].nodes, std::vector<int>{3});
  EXPECT_EQ(subsets[2].input_tensors, (std::vector<int>{2, 3}));
}

TEST(GraphPartitionTest, EverythingOrNothingDelegated) {
  PartitionGraph g = Graph({{0, 9}, {1}}, {{1}, {2}}, {2});  // t9: a constant, written by no node
  auto all = PartitionIntoIndependentSubsets(g, Plan(2), {0, 1});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].delegated);
  EXPECT_EQ(all[0].input_tensors, (std::vector<int>{0, 9}));
  EXPECT_EQ(all[0].output_tensors, std::vector<int>{2});
  auto none = PartitionIntoIndependentSubsets(g, Plan(2), {});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0].delegated);
}

TEST(GraphPartitionTest, IndependentBranchesJoinOnePartition) {
  // Two parallel delegated nodes and an unsupported one reading neither: one delegated subset.
  PartitionGraph g = Graph({{0}, {0}, {5}}, {{1}, {2}, {6}}, {1, 2, 6});
  auto subsets = PartitionIntoIndependentSubsets(g, Plan(3), {0, 1});
  ASSERT_EQ(subsets.size(), 2u);
  EXPECT_EQ(subsets[0].nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(subsets[1].nodes, std::vector<int>{2});
}

TEST(GraphPartitionTest, OutputsReadInsideAndOutside) {
  // A writes t1 read by B (delegated) and by C (not); t1 must be an output of the subset.
  PartitionGraph g = Graph({{0}, {1}, {1}}, {{1}, {2}, {3}}, {2, 3});
  auto subsets = PartitionIntoIndependentSubsets(g, Plan(3), {0, 1});
  ASSERT_EQ(subsets.size(), 2u);
  EXPECT_EQ(subsets[0].output_tensors, (std::vector<int>{1, 2}));
}

TEST(GraphPartitionTest, NodeReadingItsOwnOutputEnds) {
  // A damaged graph: node 1 reads t2, which it writes itself. Partitioning must still end.
  PartitionGraph g = Graph({{0}, {1, 2}}, {{1}, {2}}, {2});
  auto subsets = PartitionIntoIndependentSubsets(g, Plan(2), {1});
  size_t placed = 0;
  for (const auto& s : subsets) placed += s.nodes.size();
  EXPECT_EQ(placed, 2u);
}

}  // namespace
}  // namespace touchstone
