#include "evaluation/regression_gate.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "evaluation/latency_stats.h"

namespace touchstone {
namespace {

LatencySampleSet Set(std::vector<double> us) { return LatencySampleSet{std::move(us), -1}; }
LatencySampleSet Repeat(double value, int count) { return Set(std::vector<double>(static_cast<size_t>(count), value)); }

TEST(RegressionGateTest, ConstantSamplesGiveExactRatios) {
  // Every resample of a constant set has the same median, so the interval is the point ratio.
  const LatencyGateConfig config;  // 5%, 95%, 2000 resamples
  const LatencyGateResult slower = CompareLatency(Repeat(100, 10), Repeat(110, 10), config);
  EXPECT_DOUBLE_EQ(slower.baseline_median_us, 100.0);
  EXPECT_DOUBLE_EQ(slower.current_median_us, 110.0);
  EXPECT_DOUBLE_EQ(slower.ratio, 1.1);
  EXPECT_DOUBLE_EQ(slower.ci_low, 1.1);
  EXPECT_DOUBLE_EQ(slower.ci_high, 1.1);
  EXPECT_EQ(slower.verdict, GateVerdict::kRegression);  // 1.1 > 1.05
  EXPECT_EQ(FormatLatencyGate(slower),
            "Latency gate: REGRESSION: median 110.000 us vs baseline 100.000 us, ratio 1.100 (95% CI 1.100 to 1.100), "
            "limit +5%, 10 vs 10 runs");

  EXPECT_EQ(CompareLatency(Repeat(100, 10), Repeat(103, 10), config).verdict, GateVerdict::kPass);        // 1.03
  EXPECT_EQ(CompareLatency(Repeat(100, 10), Repeat(96, 10), config).verdict, GateVerdict::kPass);         // 0.96
  EXPECT_EQ(CompareLatency(Repeat(100, 10), Repeat(90, 10), config).verdict, GateVerdict::kImprovement);  // 0.90
  EXPECT_EQ(CompareLatency(Repeat(100, 10), Repeat(105, 10), config).verdict, GateVerdict::kPass);  // at the limit
  LatencyGateConfig strict = config;
  strict.max_regression_pct = 2.0;
  EXPECT_EQ(CompareLatency(Repeat(100, 10), Repeat(103, 10), strict).verdict, GateVerdict::kRegression);
}

TEST(RegressionGateTest, NoiseIsNoisy) {
  // Half the runs at 100 us, half at 200 us, in both: resampled medians range over 100..200, so the
  // ratio's interval spans roughly 0.5..2 and contains the limit.
  LatencySampleSet noisy = Repeat(100, 10);
  for (int i = 0; i < 10; ++i) noisy.us.push_back(200);
  const LatencyGateResult r = CompareLatency(noisy, noisy, LatencyGateConfig());
  EXPECT_DOUBLE_EQ(r.ratio, 1.0);  // medians 150 and 150
  EXPECT_LT(r.ci_low, 1.0);
  EXPECT_GT(r.ci_high, 1.05);
  EXPECT_EQ(r.verdict, GateVerdict::kNoisy);
  EXPECT_NE(r.reason.find("contains the limit 1.050"), std::string::npos) << r.reason;
  // Deterministic: the same inputs give the same interval.
  const LatencyGateResult again = CompareLatency(noisy, noisy, LatencyGateConfig());
  EXPECT_EQ(again.ci_low, r.ci_low);
  EXPECT_EQ(again.ci_high, r.ci_high);
}

TEST(RegressionGateTest, TooFewSamplesIsNoisy) {
  const LatencyGateResult r = CompareLatency(Repeat(100, 3), Repeat(200, 10), LatencyGateConfig());
  EXPECT_EQ(r.verdict, GateVerdict::kNoisy);
  EXPECT_EQ(r.reason, "too few samples (3 baseline, 10 current; at least 5 each)");
}

TEST(RegressionGateTest, PointRatioIsOfConventionalMedians) {
  const LatencyGateResult r = CompareLatency(Set({1, 2, 3, 4, 100}), Set({2, 4, 6, 8, 200}), LatencyGateConfig());
  EXPECT_DOUBLE_EQ(r.baseline_median_us, 3.0);
  EXPECT_DOUBLE_EQ(r.current_median_us, 6.0);
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_LE(r.ci_low, r.ci_high);
  const LatencyGateResult even =
      CompareLatency(Set({10, 20, 30, 40, 50, 60}), Set({10, 20, 30, 40, 50, 60}), LatencyGateConfig());
  EXPECT_DOUBLE_EQ(even.baseline_median_us, 35.0);
}

TEST(RegressionGateTest, ZeroMicrosecondMedians) {
  EXPECT_EQ(CompareLatency(Repeat(0, 10), Repeat(0, 10), LatencyGateConfig()).verdict, GateVerdict::kPass);
  EXPECT_EQ(CompareLatency(Repeat(0, 10), Repeat(3, 10), LatencyGateConfig()).verdict, GateVerdict::kRegression);
}

// Runs of `n` latencies around `median_us` (log-normal, 8% spread, with a few slow outliers), in run
// order, from `seed`: both as every sample and through the bounded summary a report keeps.
struct SyntheticRun {
  LatencySampleSet all;
  LatencySampleSet summary;
};
SyntheticRun Synthetic(int n, double median_us, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::lognormal_distribution<double> spread(0.0, 0.08);
  std::uniform_real_distribution<double> outlier(0.0, 1.0);
  LatencyStats bounded;
  SyntheticRun run;
  for (int i = 0; i < n; ++i) {
    double us = median_us * spread(engine);
    if (outlier(engine) < 0.01) us *= 3.0;
    const int64_t ns = std::llround(us * 1000.0);
    run.all.us.push_back(static_cast<double>(ns) / 1000.0);
    bounded.Add(LatencySample{ns / 1000, ns});
  }
  for (int64_t ns : bounded.samples_ns()) run.summary.us.push_back(static_cast<double>(ns) / 1000.0);
  run.summary.runs = bounded.count();
  EXPECT_EQ(run.summary.us.size(), static_cast<size_t>(LatencyStats::kDefaultCapacity));
  return run;
}

TEST(RegressionGateTest, BoundedSummaryGivesTheVerdictsOfEverySample) {
  // 100,000 runs per side; slowdowns of 0%, 3% and 10% against a 5% limit: PASS, PASS, REGRESSION,
  // whether the gate sees every sample or the kept summary.
  const SyntheticRun baseline = Synthetic(100000, 412.0, 1);
  LatencyGateConfig all_samples;
  all_samples.max_bootstrap_samples = 0;  // no limit: every sample
  all_samples.resamples = 200;
  const LatencyGateConfig summary;  // the default: at most 4096 a side
  const struct {
    double slowdown;
    GateVerdict verdict;
  } cases[] = {{1.00, GateVerdict::kPass}, {1.03, GateVerdict::kPass}, {1.10, GateVerdict::kRegression}};
  for (const auto& c : cases) {
    const SyntheticRun current = Synthetic(100000, 412.0 * c.slowdown, 2);
    const LatencyGateResult full = CompareLatency(baseline.all, current.all, all_samples);
    const LatencyGateResult bounded = CompareLatency(baseline.summary, current.summary, summary);
    EXPECT_EQ(full.verdict, c.verdict) << c.slowdown << ": " << FormatLatencyGate(full);
    EXPECT_EQ(bounded.verdict, c.verdict) << c.slowdown << ": " << FormatLatencyGate(bounded);
    EXPECT_NEAR(bounded.ratio, c.slowdown, 0.01);
    EXPECT_EQ(bounded.current_count, 100000);
    EXPECT_EQ(bounded.current_bootstrapped, 4096);
  }
}

TEST(RegressionGateTest, WorkDoesNotGrowWithTheRunLength) {
  // A baseline that kept every one of 2 million samples (--report_all_latency_samples) is bootstrapped
  // from 4096 of them, as a summary would be.
  LatencySampleSet many;
  many.us.reserve(2000000);
  for (int i = 0; i < 2000000; ++i) many.us.push_back(400.0 + (i % 97));
  const LatencyGateResult r = CompareLatency(many, many, LatencyGateConfig());
  EXPECT_EQ(r.verdict, GateVerdict::kPass);
  EXPECT_EQ(r.baseline_count, 2000000);
  EXPECT_EQ(r.baseline_bootstrapped, 4096);
  EXPECT_NE(FormatLatencyGate(r).find(", bootstrap over 4096 vs 4096 kept samples"), std::string::npos);
}

TEST(RegressionGateTest, Memory) {
  const MemoryGateResult up = CompareMemory("arena_bytes", 1000, 1100, 5.0);
  EXPECT_EQ(up.verdict, GateVerdict::kRegression);
  EXPECT_DOUBLE_EQ(up.ratio, 1.1);
  EXPECT_EQ(FormatMemoryGate(up),
            "Memory gate (arena_bytes): REGRESSION: 1100 bytes vs baseline 1000 bytes, ratio 1.100, limit +5%");
  EXPECT_EQ(CompareMemory("arena_bytes", 1000, 1040, 5.0).verdict, GateVerdict::kPass);
  EXPECT_EQ(CompareMemory("arena_bytes", 1000, 900, 5.0).verdict, GateVerdict::kImprovement);
  const MemoryGateResult missing = CompareMemory("peak_rss_bytes", -1, 1000, 5.0);
  EXPECT_EQ(missing.verdict, GateVerdict::kNoisy);
  EXPECT_EQ(FormatMemoryGate(missing), "Memory gate (peak_rss_bytes): NOISY: the baseline has no peak_rss_bytes");
}

TEST(RegressionGateTest, VerdictsCombineAndMapToExitCodes) {
  EXPECT_EQ(CombineVerdicts({GateVerdict::kPass, GateVerdict::kImprovement}), GateVerdict::kImprovement);
  EXPECT_EQ(CombineVerdicts({GateVerdict::kPass, GateVerdict::kNoisy}), GateVerdict::kNoisy);
  EXPECT_EQ(CombineVerdicts({GateVerdict::kNoisy, GateVerdict::kRegression}), GateVerdict::kRegression);
  EXPECT_EQ(CombineVerdicts({GateVerdict::kPass}), GateVerdict::kPass);
  EXPECT_EQ(GateExitCode(GateVerdict::kPass), 0);
  EXPECT_EQ(GateExitCode(GateVerdict::kImprovement), 0);
  EXPECT_EQ(GateExitCode(GateVerdict::kRegression), 1);
  EXPECT_EQ(GateExitCode(GateVerdict::kNoisy), 5);
  EXPECT_STREQ(GateVerdictName(GateVerdict::kNoisy), "NOISY");
  EXPECT_EQ(FormatGateVerdict(GateVerdict::kRegression, ""), "Gate verdict: REGRESSION (exit code 1)");
  EXPECT_EQ(FormatGateVerdict(GateVerdict::kPass, "configuration changed: num_threads 1 -> 2"),
            "Gate verdict: PASS (exit code 0); configuration changed: num_threads 1 -> 2");
}

}  // namespace
}  // namespace touchstone
