// The views of a QualificationReport: text, JSON, CSV and HTML.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include "evaluation/svg_chart.h"

#include "tools/delegate_qualify/qualification.h"

namespace touchstone {
namespace {

bool Failing(const QualifiedItem& item) {
  return item.verdict == ItemVerdict::kFail || item.verdict == ItemVerdict::kCrash ||
         item.verdict == ItemVerdict::kHang || item.verdict == ItemVerdict::kInvalid;
}

std::string Number(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "n/a"; }

// The worst output's figures, in one phrase.
std::string Figures(const QualifiedItem& item) {
  std::string text;
  for (const OutputFigures& o : item.outputs) {
    if (!text.empty()) text += "; ";
    text += o.name + ": max_abs " + Number(o.max_abs_error) + ", max_rel " + Number(o.max_relative_error) + " (" +
            o.threshold + ")";
  }
  return text;
}

std::string LineOf(const QualifiedItem& item) {
  std::string line = std::string(ItemVerdictName(item.verdict)) + " " + item.id;
  if (!item.detail.empty()) line += ": " + item.detail;
  if (!item.localization.empty()) line += "; " + item.localization;
  return line;
}

std::string Pct(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1.0) * 100.0); }

std::string Csv(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

nlohmann::ordered_json ItemCoreJson(const QualifiedItem& item) {
  nlohmann::ordered_json j;
  j["id"] = item.id;
  j["op"] = item.op;
  j["type"] = item.type;
  j["variant"] = item.variant;
  j["version"] = item.version;
  j["verdict"] = ItemVerdictName(item.verdict);
  j["detail"] = item.detail;
  j["nodes"] = item.nodes;
  j["delegated_nodes"] = item.delegated_nodes;
  j["partitions"] = item.partitions;
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  for (const OutputFigures& o : item.outputs) {
    outputs.push_back({{"name", o.name},
                       {"type", o.type},
                       {"max_abs_error", JsonNumber(o.max_abs_error)},
                       {"max_relative_error", JsonNumber(o.max_relative_error)},
                       {"avg_error", JsonNumber(o.avg_error)},
                       {"threshold", o.threshold},
                       {"breach", o.breach}});
  }
  j["outputs"] = outputs;
  nlohmann::ordered_json cpu = nlohmann::ordered_json::array();
  for (const CpuNode& n : item.cpu_nodes) {
    cpu.push_back({{"node", n.node}, {"op", n.op}, {"version", n.version}, {"types", n.types}, {"reason", n.reason}});
  }
  j["cpu_nodes"] = cpu;
  return j;
}

std::string FormatQualification(const QualificationReport& report) {
  std::string out = "Delegate: " + report.delegates + "\n";
  auto to_out = std::back_inserter(out);
  for (const std::vector<QualifiedItem>* list : {&report.cases, &report.models}) {
    for (const QualifiedItem& item : *list) {
      if (!Failing(item)) continue;
      out += LineOf(item) + "\n";
      if (!item.reproduce.empty()) out += "  reproduce: " + item.reproduce + "\n";
    }
  }
  for (const QualifiedItem& m : report.models) {
    fmt::format_to(to_out, "Model {}: {}", m.id.substr(6), ItemVerdictName(m.verdict));
    if (m.verdict == ItemVerdict::kCrash || m.verdict == ItemVerdict::kHang || m.verdict == ItemVerdict::kInvalid) {
      out += "\n";
      continue;
    }
    fmt::format_to(to_out, ", {} of {} nodes delegated in {} partitions", m.delegated_nodes, m.nodes, m.partitions);
    if (!m.cpu_nodes.empty()) {
      std::map<std::string, int> ops;
      for (const CpuNode& n : m.cpu_nodes) ++ops[fmt::format("{} v{}", n.op, n.version)];
      out += "; on the CPU:";
      for (const auto& op : ops) fmt::format_to(to_out, " {} x{}", op.first, op.second);
    }
    out += "\n";
  }
  for (const LatencyResult& l : report.latency) {
    out += "Latency " + l.model + ": " + l.verdict;
    if (!l.detail.empty()) out += ": " + l.detail;
    for (const LatencyCriterion& c : l.criteria) {
      fmt::format_to(to_out, "; {} {} us vs {} us ({}, 95% CI {} to {}) {}", c.metric, Number(c.test_median_us),
                     Number(c.reference_median_us), Pct(c.ratio), Pct(c.ci_low), Pct(c.ci_high), c.verdict);
    }
    out += "\n";
  }
  out += "Summary: " + report.summary + "\n";
  out += std::string("Qualification: ") + (report.passed ? "PASS" : "FAIL") + "\n";
  return out;
}

std::string QualificationJson(const QualificationReport& report) {
  nlohmann::ordered_json j = EnvelopeJson(report.envelope);
  j["delegates"] = report.delegates;
  j["thresholds"] = {{"float_tolerance", report.float_tolerance},
                     {"quantized", "1 step"},
                     {"other", "exact"},
                     {"max_regression_pct", report.max_regression_pct}};
  j["verdict"] = report.passed ? "PASS" : "FAIL";
  j["summary"] = report.summary;
  j["crashes"] = report.crashes;
  j["hangs"] = report.hangs;
  auto items = [](const std::vector<QualifiedItem>& list) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const QualifiedItem& item : list) {
      nlohmann::ordered_json e = ItemCoreJson(item);
      if (item.divergent_node >= 0 || !item.localization.empty()) {
        e["divergence"] = {{"node", item.divergent_node}, {"op", item.divergent_op}, {"text", item.localization}};
      }
      e["reproduce"] = item.reproduce;
      e["log_tail"] = item.log_tail;
      a.push_back(e);
    }
    return a;
  };
  j["cases"] = items(report.cases);
  j["models"] = items(report.models);
  nlohmann::ordered_json latency = nlohmann::ordered_json::array();
  for (const LatencyResult& l : report.latency) {
    nlohmann::ordered_json e;
    e["model"] = l.model;
    e["verdict"] = l.verdict;
    e["detail"] = l.detail;
    nlohmann::ordered_json criteria = nlohmann::ordered_json::array();
    for (const LatencyCriterion& c : l.criteria) {
      criteria.push_back({{"metric", c.metric},
                          {"reference_median_us", c.reference_median_us},
                          {"test_median_us", c.test_median_us},
                          {"ratio", c.ratio},
                          {"ci_low", c.ci_low},
                          {"ci_high", c.ci_high},
                          {"reference_runs", c.reference_runs},
                          {"test_runs", c.test_runs},
                          {"verdict", c.verdict}});
    }
    e["criteria"] = criteria;
    latency.push_back(e);
  }
  j["latency"] = latency;
  return j.dump(2) + "\n";
}

std::string QualificationCsv(const QualificationReport& report) {
  std::string out =
      "id,kind,op,type,variant,version,verdict,delegated_nodes,nodes,partitions,max_abs_error,max_relative_error,"
      "threshold,detail,reproduce\n";
  for (const std::vector<QualifiedItem>* list : {&report.cases, &report.models}) {
    for (const QualifiedItem& item : *list) {
      double max_abs = 0, max_rel = 0;
      std::string threshold;
      for (const OutputFigures& o : item.outputs) {
        max_abs = std::max(max_abs, o.max_abs_error);
        max_rel = std::max(max_rel, o.max_relative_error);
        threshold = o.threshold;
      }
      const bool figures = !item.outputs.empty();
      fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", Csv(item.id),
                     list == &report.cases ? "case" : "model", Csv(item.op), Csv(item.type), Csv(item.variant),
                     item.version, ItemVerdictName(item.verdict), item.delegated_nodes, item.nodes, item.partitions,
                     figures ? Number(max_abs) : "", figures ? Number(max_rel) : "", Csv(threshold),
                     Csv(item.detail + (item.localization.empty() ? "" : "; " + item.localization)),
                     Csv(item.reproduce));
    }
  }
  return out;
}

std::string QualificationHtml(const QualificationReport& report) {
  std::ostringstream h;
  const std::string verdict = report.passed ? "PASS" : "FAIL";
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    << "<title>Delegate qualification: " << svg::Escape(report.delegates) << ": " << verdict << "</title>\n"
    << "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:0.5em 0 1.5em}"
       "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px;vertical-align:top}"
       "th{background:#f0f0f0}.PASS{background:#dff5df}.FAIL,.CRASH,.HANG,.INVALID{background:#fadddd}"
       ".NOT_DELEGATED{background:#eee;color:#666}.PASS_WITH_WARNING,.NOISY{background:#fff3cd}"
       "#summary{font-size:18px;padding:1em;border:2px solid #888;display:inline-block}"
       "code{font-size:12px;background:#f6f6f6}</style>\n</head><body>\n";
  h << "<h1>Delegate qualification</h1>\n<div id=\"summary\" class=\"" << verdict << "\"><b>Verdict: " << verdict
    << "</b><br>Delegate: " << svg::Escape(report.delegates) << "<br>" << svg::Escape(report.summary)
    << "<br>Crashes: " << report.crashes << ", hangs: " << report.hangs << "<br>Touchstone "
    << svg::Escape(report.envelope.touchstone_version) << ", " << svg::Escape(report.envelope.start_time) << "</div>\n";
  h << "<p>Thresholds: float outputs within " << Number(report.float_tolerance)
    << " of the reference's largest magnitude, quantized outputs within one step, others exact; latency: at most "
    << Number(report.max_regression_pct) << "% slower than the CPU without the delegate.</p>\n";
  h << "<h2>Latency</h2>\n<table><tr><th>model</th><th>metric</th><th>delegate (median us)</th><th>CPU (median us)"
       "</th><th>change</th><th>95% interval</th><th>verdict</th></tr>\n";
  for (const LatencyResult& l : report.latency) {
    if (l.criteria.empty()) {
      h << "<tr><td>" << svg::Escape(l.model) << "</td><td colspan=5>" << svg::Escape(l.detail) << "</td><td class=\""
        << l.verdict << "\">" << l.verdict << "</td></tr>\n";
    }
    for (const LatencyCriterion& c : l.criteria) {
      h << "<tr><td>" << svg::Escape(l.model) << "</td><td>" << c.metric << "</td><td>" << Number(c.test_median_us)
        << "</td><td>" << Number(c.reference_median_us) << "</td><td>" << Pct(c.ratio) << "</td><td>" << Pct(c.ci_low)
        << " to " << Pct(c.ci_high) << "</td><td class=\"" << c.verdict << "\">" << c.verdict << "</td></tr>\n";
    }
  }
  h << "</table>\n<h2>Models</h2>\n<table><tr><th>model</th><th>verdict</th><th>delegated</th><th>partitions</th>"
       "<th>outputs</th><th>on the CPU</th><th>detail</th></tr>\n";
  for (const QualifiedItem& m : report.models) {
    // Nodes kept on the CPU, grouped by what they are and why.
    std::map<std::string, std::vector<int>> groups;
    for (const CpuNode& n : m.cpu_nodes) {
      groups[n.op + " v" + std::to_string(n.version) + " (" + n.types + "): " + n.reason].push_back(n.node);
    }
    std::string cpu;
    for (const auto& g : groups) {
      std::string nodes;
      for (size_t k = 0; k < g.second.size() && k < 12; ++k) nodes += (k ? "," : "") + std::to_string(g.second[k]);
      if (g.second.size() > 12) nodes += ",...";
      cpu += svg::Escape(g.first) + " &times;" + std::to_string(g.second.size()) + " <small>(nodes " + nodes +
             ")</small><br>";
    }
    h << "<tr><td>" << svg::Escape(m.id.substr(6)) << "<br><small>" << svg::Escape(m.variant)
      << "</small></td><td class=\"" << ItemVerdictName(m.verdict) << "\">" << ItemVerdictName(m.verdict) << "</td><td>"
      << m.delegated_nodes << " of " << m.nodes << "</td><td>" << m.partitions << "</td><td>" << svg::Escape(Figures(m))
      << "</td><td>" << cpu << "</td><td>" << svg::Escape(m.detail)
      << (m.localization.empty() ? "" : "<br><b>" + svg::Escape(m.localization) + "</b>")
      << (Failing(m) ? "<br><code>" + svg::Escape(m.reproduce) + "</code>" : "") << "</td></tr>\n";
  }
  h << "</table>\n<h2>Op conformance</h2>\n";
  std::map<std::string, std::vector<const QualifiedItem*>> by_op;
  std::vector<std::string> order;
  for (const QualifiedItem& c : report.cases) {
    if (by_op.count(c.op) == 0) order.push_back(c.op);
    by_op[c.op].push_back(&c);
  }
  // Ops with a failing case first, then the others in suite order.
  std::stable_sort(order.begin(), order.end(), [&by_op](const std::string& a, const std::string& b) {
    auto fails = [&by_op](const std::string& op) {
      return std::any_of(by_op[op].begin(), by_op[op].end(), [](const QualifiedItem* i) { return Failing(*i); });
    };
    return fails(a) && !fails(b);
  });
  for (const std::string& op : order) {
    std::vector<const QualifiedItem*> cases = by_op[op];
    std::stable_sort(cases.begin(), cases.end(),
                     [](const QualifiedItem* a, const QualifiedItem* b) { return Failing(*a) && !Failing(*b); });
    h << "<h3>" << svg::Escape(op)
      << "</h3>\n<table><tr><th>type</th><th>variant</th><th>version</th><th>verdict</th>"
         "<th>figures</th><th>detail</th></tr>\n";
    for (const QualifiedItem* c : cases) {
      h << "<tr><td>" << svg::Escape(c->type) << "</td><td>" << svg::Escape(c->variant) << "</td><td>" << c->version
        << "</td><td class=\"" << ItemVerdictName(c->verdict) << "\">" << ItemVerdictName(c->verdict) << "</td><td>"
        << svg::Escape(Figures(*c)) << "</td><td>" << svg::Escape(c->detail);
      if (Failing(*c)) h << "<br><code>" << svg::Escape(c->reproduce) << "</code>";
      for (const std::string& line : c->log_tail) h << "<br><small>" << svg::Escape(line) << "</small>";
      h << "</td></tr>\n";
    }
    h << "</table>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace touchstone
