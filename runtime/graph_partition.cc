#include "runtime/graph_partition.h"

#include <algorithm>
#include <vector>

namespace touchstone {

std::vector<NodeSubset> PartitionIntoIndependentSubsets(const PartitionGraph& graph, const std::vector<int>& plan,
                                                        const std::set<int>& delegated) {
  // Tables indexed by node and tensor (a model's Init runs this for every delegate).
  const size_t node_count = std::max(graph.node_inputs.size(), graph.node_outputs.size());
  int max_tensor = -1;
  for (const std::vector<std::vector<int>>* lists : {&graph.node_inputs, &graph.node_outputs}) {
    for (const std::vector<int>& tensors : *lists) {
      for (int t : tensors) max_tensor = std::max(max_tensor, t);
    }
  }
  const size_t tensor_count = static_cast<size_t>(max_tensor + 1);
  std::vector<char> is_delegated(node_count, 0);
  for (int node : delegated) {
    if (node >= 0 && static_cast<size_t>(node) < node_count) is_delegated[node] = 1;
  }
  // Which node of the plan writes each tensor (-1: none).
  std::vector<int> producer(tensor_count, -1);
  for (int node : plan) {
    for (int t : graph.node_outputs[node]) {
      if (t >= 0) producer[t] = node;
    }
  }
  // subset_of[node]: index of the subset it went to; -1 while unassigned.
  std::vector<int> subset_of(node_count, -1), position(node_count, 0);
  for (size_t i = 0; i < plan.size(); ++i) position[plan[i]] = static_cast<int>(i);

  std::vector<NodeSubset> subsets;
  size_t assigned = 0;
  // Alternate between the two kinds, starting with the kind of the first node in the plan; each
  // subset takes every node of its kind whose producers are already placed (in earlier subsets or
  // in this one), scanning in plan order until nothing more fits.
  bool kind = !plan.empty() && is_delegated[plan.front()];
  int idle_rounds = 0;  // consecutive subsets that took nothing
  while (assigned < plan.size()) {
    if (idle_rounds >= 2) {
      // Neither kind can take a node: some node waits on itself (a damaged graph where a node reads its
      // own output, directly or around a loop). Place the first unplaced node as if its producers were
      // placed, so partitioning ends; preparing the graph then refuses it.
      for (int node : plan) {
        if (subset_of[node] != -1) continue;
        NodeSubset forced;
        forced.delegated = is_delegated[node] != 0;
        forced.nodes.push_back(node);
        subset_of[node] = static_cast<int>(subsets.size());
        ++assigned;
        subsets.push_back(std::move(forced));
        kind = !subsets.back().delegated;
        break;
      }
      idle_rounds = 0;
      continue;
    }
    NodeSubset subset;
    subset.delegated = kind;
    const int index = static_cast<int>(subsets.size());
    bool grew = true;
    while (grew) {
      grew = false;
      for (int node : plan) {
        if (subset_of[node] != -1 || (is_delegated[node] != 0) != kind) continue;
        bool ready = true;
        for (int t : graph.node_inputs[node]) {
          if (t >= 0 && producer[t] != -1 && subset_of[producer[t]] == -1) ready = false;
        }
        if (!ready) continue;
        subset_of[node] = index;
        subset.nodes.push_back(node);
        ++assigned;
        grew = true;
      }
    }
    if (!subset.nodes.empty()) {
      std::sort(subset.nodes.begin(), subset.nodes.end(), [&](int a, int b) { return position[a] < position[b]; });
      subsets.push_back(std::move(subset));
      idle_rounds = 0;
    } else {
      ++idle_rounds;
    }
    kind = !kind;
  }

  // Boundary tensors of each subset. readers[t]: the plan's nodes that read t. Marks per tensor hold the
  // index of the subset that last set them, so one array serves every subset.
  std::vector<char> is_graph_output(tensor_count, 0);
  for (int t : graph.graph_outputs) {
    if (t >= 0 && static_cast<size_t>(t) < tensor_count) is_graph_output[t] = 1;
  }
  std::vector<std::vector<int>> readers(tensor_count);
  for (int node : plan) {
    for (int t : graph.node_inputs[node]) {
      if (t >= 0 && (readers[t].empty() || readers[t].back() != node)) readers[t].push_back(node);
    }
  }
  std::vector<int> produced_by_subset(tensor_count, -1), input_of_subset(tensor_count, -1),
      output_of_subset(tensor_count, -1);
  for (size_t s = 0; s < subsets.size(); ++s) {
    NodeSubset& subset = subsets[s];
    const int mark = static_cast<int>(s);
    for (int node : subset.nodes) {
      for (int t : graph.node_outputs[node]) {
        if (t >= 0) produced_by_subset[t] = mark;
      }
    }
    for (int node : subset.nodes) {
      for (int t : graph.node_inputs[node]) {
        if (t < 0 || produced_by_subset[t] == mark || input_of_subset[t] == mark) continue;
        input_of_subset[t] = mark;
        subset.input_tensors.push_back(t);
      }
    }
    for (int node : subset.nodes) {
      for (int t : graph.node_outputs[node]) {
        if (t < 0 || output_of_subset[t] == mark) continue;
        bool read_outside = is_graph_output[t] != 0;
        for (int other : readers[t]) {
          if (subset_of[other] != mark) read_outside = true;
        }
        if (read_outside) {
          output_of_subset[t] = mark;
          subset.output_tensors.push_back(t);
        }
      }
    }
  }
  return subsets;
}

}  // namespace touchstone
