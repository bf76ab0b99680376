#include "evaluation/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

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
  EXPECT_EQ(stats.ToString(), "count=4 first=10 curr=40 min=10 max=40 avg=25 std=11 p5=10 median=30 p95=40");
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

// The average is printed as TFLite streams a double: six significant digits, then an exponent.
TEST(LatencyStatsTest, AverageHasSixSignificantDigits) {
  LatencyStats thirds;
  for (int64_t v : {1001, 1002, 1004}) thirds.Add(v);
  EXPECT_EQ(thirds.ToString(),
            "count=3 first=1001 curr=1004 min=1001 max=1004 avg=1002.33 std=1 p5=1001 median=1002 p95=1004");
  LatencyStats long_runs;
  for (int64_t v : {1234567, 1234568}) long_runs.Add(v);
  EXPECT_EQ(long_runs.ToStringWithoutPercentiles(),
            "count=2 first=1234567 curr=1234568 min=1234567 max=1234568 avg=1.23457e+06 std=0");
}

TEST(LatencyStatsTest, MedianOf) {
  EXPECT_DOUBLE_EQ(MedianOf({}), 0.0);
  EXPECT_DOUBLE_EQ(MedianOf({5}), 5.0);
  EXPECT_DOUBLE_EQ(MedianOf({9, 1, 5}), 5.0);
  EXPECT_DOUBLE_EQ(MedianOf({9, 1, 5, 3}), 4.0);
}

}  // namespace
}  // namespace touchstone

namespace touchstone {
namespace {

TEST(LatencyHistogramTest, BucketsAreAnEighthOfAPercentWide) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{127}}) {
    const int b = LatencyHistogram::BucketOf(v);
    EXPECT_EQ(LatencyHistogram::BucketLow(b), v);
    EXPECT_EQ(LatencyHistogram::BucketHigh(b), v);
  }
  // 128..255: width 1; 256..511: width 2; each octave in 128 buckets.
  EXPECT_EQ(LatencyHistogram::BucketOf(128), 128);
  EXPECT_EQ(LatencyHistogram::BucketOf(255), 255);
  EXPECT_EQ(LatencyHistogram::BucketOf(256), 256);
  EXPECT_EQ(LatencyHistogram::BucketOf(257), 256);
  EXPECT_EQ(LatencyHistogram::BucketLow(256), 256);
  EXPECT_EQ(LatencyHistogram::BucketHigh(256), 257);
  for (int64_t v : {int64_t{1000}, int64_t{412345}, int64_t{999999999}, int64_t{1} << 40}) {
    const int b = LatencyHistogram::BucketOf(v);
    EXPECT_LE(LatencyHistogram::BucketLow(b), v);
    EXPECT_GE(LatencyHistogram::BucketHigh(b), v);
    EXPECT_LE(static_cast<double>(LatencyHistogram::BucketHigh(b) - LatencyHistogram::BucketLow(b) + 1),
              static_cast<double>(v) / 128.0 + 1.0);
  }
  EXPECT_EQ(LatencyHistogram::BucketOf(int64_t{1} << 60), LatencyHistogram::kBuckets - 1);
}

TEST(LatencyStatsTest, SubMicrosecondRunsKeepTheirResolution) {
  // TFLite's whole microseconds: a 0.412 us run reads 0 or 1 by where it falls between clock ticks.
  LatencyStats stats;
  for (int i = 0; i < 1000; ++i) stats.Add(LatencySample{i % 1000 < 412 ? 1 : 0, 412});
  EXPECT_DOUBLE_EQ(stats.mean_us(), 0.412);
  EXPECT_DOUBLE_EQ(stats.mean_ns(), 412.0);
  EXPECT_EQ(stats.percentile_ns(50), 412);
  EXPECT_EQ(stats.min_ns(), 412);
  const LatencySummary s = stats.Summary();
  EXPECT_DOUBLE_EQ(s.mean_fine_us, 0.412);
  EXPECT_DOUBLE_EQ(s.stddev_fine_us, 0.0);
  EXPECT_EQ(s.p50_us, 0);  // 588 of 1000 runs read 0
}

TEST(LatencyStatsTest, ShortRunsKeepEverySample) {
  LatencyStats stats(8);
  for (int64_t v : {5, 3, 9, 1}) stats.Add(v);
  EXPECT_TRUE(stats.all_kept());
  EXPECT_EQ(stats.samples_us(), (std::vector<int64_t>{5, 3, 9, 1}));
  EXPECT_TRUE(stats.histogram().empty());
  EXPECT_TRUE(stats.Summary().percentiles_exact);
}

TEST(LatencyStatsTest, ThirtyMinuteRunStaysBounded) {
  // Five million runs of ~360 us (half an hour) into the default summary: exact count, extremes and
  // moments; a reservoir of 4096 samples spread over the whole run; percentiles within 0.4%.
  std::mt19937_64 engine(7);
  std::uniform_int_distribution<int64_t> jitter(0, 40000);
  LatencyStats stats;
  std::vector<int64_t> all;
  all.reserve(5000000);
  double sum_ns = 0.0;
  for (int i = 0; i < 5000000; ++i) {
    const int64_t ns = 340000 + jitter(engine) + (i % 1000 == 0 ? 2000000 : 0);
    all.push_back(ns);
    sum_ns += static_cast<double>(ns);
    stats.Add(LatencySample{ns / 1000, ns});
  }
  EXPECT_EQ(stats.count(), 5000000);
  EXPECT_FALSE(stats.all_kept());
  const std::vector<KeptLatencySample> kept = stats.kept();
  ASSERT_EQ(kept.size(), static_cast<size_t>(LatencyStats::kDefaultCapacity));
  EXPECT_LT(stats.histogram().NonEmptyBuckets().size(), static_cast<size_t>(LatencyHistogram::kBuckets));
  // The reservoir is a uniform sample of the run: its run indices average about half the run.
  double mean_run = 0.0;
  for (const KeptLatencySample& k : kept) mean_run += static_cast<double>(k.run) / static_cast<double>(kept.size());
  EXPECT_NEAR(mean_run, 2500000.0, 100000.0);
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end(),
                             [](const KeptLatencySample& a, const KeptLatencySample& b) { return a.run < b.run; }));
  std::vector<int64_t> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(stats.min_ns(), sorted.front());
  EXPECT_EQ(stats.max_ns(), sorted.back());
  EXPECT_NEAR(stats.mean_ns(), sum_ns / 5e6, 1e-6 * sum_ns / 5e6);
  for (double p : {5.0, 50.0, 90.0, 95.0, 99.0, 99.9}) {
    const double exact = static_cast<double>(sorted[static_cast<size_t>(std::floor(5e6 * p / 100.0))]);
    EXPECT_NEAR(static_cast<double>(stats.percentile_ns(p)), exact, exact * 0.004) << "p" << p;
  }
  const LatencySummary s = stats.Summary();
  EXPECT_FALSE(s.percentiles_exact);
  EXPECT_EQ(s.count, 5000000);
}

// Samples split into parts, carried through a state and appended in order: what a merge of shard
// reports does.
LatencyStats AppendedParts(const std::vector<LatencySample>& samples, const std::vector<size_t>& cuts,
                           int64_t capacity) {
  LatencyStats merged(capacity);
  size_t begin = 0;
  for (size_t p = 0; p <= cuts.size(); ++p) {
    const size_t end = p < cuts.size() ? cuts[p] : samples.size();
    LatencyStats part(capacity);
    for (size_t i = begin; i < end; ++i) part.Add(samples[i]);
    std::string error;
    LatencyStats carried = LatencyStats::FromState(part.GetState(), &error);
    EXPECT_EQ(error, "");
    merged.Append(carried);
    begin = end;
  }
  return merged;
}

TEST(LatencyStatsTest, AppendedPartsEqualOneRunWhileEverySampleIsKept) {
  std::vector<LatencySample> samples;
  std::mt19937 engine(3);
  for (int i = 0; i < 500; ++i) {
    const int64_t ns = 1000 + static_cast<int64_t>(engine() % 90000);
    samples.push_back({ns / 1000, ns});
  }
  LatencyStats whole;
  for (const LatencySample& s : samples) whole.Add(s);
  const LatencyStats merged = AppendedParts(samples, {0, 7, 7, 200, 499}, LatencyStats::kDefaultCapacity);
  const LatencySummary a = whole.Summary(), b = merged.Summary();
  EXPECT_EQ(b.count, 500);
  EXPECT_TRUE(b.percentiles_exact);
  EXPECT_EQ(a.first_us, b.first_us);
  EXPECT_EQ(a.last_us, b.last_us);
  EXPECT_EQ(a.min_us, b.min_us);
  EXPECT_EQ(a.max_us, b.max_us);
  EXPECT_EQ(a.sum_us, b.sum_us);
  EXPECT_EQ(a.p5_us, b.p5_us);
  EXPECT_EQ(a.p50_us, b.p50_us);
  EXPECT_EQ(a.p99_us, b.p99_us);
  EXPECT_DOUBLE_EQ(a.median_fine_us, b.median_fine_us);
  EXPECT_DOUBLE_EQ(a.mean_us, b.mean_us);
  EXPECT_NEAR(a.mean_fine_us, b.mean_fine_us, 1e-9 * a.mean_fine_us);
  EXPECT_NEAR(a.stddev_fine_us, b.stddev_fine_us, 1e-9 * a.stddev_fine_us);
  EXPECT_NEAR(a.stddev_us, b.stddev_us, 1e-9 * a.stddev_us);
  // The kept samples are every sample, in run order.
  const std::vector<KeptLatencySample> kept = merged.kept();
  ASSERT_EQ(kept.size(), 500u);
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(kept[i].run, static_cast<int64_t>(i));
    EXPECT_EQ(kept[i].ns, samples[i].ns);
  }
}

TEST(LatencyStatsTest, AppendedPartsPastTheCapacityKeepEveryFigureButTheSampleExact) {
  std::vector<LatencySample> samples;
  std::mt19937 engine(5);
  for (int i = 0; i < 3000; ++i) {
    const int64_t ns = 2000 + static_cast<int64_t>(engine() % 500000);
    samples.push_back({ns / 1000, ns});
  }
  LatencyStats whole(256);
  for (const LatencySample& s : samples) whole.Add(s);
  // Parts that kept every sample, and parts that already overflowed, in one merge.
  const LatencyStats merged = AppendedParts(samples, {100, 1200, 1300}, 256);
  EXPECT_EQ(merged.count(), 3000);
  EXPECT_FALSE(merged.all_kept());
  EXPECT_EQ(merged.kept().size(), 256u);
  EXPECT_EQ(merged.histogram().count(), 3000);
  EXPECT_EQ(merged.min_ns(), whole.min_ns());
  EXPECT_EQ(merged.max_ns(), whole.max_ns());
  EXPECT_EQ(merged.sum_us(), whole.sum_us());
  EXPECT_EQ(merged.first_us(), samples.front().us);
  EXPECT_EQ(merged.last_us(), samples.back().us);
  // The histogram is the whole run's, bucket for bucket: the same percentiles.
  EXPECT_EQ(merged.histogram().NonEmptyBuckets(), whole.histogram().NonEmptyBuckets());
  for (double p : {5.0, 50.0, 95.0, 99.0}) EXPECT_EQ(merged.percentile_ns(p), whole.percentile_ns(p)) << p;
  // Each part's share of the kept samples follows its count (100, 1100, 100, 1700 of 3000).
  int64_t second = 0;
  for (const KeptLatencySample& k : merged.kept()) second += k.run >= 100 && k.run < 1200 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(second), 256.0 * 1100 / 3000, 2.0);
  for (const KeptLatencySample& k : merged.kept()) EXPECT_EQ(k.ns, samples[static_cast<size_t>(k.run)].ns);
}

TEST(LatencyStatsTest, FromStateRefusesAnInconsistentState) {
  LatencyStats stats;
  for (int64_t v : {3, 4, 5}) stats.Add(v);
  LatencyStats::State state = stats.GetState();
  std::string error;
  state.kept[1].run = 7;
  LatencyStats::FromState(state, &error);
  EXPECT_NE(error.find("past the count"), std::string::npos) << error;
  state = stats.GetState();
  state.count = 2;
  LatencyStats::FromState(state, &error);
  EXPECT_NE(error.find("kept samples"), std::string::npos) << error;
  state = stats.GetState();
  state.count = 5;  // more samples than kept, and no histogram for them
  LatencyStats::FromState(state, &error);
  EXPECT_NE(error.find("histogram"), std::string::npos) << error;
}

}  // namespace
}  // namespace touchstone
