// The CI gate of benchmark_model (--baseline): decides whether this run's latency is worse than a
// baseline run's, in a way that tolerates noise.
//
// Latency: the statistic is the ratio of medians, current / baseline, with a percentile-bootstrap
// confidence interval (both sample sets resampled with replacement, `resamples` times, from a fixed
// seed, so the same inputs always give the same verdict). With t = max_regression_pct / 100:
//   REGRESSION   the whole interval lies above 1 + t (slower by more than the limit, confidently);
//   IMPROVEMENT  the whole interval lies below 1 - t;
//   PASS         the interval's upper end is at most 1 + t (not slower by more than the limit);
//   NOISY        the interval contains 1 + t: the runs cannot tell, or either side has fewer than
//                min_samples samples.
// Memory (on request): a figure of this run against the baseline's (no sampling noise to model):
// REGRESSION above 1 + t, IMPROVEMENT below 1 - t, PASS otherwise, NOISY when the baseline lacks it.
// Exit codes (docs/exit-codes.md): PASS and IMPROVEMENT 0, REGRESSION 1, NOISY 5.
#ifndef TOUCHSTONE_EVALUATION_REGRESSION_GATE_H_
#define TOUCHSTONE_EVALUATION_REGRESSION_GATE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace touchstone {

enum class GateVerdict { kPass, kImprovement, kRegression, kNoisy };

// "PASS", "IMPROVEMENT", "REGRESSION", "NOISY".
const char* GateVerdictName(GateVerdict verdict);
// 0, 0, 1, 5.
int GateExitCode(GateVerdict verdict);
// The verdict of several checks: REGRESSION if any, else NOISY if any, else IMPROVEMENT if any, else PASS.
GateVerdict CombineVerdicts(const std::vector<GateVerdict>& verdicts);

struct LatencyGateConfig {
  double max_regression_pct = 5.0;
  double confidence = 0.95;
  int resamples = 2000;
  uint64_t seed = 0x70c4570e5ULL;
  int min_samples = 5;
  // Each side is bootstrapped from at most this many of its samples (an evenly spaced, hence uniform,
  // subset of a longer list): the gate's time and memory do not grow with the run length.
  int max_bootstrap_samples = 4096;
};

// One run's latencies as the gate sees them: the samples a report kept (every run, or a uniform
// reservoir of them; latency_stats.h) in microseconds at nanosecond resolution, and how many runs there
// were in all.
struct LatencySampleSet {
  std::vector<double> us;
  int64_t runs = -1;  // -1: us.size()
};

struct LatencyGateResult {
  GateVerdict verdict = GateVerdict::kNoisy;
  int64_t baseline_count = 0;  // runs
  int64_t current_count = 0;
  int64_t baseline_bootstrapped = 0;  // samples the bootstrap drew from
  int64_t current_bootstrapped = 0;
  double baseline_median_us = 0.0;
  double current_median_us = 0.0;
  double ratio = 0.0;   // current median / baseline median
  double ci_low = 0.0;  // bootstrap interval of the ratio
  double ci_high = 0.0;
  double max_regression_pct = 0.0;
  double confidence = 0.0;
  int resamples = 0;
  std::string reason;  // why NOISY, when it is
};

// The medians and the interval are those of the sample sets (uniform samples of their runs).
LatencyGateResult CompareLatency(const LatencySampleSet& baseline, const LatencySampleSet& current,
                                 const LatencyGateConfig& config);

struct MemoryGateResult {
  GateVerdict verdict = GateVerdict::kNoisy;
  std::string figure;  // "arena_bytes", "peak_rss_bytes", ...
  int64_t baseline_bytes = 0;
  int64_t current_bytes = 0;
  double ratio = 0.0;
  double max_regression_pct = 0.0;
  std::string reason;
};

// `baseline_bytes` < 0: the baseline does not have the figure.
MemoryGateResult CompareMemory(const std::string& figure, int64_t baseline_bytes, int64_t current_bytes,
                               double max_regression_pct);

// "Latency gate: REGRESSION: median 1234.500 us vs baseline 1100.000 us, ratio 1.122 (95% CI 1.101 to
// 1.143), limit +5%, 50 vs 50 runs" (", bootstrap over 4096 vs 4096 kept samples" when it drew from fewer)
std::string FormatLatencyGate(const LatencyGateResult& result);
// The closing line of every tool's gate: "Gate verdict: REGRESSION (exit code 1)", with "; configuration
// changed: ..." when `config_change` (CheckComparable's note) is not empty.
std::string FormatGateVerdict(GateVerdict verdict, const std::string& config_change);
// "Memory gate (arena_bytes): PASS: 1024 bytes vs baseline 1024 bytes, ratio 1.000, limit +5%"
std::string FormatMemoryGate(const MemoryGateResult& result);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_REGRESSION_GATE_H_
