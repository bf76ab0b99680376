#include "evaluation/regression_gate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "evaluation/latency_stats.h"

namespace touchstone {
namespace {

double Ratio(double current, double baseline) {
  if (baseline > 0.0) return current / baseline;
  return current > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
}

// A uniform index in [0, n) from one 64-bit draw (multiply-shift; the same on every platform).
size_t Draw(std::mt19937_64* engine, size_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>((*engine)()) * n) >> 64);
}

double ResampledMedian(const std::vector<double>& values, std::mt19937_64* engine, std::vector<double>* scratch) {
  scratch->resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) (*scratch)[i] = values[Draw(engine, values.size())];
  return MedianOf(*scratch);
}

// "inf" for either infinity: a ratio against a zero baseline.
std::string Number(double v, int decimals) { return std::isinf(v) ? "inf" : fmt::format("{:.{}f}", v, decimals); }

// At most `limit` of `values`, evenly spaced over the list (all of them when it is not longer). The
// samples a report keeps are in run order, so this keeps the early and the late runs alike.
std::vector<double> EvenlySpaced(const std::vector<double>& values, int limit) {
  if (limit <= 0 || values.size() <= static_cast<size_t>(limit)) return values;
  std::vector<double> picked;
  picked.reserve(static_cast<size_t>(limit));
  for (size_t i = 0; i < static_cast<size_t>(limit); ++i) picked.push_back(values[i * values.size() / limit]);
  return picked;
}

}  // namespace

const char* GateVerdictName(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::kPass:
      return "PASS";
    case GateVerdict::kImprovement:
      return "IMPROVEMENT";
    case GateVerdict::kRegression:
      return "REGRESSION";
    case GateVerdict::kNoisy:
      return "NOISY";
  }
  return "NOISY";
}

int GateExitCode(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::kPass:
    case GateVerdict::kImprovement:
      return 0;
    case GateVerdict::kRegression:
      return 1;
    case GateVerdict::kNoisy:
      return 5;
  }
  return 5;
}

GateVerdict CombineVerdicts(const std::vector<GateVerdict>& verdicts) {
  auto has = [&](GateVerdict v) { return std::find(verdicts.begin(), verdicts.end(), v) != verdicts.end(); };
  if (has(GateVerdict::kRegression)) return GateVerdict::kRegression;
  if (has(GateVerdict::kNoisy)) return GateVerdict::kNoisy;
  if (has(GateVerdict::kImprovement)) return GateVerdict::kImprovement;
  return GateVerdict::kPass;
}

LatencyGateResult CompareLatency(const LatencySampleSet& baseline_set, const LatencySampleSet& current_set,
                                 const LatencyGateConfig& config) {
  LatencyGateResult result;
  result.baseline_count = baseline_set.runs >= 0 ? baseline_set.runs : static_cast<int64_t>(baseline_set.us.size());
  result.current_count = current_set.runs >= 0 ? current_set.runs : static_cast<int64_t>(current_set.us.size());
  result.max_regression_pct = config.max_regression_pct;
  result.confidence = config.confidence;
  result.resamples = config.resamples;
  const std::vector<double> baseline = EvenlySpaced(baseline_set.us, config.max_bootstrap_samples);
  const std::vector<double> current = EvenlySpaced(current_set.us, config.max_bootstrap_samples);
  result.baseline_bootstrapped = static_cast<int64_t>(baseline.size());
  result.current_bootstrapped = static_cast<int64_t>(current.size());
  result.baseline_median_us = MedianOf(baseline);
  result.current_median_us = MedianOf(current);
  result.ratio = Ratio(result.current_median_us, result.baseline_median_us);
  if (result.baseline_bootstrapped < config.min_samples || result.current_bootstrapped < config.min_samples) {
    result.verdict = GateVerdict::kNoisy;
    result.reason = "too few samples (" + std::to_string(result.baseline_bootstrapped) + " baseline, " +
                    std::to_string(result.current_bootstrapped) + " current; at least " +
                    std::to_string(config.min_samples) + " each)";
    result.ci_low = result.ci_high = result.ratio;
    return result;
  }
  std::mt19937_64 engine(config.seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(std::max(config.resamples, 1)));
  std::vector<double> scratch;
  for (int b = 0; b < std::max(config.resamples, 1); ++b) {
    const double base = ResampledMedian(baseline, &engine, &scratch);
    const double cur = ResampledMedian(current, &engine, &scratch);
    ratios.push_back(Ratio(cur, base));
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1.0 - config.confidence;
  const size_t n = ratios.size();
  size_t low_index = static_cast<size_t>(std::floor(alpha / 2.0 * static_cast<double>(n)));
  size_t high_index = static_cast<size_t>(std::ceil((1.0 - alpha / 2.0) * static_cast<double>(n)));
  high_index = high_index == 0 ? 0 : high_index - 1;
  low_index = std::min(low_index, n - 1);
  high_index = std::min(std::max(high_index, low_index), n - 1);
  result.ci_low = ratios[low_index];
  result.ci_high = ratios[high_index];
  const double t = config.max_regression_pct / 100.0;
  if (result.ci_low > 1.0 + t) {
    result.verdict = GateVerdict::kRegression;
  } else if (result.ci_high < 1.0 - t) {
    result.verdict = GateVerdict::kImprovement;
  } else if (result.ci_high <= 1.0 + t) {
    result.verdict = GateVerdict::kPass;
  } else {
    result.verdict = GateVerdict::kNoisy;
    result.reason = "the confidence interval contains the limit " + Number(1.0 + t, 3);
  }
  return result;
}

MemoryGateResult CompareMemory(const std::string& figure, int64_t baseline_bytes, int64_t current_bytes,
                               double max_regression_pct) {
  MemoryGateResult result;
  result.figure = figure;
  result.baseline_bytes = baseline_bytes;
  result.current_bytes = current_bytes;
  result.max_regression_pct = max_regression_pct;
  if (baseline_bytes < 0 || current_bytes < 0) {
    result.verdict = GateVerdict::kNoisy;
    result.reason = baseline_bytes < 0 ? "the baseline has no " + figure : "this run has no " + figure;
    return result;
  }
  result.ratio = Ratio(static_cast<double>(current_bytes), static_cast<double>(baseline_bytes));
  const double t = max_regression_pct / 100.0;
  if (result.ratio > 1.0 + t) {
    result.verdict = GateVerdict::kRegression;
  } else if (result.ratio < 1.0 - t) {
    result.verdict = GateVerdict::kImprovement;
  } else {
    result.verdict = GateVerdict::kPass;
  }
  return result;
}

std::string FormatLatencyGate(const LatencyGateResult& r) {
  std::string line = fmt::format(
      "Latency gate: {}: median {} us vs baseline {} us, ratio {} ({:g}% CI {} to {}), limit +{:g}%, {} vs {} runs",
      GateVerdictName(r.verdict), Number(r.current_median_us, 3), Number(r.baseline_median_us, 3), Number(r.ratio, 3),
      r.confidence * 100.0, Number(r.ci_low, 3), Number(r.ci_high, 3), r.max_regression_pct, r.current_count,
      r.baseline_count);
  if (r.current_bootstrapped < r.current_count || r.baseline_bootstrapped < r.baseline_count) {
    line += fmt::format(", bootstrap over {} vs {} kept samples", r.current_bootstrapped, r.baseline_bootstrapped);
  }
  if (!r.reason.empty()) line += "; " + r.reason;
  return line;
}

std::string FormatGateVerdict(GateVerdict verdict, const std::string& config_change) {
  std::string line = fmt::format("Gate verdict: {} (exit code {})", GateVerdictName(verdict), GateExitCode(verdict));
  if (!config_change.empty()) line += "; " + config_change;
  return line;
}

std::string FormatMemoryGate(const MemoryGateResult& r) {
  std::string line = fmt::format("Memory gate ({}): {}", r.figure, GateVerdictName(r.verdict));
  if (!r.reason.empty()) return line + ": " + r.reason;
  return line + fmt::format(": {} bytes vs baseline {} bytes, ratio {}, limit +{:g}%", r.current_bytes,
                            r.baseline_bytes, Number(r.ratio, 3), r.max_regression_pct);
}

}  // namespace touchstone
