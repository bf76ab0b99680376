#include "runtime/arena_planner.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(ArenaPlannerTest, DisjointLifetimesShareMemory) {
  // a: steps 0-1, b: steps 2-3 (no overlap) -> both at offset 0; c overlaps both.
  std::vector<ArenaRequest> requests = {{1000, 0, 1}, {1000, 2, 3}, {100, 0, 3}};
  ArenaPlan plan = PlanArena(requests);
  EXPECT_EQ(plan.offsets[0], plan.offsets[1]);
  EXPECT_GE(plan.offsets[2], 1024u);
  EXPECT_EQ(plan.arena_bytes, 1024u + 128u);
}

TEST(ArenaPlannerTest, OverlappingLifetimesNeverAlias) {
  std::vector<ArenaRequest> requests;
  for (int i = 0; i < 20; ++i) requests.push_back({static_cast<size_t>(64 * (i % 5 + 1)), i / 2, i / 2 + 3});
  ArenaPlan plan = PlanArena(requests);
  for (size_t a = 0; a < requests.size(); ++a) {
    EXPECT_EQ(plan.offsets[a] % kArenaAlignmentBytes, 0u);
    for (size_t b = a + 1; b < requests.size(); ++b) {
      const bool time =
          requests[a].first_step <= requests[b].last_step && requests[b].first_step <= requests[a].last_step;
      const bool space = plan.offsets[a] < plan.offsets[b] + requests[b].bytes &&
                         plan.offsets[b] < plan.offsets[a] + requests[a].bytes;
      EXPECT_FALSE(time && space) << a << " and " << b;
    }
    EXPECT_LE(plan.offsets[a] + requests[a].bytes, plan.arena_bytes);
  }
}

TEST(ArenaPlannerTest, ZeroBytesAndEmpty) {
  EXPECT_EQ(PlanArena({}).arena_bytes, 0u);
  ArenaPlan plan = PlanArena({{0, 0, 0}});
  EXPECT_EQ(plan.arena_bytes, 0u);
}

}  // namespace
}  // namespace touchstone
