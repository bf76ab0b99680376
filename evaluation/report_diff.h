// A comparison of two reports of the same tool, for people (tools/report_diff): what differs in their
// configurations, every figure both hold with its change and a verdict, the tool's own gate on the two
// (the same statistics and rules as --baseline: regression_gate.h, quality_gate.h), and for two
// benchmark_model reports with op profiles, the per-op deltas sorted by time.
#ifndef TOUCHSTONE_EVALUATION_REPORT_DIFF_H_
#define TOUCHSTONE_EVALUATION_REPORT_DIFF_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluation/regression_gate.h"
#include "evaluation/report_envelope.h"
#include "runtime/status.h"

namespace touchstone {

struct ReportDiffConfig {
  // A figure that moved the wrong way by more than this (percent; accuracy and AP: percentage points) is
  // a REGRESSION in the table, the right way an IMPROVEMENT. The gate below uses the tools' defaults.
  double threshold_pct = 5.0;
  double max_regression_pct = 5.0;       // benchmark_model's latency gate
  double max_accuracy_drop_pct = 0.0;    // imagenet_eval and coco_eval
  double max_error_increase_pct = 10.0;  // inference_diff
};

struct FigureDiff {
  std::string path;  // "latency.regular.mean_us"
  double baseline = 0.0;
  double current = 0.0;
  // +1: higher is better (accuracy, AP, cosine, throughput); -1: lower is better (times, bytes,
  // errors); 0: neither (counts, settings).
  int better = 0;
  std::string change;   // "+4.37%", "-0.400 points", "same"
  std::string verdict;  // "PASS", "IMPROVEMENT", "REGRESSION", or "-" for a figure with no direction
};

struct OpDiff {
  std::string node;  // "[tensor]:3"
  std::string type;
  double baseline_avg_us = 0.0;
  double current_avg_us = 0.0;
};

struct ReportDiff {
  std::string tool;
  std::vector<std::string> config_differences;  // ConfigDifferences
  std::vector<FigureDiff> figures;              // in the current report's order
  std::vector<OpDiff> ops;                      // by current time, most first
  GateVerdict verdict = GateVerdict::kPass;     // the tool's gate on the two
  std::vector<std::string> gate_lines;          // its lines, as the tool prints them
};

// Compares `current` against `baseline`. Errors (kInvalidInput): not reports, or reports of two tools.
StatusOr<ReportDiff> DiffReports(const nlohmann::json& baseline, const nlohmann::json& current,
                                 const ReportDiffConfig& config);

// The text: a header, the configuration differences, the table, the per-op deltas, the gate's lines and
// "Verdict: X (exit code N)".
std::string FormatReportDiff(const ReportDiff& diff, const std::string& baseline_name, const std::string& current_name);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_REPORT_DIFF_H_
