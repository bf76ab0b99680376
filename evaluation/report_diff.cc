#include "evaluation/report_diff.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

#include "evaluation/benchmark_report.h"
#include "evaluation/classification_report.h"
#include "evaluation/detection_report.h"
#include "evaluation/fixed_width.h"
#include "evaluation/inference_diff.h"
#include "evaluation/quality_gate.h"

namespace touchstone {
namespace {

using nlohmann::json;

// The last name of a path, without an index: "topk_accuracy[2]" -> "topk_accuracy".
std::string LastName(const std::string& path) {
  std::string last = path.substr(path.find_last_of('.') == std::string::npos ? 0 : path.find_last_of('.') + 1);
  return last.substr(0, last.find('['));
}

// Which way is better for a figure, by its name.
int Better(const std::string& path) {
  const std::string name = LastName(path);
  static const char* kLower[] = {
      "_us", "_bytes", "_kb", "_error", "std_dev", "wall_seconds", "_mismatches", "elements_differing", "_ms"};
  for (const char* suffix : kLower) {
    if (absl::EndsWith(name, suffix)) return -1;
  }
  static const char* kHigher[] = {"accuracy",
                                  "average_precision",
                                  "overall_map",
                                  "cosine_similarity",
                                  "images_per_second",
                                  "hits",
                                  "AP",
                                  "AP50",
                                  "AP75",
                                  "APs",
                                  "APm",
                                  "APl",
                                  "AR1",
                                  "AR10",
                                  "AR100",
                                  "ARs",
                                  "ARm",
                                  "ARl"};
  for (const char* n : kHigher) {
    if (name == n || absl::EndsWith(name, absl::StrCat("_", n))) return 1;
  }
  return 0;
}

// Fractions whose change reads in percentage points: accuracies and average precision.
bool InPoints(const std::string& path) {
  const std::string name = LastName(path);
  return name.find("accuracy") != std::string::npos || name.find("average_precision") != std::string::npos ||
         name == "overall_map" ||
         (name.size() >= 2 && (name.compare(0, 2, "AP") == 0 || name.compare(0, 2, "AR") == 0));
}

// Subtrees that are not figures to compare one by one: samples, lists per image or class, the
// machine, the configuration, the gate, the op profile (compared per op below), layer-wise tensors, what
// the pages draw (report_view), and shard notes and states.
bool Skipped(const std::string& key, const json& parent) {
  static const char* kSkipped[] = {
      "samples", "histogram", "predictions", "images", "per_class", "machine", "configuration", "op_profile", "gate",
      "layerwise", "details", "model", "thresholds", "qualify", "max_abs_error_at", "run",
      // Pictures' material, shards' notes and states (docs/cluster.md).
      "worst_misclassified", "pr_curves", "examples", "timeline", "shard", "merged", "state", "shard_state"};
  for (const char* s : kSkipped) {
    if (key == s) return true;
  }
  // TFLite's whole-microsecond copy of a latency summary repeats its figures.
  return key == "tflite" && parent.contains("percentiles_exact");
}

void Flatten(const json& value, const std::string& path, std::map<std::string, double>* figures,
             std::vector<std::string>* order) {
  if (value.is_number()) {
    if (figures->emplace(path, value.get<double>()).second) order->push_back(path);
    return;
  }
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (Skipped(it.key(), value)) continue;
      Flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), figures, order);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) Flatten(value[i], path + "[" + std::to_string(i) + "]", figures, order);
  }
}

std::string Fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

FigureDiff Compare(const std::string& path, double baseline, double current, const ReportDiffConfig& config) {
  FigureDiff f{path, baseline, current, Better(path), "", "-"};
  if (baseline == current) {
    f.change = "same";
    if (f.better != 0) f.verdict = "PASS";
    return f;
  }
  double worse_by = 0.0;  // in the unit of the threshold below
  double limit = config.threshold_pct;
  if (InPoints(path)) {
    const double points = (current - baseline) * 100.0;
    f.change = (points >= 0 ? "+" : "") + Fixed(points, 3) + " points";
    worse_by = -points * f.better;
    limit = config.max_accuracy_drop_pct;
  } else {
    const double pct =
        baseline != 0.0 ? (current - baseline) / std::fabs(baseline) * 100.0 : (current > 0 ? INFINITY : -INFINITY);
    f.change = std::isinf(pct) ? (pct > 0 ? "+inf%" : "-inf%") : (pct >= 0 ? "+" : "") + Fixed(pct, 2) + "%";
    worse_by = f.better == 0 ? 0.0 : (f.better > 0 ? -pct : pct);
  }
  if (f.better == 0) return f;
  if (worse_by > limit + 1e-9) {
    f.verdict = "REGRESSION";
  } else if (-worse_by > limit + 1e-9) {
    f.verdict = "IMPROVEMENT";
  } else {
    f.verdict = "PASS";
  }
  return f;
}

std::vector<OpDiff> OpDiffs(const json& baseline, const json& current) {
  std::vector<std::pair<double, OpDiff>> ops;
  if (!baseline.contains("op_profile") || !current.contains("op_profile") || !baseline["op_profile"].is_object() ||
      !current["op_profile"].is_object()) {
    return {};
  }
  absl::flat_hash_map<std::pair<int, int>, double> base;
  for (const json& s : baseline["op_profile"].value("subgraphs", json::array())) {
    for (const json& n : s.value("nodes", json::array())) {
      const json avg = n.value("avg_us", json());
      if (avg.is_number()) base[{s.value("index", 0), n.value("node_index", -1)}] = avg.get<double>();
    }
  }
  for (const json& s : current["op_profile"].value("subgraphs", json::array())) {
    for (const json& n : s.value("nodes", json::array())) {
      auto it = base.find({s.value("index", 0), n.value("node_index", -1)});
      const json avg = n.value("avg_us", json());
      if (it == base.end() || !avg.is_number()) continue;
      OpDiff op{n.value("name", std::string()), n.value("type", std::string()), it->second, avg.get<double>()};
      ops.emplace_back(n.value("total_us", 0.0), op);
    }
  }
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<OpDiff> sorted;
  for (const auto& op : ops) sorted.push_back(op.second);
  return sorted;
}

// The tool's own gate on the two reports.
Status Gate(const std::string& tool, const json& baseline, const json& current, const ReportDiffConfig& config,
            ReportDiff* diff) {
  if (tool == "benchmark_model") {
    TS_ASSIGN_OR_RETURN(BaselineReport b, ParseReportJson(baseline.dump(), "baseline"));
    TS_ASSIGN_OR_RETURN(BaselineReport c, ParseReportJson(current.dump(), "current"));
    LatencyGateConfig gate;
    gate.max_regression_pct = config.max_regression_pct;
    const LatencyGateResult r = CompareLatency(b.regular, c.regular, gate);
    diff->verdict = r.verdict;
    diff->gate_lines = {FormatLatencyGate(r)};
  } else if (tool == "inference_diff") {
    TS_ASSIGN_OR_RETURN(InferenceDiffBaseline b, ParseInferenceDiffJson(baseline.dump(), "baseline"));
    TS_ASSIGN_OR_RETURN(InferenceDiffBaseline c, ParseInferenceDiffJson(current.dump(), "current"));
    const ErrorGateResult r = CompareOutputErrors(b.outputs, c.outputs, config.max_error_increase_pct);
    diff->verdict = r.verdict;
    diff->gate_lines = FormatErrorGate(r);
  } else if (tool == "imagenet_eval") {
    TS_ASSIGN_OR_RETURN(ClassificationBaseline b, ParseClassificationReport(baseline.dump(), "baseline"));
    TS_ASSIGN_OR_RETURN(ClassificationBaseline c, ParseClassificationReport(current.dump(), "current"));
    // Images by their index in the set, predictions by output index: the names are in the runs.
    AccuracyRun base_run, current_run;
    base_run.topk_accuracy = b.topk_accuracy;
    current_run.topk_accuracy = c.topk_accuracy;
    absl::flat_hash_map<int, int> base_top1;
    for (size_t i = 0; i < b.evaluated_image.size(); ++i) {
      base_top1[b.evaluated_image[i]] = b.top1_index[i];
    }
    for (size_t i = 0; i < c.evaluated_image.size(); ++i) {
      auto it = base_top1.find(c.evaluated_image[i]);
      if (it == base_top1.end()) continue;
      const std::string name = "image " + std::to_string(it->first);
      base_run.images.push_back(name);
      current_run.images.push_back(name);
      base_run.top1_labels.push_back("output " + std::to_string(it->second));
      current_run.top1_labels.push_back("output " + std::to_string(c.top1_index[i]));
    }
    AccuracyGateConfig gate;
    gate.max_accuracy_drop_pct = config.max_accuracy_drop_pct;
    const AccuracyGateResult r = CompareAccuracy(base_run, current_run, gate);
    diff->verdict = r.verdict;
    diff->gate_lines = {FormatAccuracyGate(r)};
  } else if (tool == "coco_eval") {
    const DetectionGateResult r =
        CompareDetection(DetectionRunOf(baseline), DetectionRunOf(current), config.max_accuracy_drop_pct);
    diff->verdict = r.verdict;
    diff->gate_lines = {FormatDetectionGate(r)};
  } else {
    return InvalidInputError("no gate for tool '" + tool + "'");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ReportDiff> DiffReports(const json& baseline, const json& current, const ReportDiffConfig& config) {
  if (!baseline.is_object() || !current.is_object()) return InvalidInputError("both files must be Touchstone reports");
  const std::string tool = current.value("tool", std::string());
  if (baseline.value("tool", std::string()) != tool) {
    return InvalidInputError("the reports are of two tools (" + baseline.value("tool", std::string()) + ", " + tool +
                             "); compare two reports of one tool");
  }
  const std::string schema = current.value("schema", std::string());
  const int version = current.value("schema_version", 0);
  TS_ASSIGN_OR_RETURN(ReportEnvelope b, ParseEnvelope(baseline, "baseline", schema, version));
  TS_ASSIGN_OR_RETURN(ReportEnvelope c, ParseEnvelope(current, "current", schema, version));
  ReportDiff diff;
  diff.tool = tool;
  diff.config_differences = ConfigDifferences(b, c);
  std::map<std::string, double> base_figures, current_figures;
  std::vector<std::string> base_order, current_order;
  Flatten(baseline, "", &base_figures, &base_order);
  Flatten(current, "", &current_figures, &current_order);
  for (const std::string& path : current_order) {
    auto it = base_figures.find(path);
    if (it == base_figures.end() || path == "schema_version") continue;
    diff.figures.push_back(Compare(path, it->second, current_figures.at(path), config));
  }
  diff.ops = OpDiffs(baseline, current);
  TS_RETURN_IF_ERROR(Gate(tool, baseline, current, config, &diff));
  return diff;
}

std::string FormatReportDiff(const ReportDiff& diff, const std::string& baseline_name,
                             const std::string& current_name) {
  std::string out = "report_diff: " + diff.tool + ", baseline " + baseline_name + ", current " + current_name + "\n";
  if (diff.config_differences.empty()) {
    out += "Configuration: the same\n";
  } else {
    out += "Configuration differs:";
    for (const std::string& d : diff.config_differences) out += " " + d + ";";
    out.back() = '\n';
  }
  size_t width = 6;
  for (const FigureDiff& f : diff.figures) width = std::max(width, f.path.size());
  auto to_out = std::back_inserter(out);
  fmt::format_to(to_out, "{} {:>16} {:>16} {:>16}  {}\n", PadRight("figure", width), "baseline", "current", "change",
                 "verdict");
  for (const FigureDiff& f : diff.figures) {
    fmt::format_to(to_out, "{} {:>16.6g} {:>16.6g} {:>16}  {}\n", PadRight(f.path, width), f.baseline, f.current,
                   f.change, f.verdict);
  }
  if (!diff.ops.empty()) {
    out += "Per op, avg us per call (baseline, current, change), by the current run's time:\n";
    for (const OpDiff& op : diff.ops) {
      const double pct =
          op.baseline_avg_us > 0 ? (op.current_avg_us - op.baseline_avg_us) / op.baseline_avg_us * 100.0 : 0.0;
      // Node names can be hundreds of characters (fused tensor names): the end, which holds the index.
      const std::string node = op.node.size() > 48 ? "..." + op.node.substr(op.node.size() - 45) : op.node;
      fmt::format_to(to_out, "  {} {:>12.3f} {:>12.3f} {:>+9.2f}%  {}\n", PadRight(op.type, 20), op.baseline_avg_us,
                     op.current_avg_us, pct, node);
    }
  }
  for (const std::string& l : diff.gate_lines) out += l + "\n";
  fmt::format_to(to_out, "Verdict: {} (exit code {})\n", GateVerdictName(diff.verdict), GateExitCode(diff.verdict));
  return out;
}

}  // namespace touchstone
