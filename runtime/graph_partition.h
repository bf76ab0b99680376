// Splits an execution plan into subsets of delegated and non-delegated nodes such that each subset
// depends only on subsets before it: every subset can then run as one node without creating a cycle
// (A -> B(not delegated) -> C gives three subsets, not {A, C} and {B}).
#ifndef TOUCHSTONE_RUNTIME_GRAPH_PARTITION_H_
#define TOUCHSTONE_RUNTIME_GRAPH_PARTITION_H_

#include <set>
#include <vector>

namespace touchstone {

struct NodeSubset {
  bool delegated = false;
  std::vector<int> nodes;           // in execution order
  std::vector<int> input_tensors;   // read by the subset, written outside it (constants included)
  std::vector<int> output_tensors;  // written by the subset, read outside it or graph outputs
};

// The graph as the partitioner sees it: each node's input and output tensor indices (-1 = absent).
struct PartitionGraph {
  std::vector<std::vector<int>> node_inputs;
  std::vector<std::vector<int>> node_outputs;
  std::vector<int> graph_outputs;
};

// `plan` is a topological order of node indices; `delegated` the nodes a delegate wants.
std::vector<NodeSubset> PartitionIntoIndependentSubsets(const PartitionGraph& graph, const std::vector<int>& plan,
                                                        const std::set<int>& delegated);

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_GRAPH_PARTITION_H_
