#include "runtime/arena_planner.h"

#include <algorithm>
#include <numeric>

namespace touchstone {
namespace {

size_t AlignUp(size_t bytes) {
  return (bytes + kArenaAlignmentBytes - 1) / kArenaAlignmentBytes * kArenaAlignmentBytes;
}

bool LifetimesOverlap(const ArenaRequest& a, const ArenaRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

}  // namespace

ArenaPlan PlanArena(const std::vector<ArenaRequest>& requests) {
  ArenaPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first, ties by earlier first use: big tensors get the low offsets.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (requests[a].bytes != requests[b].bytes) return requests[a].bytes > requests[b].bytes;
    return requests[a].first_step < requests[b].first_step;
  });

  struct Placed {
    size_t offset;
    size_t end;
    size_t request;
  };
  std::vector<Placed> placed;  // kept sorted by offset
  for (size_t r : order) {
    const size_t bytes = AlignUp(requests[r].bytes);
    if (bytes == 0) continue;
    size_t candidate = 0;
    for (const Placed& p : placed) {
      if (!LifetimesOverlap(requests[r], requests[p.request])) continue;
      if (candidate + bytes <= p.offset) break;  // fits in the gap before p
      candidate = std::max(candidate, p.end);
    }
    plan.offsets[r] = candidate;
    plan.arena_bytes = std::max(plan.arena_bytes, candidate + bytes);
    Placed entry{candidate, candidate + bytes, r};
    placed.insert(std::upper_bound(placed.begin(), placed.end(), entry,
                                   [](const Placed& a, const Placed& b) { return a.offset < b.offset; }),
                  entry);
  }
  return plan;
}

}  // namespace touchstone
