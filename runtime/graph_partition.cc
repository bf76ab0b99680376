#include "runtime/graph_partition.h"

#include <algorithm>
#include <map>

namespace touchstone {

std::vector<NodeSubset> PartitionIntoIndependentSubsets(const PartitionGraph& graph,
                                                        const std::vector<int>& plan,
                                                        const std::set<int>& delegated) {
  // Which node of the plan writes each tensor.
  std::map<int, int> producer;
  for (int node : plan) {
    for (int t : graph.node_outputs[node]) {
      if (t >= 0) producer[t] = node;
    }
  }
  // subset_of[node]: index of the subset it went to; -1 while unassigned.
  std::map<int, int> subset_of, position;
  for (size_t i = 0; i < plan.size(); ++i) {
    subset_of[plan[i]] = -1;
    position[plan[i]] = static_cast<int>(i);
  }

  std::vector<NodeSubset> subsets;
  size_t assigned = 0;
  // Alternate between the two kinds, starting with the kind of the first node in the plan; each
  // subset takes every node of its kind whose producers are already placed (in earlier subsets or
  // in this one), scanning in plan order until nothing more fits.
  bool kind = delegated.count(plan.empty() ? -1 : plan.front()) > 0;
  int idle_rounds = 0;  // consecutive subsets that took nothing
  while (assigned < plan.size()) {
    if (idle_rounds >= 2) {
      // Neither kind can take a node: some node waits on itself (a damaged graph where a node reads its
      // own output, directly or around a loop). Place the first unplaced node as if its producers were
      // placed, so partitioning ends; preparing the graph then refuses it.
      for (int node : plan) {
        if (subset_of[node] != -1) continue;
        NodeSubset forced;
        forced.delegated = delegated.count(node) > 0;
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
        if (subset_of[node] != -1 || (delegated.count(node) > 0) != kind) continue;
        bool ready = true;
        for (int t : graph.node_inputs[node]) {
          auto p = producer.find(t);
          if (t >= 0 && p != producer.end() && subset_of[p->second] == -1) ready = false;
        }
        if (!ready) continue;
        subset_of[node] = index;
        subset.nodes.push_back(node);
        ++assigned;
        grew = true;
      }
    }
    if (!subset.nodes.empty()) {
      std::sort(subset.nodes.begin(), subset.nodes.end(),
                [&](int a, int b) { return position[a] < position[b]; });
      subsets.push_back(std::move(subset));
      idle_rounds = 0;
    } else {
      ++idle_rounds;
    }
    kind = !kind;
  }

  // Boundary tensors of each subset.
  std::set<int> graph_outputs(graph.graph_outputs.begin(), graph.graph_outputs.end());
  for (size_t s = 0; s < subsets.size(); ++s) {
    NodeSubset& subset = subsets[s];
    std::set<int> produced_inside, seen_inputs, seen_outputs;
    for (int node : subset.nodes) {
      for (int t : graph.node_outputs[node]) {
        if (t >= 0) produced_inside.insert(t);
      }
    }
    for (int node : subset.nodes) {
      for (int t : graph.node_inputs[node]) {
        if (t < 0 || produced_inside.count(t) || !seen_inputs.insert(t).second) continue;
        subset.input_tensors.push_back(t);
      }
    }
    for (int node : subset.nodes) {
      for (int t : graph.node_outputs[node]) {
        if (t < 0 || seen_outputs.count(t)) continue;
        bool read_outside = graph_outputs.count(t) > 0;
        for (int other : plan) {
          if (subset_of[other] == static_cast<int>(s)) continue;
          const auto& ins = graph.node_inputs[other];
          if (std::find(ins.begin(), ins.end(), t) != ins.end()) read_outside = true;
        }
        if (read_outside) {
          seen_outputs.insert(t);
          subset.output_tensors.push_back(t);
        }
      }
    }
  }
  return subsets;
}

}  // namespace touchstone
