// Plans one memory arena for the tensors a subgraph computes: tensors whose lifetimes (first
// producing step to last consuming step) do not overlap may share bytes. Greedy by size, first fit,
// as TFLite's planner does; offsets are aligned for vector loads.
#ifndef TOUCHSTONE_RUNTIME_ARENA_PLANNER_H_
#define TOUCHSTONE_RUNTIME_ARENA_PLANNER_H_

#include <cstddef>
#include <vector>

namespace touchstone {

constexpr size_t kArenaAlignmentBytes = 64;

struct ArenaRequest {
  size_t bytes = 0;
  int first_step = 0;  // step at which the tensor is written (inputs: -1)
  int last_step = 0;   // last step that reads it (outputs: the last step of the subgraph)
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per request
  size_t arena_bytes = 0;
};

ArenaPlan PlanArena(const std::vector<ArenaRequest>& requests);

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_ARENA_PLANNER_H_
