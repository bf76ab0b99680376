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
  EXPECT_EQ(stats.sum_us(), 100);
  EXPECT_DOUBLE_EQ(stats.mean_us(), 25.0);
  // Population std: sqrt((100+400+900+1600)/4 - 25^2) = sqrt(750 - 625) = sqrt(125) = 11.18...
  EXPECT_NEAR(stats.stddev_us(), 11.1803398875, 1e-9);
  EXPECT_EQ(stats.percentile_us(5), 10);   // floor(4*0.05) = 0
  EXPECT_EQ(stats.percentile_us(50), 30);  // floor(4*0.5) = 2
  EXPECT_EQ(stats.percentile_us(95), 40);  // floor(4*0.95) = 3
  EXPECT_EQ(stats.percentile_us(100), 40);
  EXPECT_DOUBLE_EQ(stats.median_us(), 25.0);  // (20 + 30) / 2
  EXPECT_EQ(stats.ToString(),
            "count=4 first=10 curr=40 min=10 max=40 avg=25 std=11 p5=10 median=30 p95=40");
  EXPECT_EQ(stats.ToStringWithoutPercentiles(), "count=4 first=10 curr=40 min=10 max=40 avg=25 std=11");
}

TEST(LatencyStatsTest, PercentilesOfUnsortedSamples) {
  // 20 samples 1..20 in a scrambled order: sorted index floor(20*p/100).
  LatencyStats stats;
  for (int64_t v : {7, 3, 20, 1, 15, 9, 12, 2, 18, 5, 11, 14, 4, 19, 6, 8, 16, 10, 13, 17}) stats.Add(v);
  const LatencySummary s = stats.Summary();
  EXPECT_EQ(s.p5_us, 2);    // index 1
  EXPECT_EQ(s.p50_us, 11);  // index 10
  EXPECT_EQ(s.p90_us, 19);  // index 18
  EXPECT_EQ(s.p95_us, 20);  // index 19
  EXPECT_EQ(s.p99_us, 20);  // index floor(19.8) = 19
  EXPECT_DOUBLE_EQ(s.median_us, 10.5);
  EXPECT_EQ(s.first_us, 7);
  EXPECT_EQ(s.last_us, 17);
  EXPECT_EQ(s.min_us, 1);
  EXPECT_EQ(s.max_us, 20);
  EXPECT_DOUBLE_EQ(s.mean_us, 10.5);
  // sum of squares 1..20 = 2870; 2870/20 - 10.5^2 = 143.5 - 110.25 = 33.25
  EXPECT_NEAR(s.stddev_us, 5.766281297335398, 1e-12);
}

TEST(LatencyStatsTest, AllSameOneSampleAndEmpty) {
  LatencyStats stats;
  EXPECT_EQ(stats.ToString(), "count=0");
  EXPECT_EQ(stats.first_us(), 0);
  EXPECT_DOUBLE_EQ(stats.mean_us(), 0.0);
  stats.Add(7);
  // One sample: TFLite prints no "(all same)".
  EXPECT_EQ(stats.ToString(), "count=1 curr=7 p5=7 median=7 p95=7");
  stats.Add(7);
  EXPECT_EQ(stats.ToString(), "count=2 curr=7 (all same) p5=7 median=7 p95=7");
  EXPECT_EQ(stats.ToStringWithoutPercentiles(), "count=2 curr=7 (all same)");
  EXPECT_DOUBLE_EQ(stats.stddev_us(), 0.0);
}

TEST(LatencyStatsTest, MeanKeepsFractionStdTruncates) {
  LatencyStats stats;
  for (int64_t v : {1, 2}) stats.Add(v);
  // std = sqrt(2.5 - 2.25) = 0.5, printed truncated: 0.
  EXPECT_EQ(stats.ToString(), "count=2 first=1 curr=2 min=1 max=2 avg=1.5 std=0 p5=1 median=2 p95=2");
  LatencyStats wide;
  for (int64_t v : {100, 200, 300}) wide.Add(v);
  // sqrt(140000/3 - 40000) = sqrt(6666.67) = 81.65 -> 81
  EXPECT_EQ(wide.ToString(), "count=3 first=100 curr=300 min=100 max=300 avg=200 std=81 p5=100 median=200 p95=300");
}

TEST(LatencyStatsTest, MedianOf) {
  EXPECT_DOUBLE_EQ(MedianOf({}), 0.0);
  EXPECT_DOUBLE_EQ(MedianOf({5}), 5.0);
  EXPECT_DOUBLE_EQ(MedianOf({9, 1, 5}), 5.0);
  EXPECT_DOUBLE_EQ(MedianOf({9, 1, 5, 3}), 4.0);
}

}  // namespace
}  // namespace touchstone
