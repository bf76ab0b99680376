#include "evaluation/quality_gate.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace touchstone {
namespace {

// Accuracy changes smaller than this are rounding, not change (fractions of a 50,000-image set differ
// by 2e-5).
constexpr double kAccuracyEpsilon = 1e-9;

// Not-a-number is "nan" whatever its sign bit (printf and fmt would say "-nan" for some).
std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  return fmt::format("{:.{}f}", v, decimals);
}

std::string General(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  return fmt::format("{:.6g}", v);
}

// "+0.400 points" / "-0.400 points" for a change of fractions.
std::string Points(double from, double to) {
  const double points = (to - from) * 100.0;
  return (points >= 0 ? "+" : "") + Fixed(points, 3) + " points";
}

// A figure's verdict against its baseline: growth beyond the limit is a REGRESSION.
GateVerdict GrowthVerdict(double baseline, double current, double t) {
  if (std::isnan(current) || std::isnan(baseline))
    return std::isnan(baseline) ? GateVerdict::kNoisy : GateVerdict::kRegression;
  if (current > baseline * (1.0 + t) + 1e-12) return GateVerdict::kRegression;
  if (current < baseline * (1.0 - t) - 1e-12) return GateVerdict::kImprovement;
  return GateVerdict::kPass;
}

}  // namespace

// --- imagenet_eval ------------------------------------------------------------------------------

AccuracyGateResult CompareAccuracy(const AccuracyRun& baseline, const AccuracyRun& current,
                                   const AccuracyGateConfig& config) {
  AccuracyGateResult r;
  r.max_accuracy_drop_pct = config.max_accuracy_drop_pct;
  r.require_same_predictions = config.require_same_predictions;
  auto at = [](const std::vector<double>& v, size_t k) { return k < v.size() ? v[k] : 0.0; };
  r.baseline_top1 = at(baseline.topk_accuracy, 0);
  r.current_top1 = at(current.topk_accuracy, 0);
  r.baseline_top5 = at(baseline.topk_accuracy, 4);
  r.current_top5 = at(current.topk_accuracy, 4);
  const size_t n = std::min(baseline.top1_labels.size(), current.top1_labels.size());
  for (size_t i = 0; i < n; ++i) {
    if (baseline.top1_labels[i] == current.top1_labels[i]) continue;
    ++r.changed_images;
    if (static_cast<int>(r.first_changed.size()) < config.max_listed_images) {
      const std::string& image = i < current.images.size() ? current.images[i] : "image " + std::to_string(i);
      r.first_changed.push_back(image + ": " + baseline.top1_labels[i] + " -> " + current.top1_labels[i]);
    }
  }
  const double limit = config.max_accuracy_drop_pct / 100.0 + kAccuracyEpsilon;
  const bool top1_dropped = r.baseline_top1 - r.current_top1 > limit;
  const bool top5_dropped = r.baseline_top5 - r.current_top5 > limit;
  if (top1_dropped || top5_dropped) {
    r.verdict = GateVerdict::kRegression;
    r.reason = std::string(top1_dropped ? "top-1" : "top-5") + " dropped by more than " +
               Fixed(config.max_accuracy_drop_pct, 3) + " points";
  } else if (config.require_same_predictions && r.changed_images > 0) {
    r.verdict = GateVerdict::kRegression;
    r.reason =
        "--require_same_predictions and " + std::to_string(r.changed_images) + " images changed their top-1 label";
  } else if (r.current_top1 > r.baseline_top1 + kAccuracyEpsilon &&
             r.current_top5 + kAccuracyEpsilon >= r.baseline_top5) {
    r.verdict = GateVerdict::kImprovement;
  } else {
    r.verdict = GateVerdict::kPass;
  }
  return r;
}

std::string FormatAccuracyGate(const AccuracyGateResult& r) {
  std::string line = fmt::format(
      "Accuracy gate: {}: top-1 {}% vs baseline {}% ({}), top-5 {}% vs baseline {}% ({}); limit -{} points; {} "
      "images changed their top-1 label",
      GateVerdictName(r.verdict), Fixed(r.current_top1 * 100.0, 3), Fixed(r.baseline_top1 * 100.0, 3),
      Points(r.baseline_top1, r.current_top1), Fixed(r.current_top5 * 100.0, 3), Fixed(r.baseline_top5 * 100.0, 3),
      Points(r.baseline_top5, r.current_top5), Fixed(r.max_accuracy_drop_pct, 3), r.changed_images);
  for (size_t i = 0; i < r.first_changed.size(); ++i) line += (i ? ", " : ": ") + r.first_changed[i];
  if (r.changed_images > static_cast<int64_t>(r.first_changed.size())) line += ", ...";
  if (!r.reason.empty()) line += " (" + r.reason + ")";
  return line;
}

// --- coco_eval ----------------------------------------------------------------------------------

DetectionGateResult CompareDetection(const DetectionRun& baseline, const DetectionRun& current, double max_drop_pct) {
  DetectionGateResult r;
  r.max_accuracy_drop_pct = max_drop_pct;
  const double limit = max_drop_pct / 100.0 + kAccuracyEpsilon;
  std::vector<GateVerdict> verdicts;
  for (const auto& c : current.metrics) {
    DetectionGateResult::Metric m;
    m.name = c.first;
    m.current = c.second;
    bool found = false;
    for (const auto& b : baseline.metrics) {
      if (b.first != c.first) continue;
      found = true;
      m.baseline = b.second;
    }
    if (!found) {
      m.verdict = GateVerdict::kNoisy;
      r.reason = "the baseline has no " + m.name;
    } else if (m.baseline - m.current > limit) {
      m.verdict = GateVerdict::kRegression;
      r.reason = m.name + " dropped by more than " + Fixed(max_drop_pct, 3) + " points";
    } else if (m.current > m.baseline + kAccuracyEpsilon) {
      m.verdict = GateVerdict::kImprovement;
    }
    verdicts.push_back(m.verdict);
    r.metrics.push_back(m);
  }
  if (r.metrics.empty()) {
    verdicts.push_back(GateVerdict::kNoisy);
    r.reason = "no metric to compare";
  }
  // IMPROVEMENT only when something rose and nothing fell.
  bool any_drop = false;
  for (const DetectionGateResult::Metric& m : r.metrics) any_drop |= m.current < m.baseline - kAccuracyEpsilon;
  r.verdict = CombineVerdicts(verdicts);
  if (r.verdict == GateVerdict::kImprovement && any_drop) r.verdict = GateVerdict::kPass;
  std::vector<std::tuple<std::string, double, double>> drops;
  for (const auto& c : current.class_ap) {
    for (const auto& b : baseline.class_ap) {
      if (b.first == c.first && c.second < b.second - kAccuracyEpsilon) drops.emplace_back(c.first, b.second, c.second);
    }
  }
  std::stable_sort(drops.begin(), drops.end(), [](const auto& a, const auto& b) {
    return std::get<1>(a) - std::get<2>(a) > std::get<1>(b) - std::get<2>(b);
  });
  if (drops.size() > 5) drops.resize(5);
  r.worst_classes = drops;
  return r;
}

std::string FormatDetectionGate(const DetectionGateResult& r) {
  std::string line = fmt::format("Detection gate: {}:", GateVerdictName(r.verdict));
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    const DetectionGateResult::Metric& m = r.metrics[i];
    line += fmt::format("{}{} {} vs baseline {} ({})", i ? ", " : " ", m.name, Fixed(m.current, 4),
                        Fixed(m.baseline, 4), Points(m.baseline, m.current));
  }
  line += fmt::format("; limit -{} points", Fixed(r.max_accuracy_drop_pct, 3));
  if (!r.worst_classes.empty()) {
    line += "; dropped most:";
    for (size_t i = 0; i < r.worst_classes.size(); ++i) {
      line += fmt::format("{}{} {} -> {}", i ? ", " : " ", std::get<0>(r.worst_classes[i]),
                          Fixed(std::get<1>(r.worst_classes[i]), 4), Fixed(std::get<2>(r.worst_classes[i]), 4));
    }
  }
  if (!r.reason.empty()) line += " (" + r.reason + ")";
  return line;
}

// --- inference_diff ------------------------------------------------------------------------------

ErrorGateResult CompareOutputErrors(const std::vector<OutputErrors>& baseline, const std::vector<OutputErrors>& current,
                                    double max_increase_pct) {
  ErrorGateResult r;
  r.max_error_increase_pct = max_increase_pct;
  const double t = max_increase_pct / 100.0;
  std::vector<GateVerdict> verdicts;
  for (const OutputErrors& c : current) {
    ErrorGateResult::Line line;
    line.current = c;
    const OutputErrors* b = nullptr;
    for (const OutputErrors& e : baseline) {
      if (e.index == c.index) b = &e;
    }
    if (b == nullptr) {
      line.verdict = GateVerdict::kNoisy;
      line.what = "the baseline has no output " + std::to_string(c.index);
    } else if (!c.compared) {
      line.baseline = *b;
      line.verdict = GateVerdict::kRegression;
      line.what = "no longer compared (shape or type differs from the reference)";
    } else if (!b->compared) {
      line.baseline = *b;
      line.verdict = GateVerdict::kNoisy;
      line.what = "the baseline has no figures for it";
    } else {
      line.baseline = *b;
      const GateVerdict max_verdict = GrowthVerdict(b->max_abs_error, c.max_abs_error, t);
      const GateVerdict avg_verdict = GrowthVerdict(b->avg_error, c.avg_error, t);
      if (max_verdict == GateVerdict::kRegression || avg_verdict == GateVerdict::kRegression) {
        line.verdict = GateVerdict::kRegression;
        line.what = max_verdict == GateVerdict::kRegression ? "max_abs_error grew" : "avg_error grew";
      } else if (max_verdict == GateVerdict::kImprovement && avg_verdict == GateVerdict::kImprovement) {
        line.verdict = GateVerdict::kImprovement;
      } else if (max_verdict == GateVerdict::kNoisy || avg_verdict == GateVerdict::kNoisy) {
        line.verdict = GateVerdict::kNoisy;
        line.what = "the baseline's figures are not numbers";
      }
    }
    verdicts.push_back(line.verdict);
    r.outputs.push_back(line);
  }
  if (current.empty()) verdicts.push_back(GateVerdict::kNoisy);
  r.verdict = CombineVerdicts(verdicts);
  return r;
}

std::vector<std::string> FormatErrorGate(const ErrorGateResult& r) {
  std::vector<std::string> lines;
  for (const ErrorGateResult::Line& l : r.outputs) {
    std::string line =
        fmt::format("Error gate: OutputDiff[{}] '{}': {}", l.current.index, l.current.name, GateVerdictName(l.verdict));
    if (l.current.compared && l.baseline.compared) {
      const double ratio = l.baseline.max_abs_error > 0 ? l.current.max_abs_error / l.baseline.max_abs_error
                                                        : (l.current.max_abs_error > 0 ? INFINITY : 1.0);
      line += fmt::format(": max_abs_error {} vs baseline {} (x{}), avg_error {} vs baseline {}",
                          General(l.current.max_abs_error), General(l.baseline.max_abs_error), Fixed(ratio, 3),
                          General(l.current.avg_error), General(l.baseline.avg_error));
    }
    if (!l.what.empty()) line += "; " + l.what;
    line += fmt::format("; limit +{}%", General(r.max_error_increase_pct));
    lines.push_back(line);
  }
  return lines;
}

}  // namespace touchstone
