#include "evaluation/latency_stats.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(LatencyStatsTest, HandComputedFigures) {
  LatencyStats stats;
  for (int64_t v : {10, 20, 30, 40}) stats.Add(v);
  EXPECT_EQ(stats.count(), 4);
  EXPECT_EQ(stats.first_us(), 10);
  EXPECT_EQ(stats.last_us(), 40);
  EXPECT_DOUBLE_EQ(stats.mean_us(), 25.0);
  // Population std: sqrt(((15^2)*2 + (5^2)*2) / 4) = sqrt(125) = 11.18...
  EXPECT_NEAR(stats.stddev_us(), 11.1803398875, 1e-9);
  EXPECT_EQ(stats.percentile_us(5), 10);   // floor(4*0.05) = 0
  EXPECT_EQ(stats.percentile_us(50), 30);  // floor(4*0.5) = 2
  EXPECT_EQ(stats.percentile_us(95), 40);  // floor(4*0.95) = 3
  EXPECT_EQ(stats.ToString(),
            "count=4 first=10 curr=40 min=10 max=40 avg=25 std=11 p5=10 median=30 p95=40");
}

TEST(LatencyStatsTest, AllSameAndEmpty) {
  LatencyStats stats;
  EXPECT_EQ(stats.ToString(), "count=0");
  stats.Add(7);
  stats.Add(7);
  EXPECT_EQ(stats.ToString(), "count=2 curr=7 (all same)");
}

TEST(LatencyStatsTest, MeanKeepsFraction) {
  LatencyStats stats;
  for (int64_t v : {1, 2}) stats.Add(v);
  EXPECT_EQ(stats.ToString(), "count=2 first=1 curr=2 min=1 max=2 avg=1.5 std=0 p5=1 median=2 p95=2");
}

}  // namespace
}  // namespace touchstone
