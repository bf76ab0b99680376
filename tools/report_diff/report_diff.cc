// report_diff: two reports of one Touchstone tool side by side, for people. It prints what differs in
// their configurations, every figure both hold with its change and a verdict, per-op deltas when both
// benchmark_model reports have op profiles, and the tool's own gate on the two (the statistics --baseline
// uses). It measures nothing itself. The work is evaluation/report_diff.h; docs/gates.md.
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluation/report_diff.h"
#include "tools/common/flags.h"
#include "tools/common/tool_report.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

int Main(int argc, char** argv) {
  ReportDiffConfig config;
  float threshold_pct = 5.0f, max_regression_pct = 5.0f, max_accuracy_drop_pct = 0.0f, max_error_increase_pct = 10.0f;
  FlagTable table;
  table.AddFloat("threshold_pct", &threshold_pct,
                 "a figure worse by more than this percent is marked REGRESSION in the table (accuracy and AP: "
                 "--max_accuracy_drop_pct points)");
  table.AddFloat("max_regression_pct", &max_regression_pct, "benchmark_model: the latency gate's limit, percent");
  table.AddFloat("max_accuracy_drop_pct", &max_accuracy_drop_pct,
                 "imagenet_eval, coco_eval: the accuracy gate's limit, percentage points");
  table.AddFloat("max_error_increase_pct", &max_error_increase_pct, "inference_diff: the error gate's limit, percent");
  std::vector<std::string> paths;  // two report paths, among the flags
  ToolSpec spec;
  spec.name = "report_diff";
  spec.usage_line = "usage: report_diff BASELINE.json CURRENT.json [--flag=value ...]";
  spec.operands = &paths;
  spec.run = [&]() -> StatusOr<int> {
    if (paths.size() != 2) {
      return UsageError("expected two reports, BASELINE.json CURRENT.json (got " + std::to_string(paths.size()) + ")");
    }
    config.threshold_pct = threshold_pct;
    config.max_regression_pct = max_regression_pct;
    config.max_accuracy_drop_pct = max_accuracy_drop_pct;
    config.max_error_increase_pct = max_error_increase_pct;
    TS_ASSIGN_OR_RETURN(nlohmann::json baseline, ReadJsonReport(paths[0]));
    TS_ASSIGN_OR_RETURN(nlohmann::json current, ReadJsonReport(paths[1]));
    TS_ASSIGN_OR_RETURN(ReportDiff diff, DiffReports(baseline, current, config));
    std::cout << FormatReportDiff(diff, paths[0], paths[1]) << std::flush;
    return GateExitCode(diff.verdict);
  };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
