#include "evaluation/report_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include "absl/container/flat_hash_map.h"

#include "evaluation/latency_stats.h"
#include "evaluation/report_images.h"
#include "evaluation/svg_chart.h"

namespace touchstone {
namespace {

using nlohmann::json;
using svg::Escape;
using svg::Number;

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.subtitle { color: #666; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #666; font-size: 13px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 3px; color: #fff; font-weight: bold; }
.PASS, .IMPROVEMENT { background: #2a9d4b; } .FAIL, .REGRESSION { background: #d1495b; }
.NOISY { background: #e08a1e; } .NONE, .none { background: #888; }
td.PASS, td.IMPROVEMENT, td.REGRESSION, td.NOISY { color: #fff; }
svg.chart { display: block; margin: 10px 0; background: #fff; }
svg.chart .chart-title { font-size: 14px; font-weight: bold; }
svg.chart .tick-label, svg.chart .bar-label, svg.chart .bar-value, svg.chart .lane-label, svg.chart .legend-label,
svg.chart .block-label { font-size: 11px; fill: #333; }
svg.chart .axis-label { font-size: 12px; fill: #333; }
svg.chart .axis { stroke: #444; } svg.chart .grid { stroke: #e6e6e6; } svg.chart .tick { stroke: #444; }
svg.chart .block-label { fill: #fff; pointer-events: none; }
.grid-images { display: flex; flex-wrap: wrap; gap: 10px; }
.grid-images figure { margin: 0; width: 190px; font-size: 12px; }
.grid-images img { max-width: 180px; border: 1px solid #ccc; }
.examples figure { margin: 0 0 16px 0; font-size: 12px; }
.missing { width: 180px; height: 120px; background: #eee; color: #666; font-size: 11px; padding: 6px;
  box-sizing: border-box; overflow: hidden; }
pre.gate { white-space: pre-wrap; font-size: 12px; }
.key span { display: inline-block; padding: 1px 6px; margin-right: 6px; color: #fff; font-size: 12px; }
)";

std::string Str(const json& j, const char* key, const std::string& fallback = "") {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

double Num(const json& j, const char* key, double fallback = NAN) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

const json& Member(const json& j, const char* key) {
  static const json kNull;
  return j.is_object() && j.contains(key) ? j[key] : kNull;
}

std::string Bytes(double bytes) { return fmt::format("{:.2f} MB", bytes / (1024.0 * 1024.0)); }

std::string Percent(double fraction) { return std::isnan(fraction) ? "-" : fmt::format("{:.2f}%", fraction * 100); }

struct Page {
  std::ostringstream body;
  void Heading(const std::string& id, const std::string& title) {
    body << "<h2 id=\"" << Escape(id) << "\">" << Escape(title) << "</h2>\n";
  }
  void Note(const std::string& text) { body << "<p class=\"note\">" << Escape(text) << "</p>\n"; }
  void Figure(const std::string& chart) { body << "<figure class=\"chart-figure\">" << chart << "</figure>\n"; }
  void Table(const std::vector<std::pair<std::string, std::string>>& rows, const std::string& css = "") {
    body << "<table" << (css.empty() ? "" : " class=\"" + css + "\"") << ">";
    for (const auto& r : rows) body << "<tr><th>" << Escape(r.first) << "</th><td>" << Escape(r.second) << "</td></tr>";
    body << "</table>\n";
  }
  std::string Finish(const std::string& title, const std::string& subtitle) const {
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << Escape(title)
        << "</title><style>" << kStyle << "</style></head><body>\n<h1>" << Escape(title)
        << "</h1><div class=\"subtitle\">" << Escape(subtitle) << "</div>\n"
        << body.str() << "<p class=\"note\">Made by report_view from the report alone; nothing on this page is fetched."
        << "</p></body></html>\n";
    return out.str();
  }
};

std::string DelegatesText(const json& config) {
  std::string text;
  for (const json& d : Member(config, "delegates")) {
    text += (text.empty() ? "" : ", ") + Str(d, "provider") +
            (d.value("applied", false) ? " (" + std::to_string(d.value("delegate_kernels", 0)) + " kernels)"
                                       : " (not applied)");
  }
  return text.empty() ? "none" : text;
}

// What ran where: model, machine, configuration, and a shard's or a merge's note.
void EnvelopeSection(const json& r, Page* page) {
  const json& model = Member(r, "model");
  const json& machine = Member(r, "machine");
  const json& config = Member(r, "configuration");
  std::vector<std::pair<std::string, std::string>> rows = {
      {"model", Str(model, "path") + " (" + Bytes(Num(model, "size_bytes", 0)) + ", sha256 " +
                    Str(model, "sha256").substr(0, 12) + ")"},
      {"machine", Str(machine, "cpu_model") + ", " + std::to_string(machine.value("usable_cores", 0)) +
                      " usable cores, " + Str(machine, "isa") + "; " + Str(machine, "os") + " (" +
                      Str(machine, "hostname") + ")"},
      {"configuration", std::to_string(config.value("num_threads", 0)) + " threads, " + Str(config, "kernels") +
                            " kernels, delegates: " + DelegatesText(config)},
      {"touchstone", Str(r, "touchstone_version") + ", started " + Str(r, "start_time")},
  };
  std::string inputs;
  for (const json& in : Member(config, "inputs")) {
    std::string shape;
    for (const json& d : Member(in, "shape")) shape += (shape.empty() ? "" : ",") + d.dump();
    inputs += (inputs.empty() ? "" : "; ") + Str(in, "name") + " " + Str(in, "type") + " [" + shape + "] " +
              Str(in, "source");
  }
  if (!inputs.empty()) rows.emplace_back("inputs", inputs);
  const json& shard = Member(r, "shard");
  if (shard.is_object()) {
    rows.emplace_back("shard", "shard " + shard["index"].dump() + " of " + shard["count"].dump() + ": " +
                                   Str(shard, "unit") + " " + shard["first"].dump() + " to " + shard["end"].dump() +
                                   " of " + shard["total"].dump() + " (its figures are its part's only)");
  }
  const json& merged = Member(r, "merged");
  if (merged.is_object()) {
    rows.emplace_back("merged", "from " + merged["shards"].dump() + " shards over " + merged["total"].dump() + " " +
                                    Str(merged, "unit") + " (latencies are the shards' merged; docs/cluster.md)");
  }
  page->Table(rows, "envelope");
}

// The kept latency samples of a latency figure written with its samples: (run index, microseconds).
std::vector<std::pair<double, double>> KeptSamples(const json& stats) {
  std::vector<std::pair<double, double>> samples;
  const json& s = Member(stats, "samples");
  const json& runs = Member(s, "run_index");
  const json& us = Member(s, "latency_us");
  for (size_t i = 0; i < runs.size() && i < us.size(); ++i) {
    if (runs[i].is_number() && us[i].is_number()) samples.emplace_back(runs[i].get<double>(), us[i].get<double>());
  }
  return samples;
}

// Equal-width bins over [lo, hi] of a figure's distribution: from every kept sample when all were kept,
// else from the histogram of every run (each bucket's count in the bin of its middle).
bool LatencyBins(const json& stats, double lo, double hi, int bins, std::vector<double>* counts) {
  counts->assign(static_cast<size_t>(bins), 0.0);
  const double width = (hi - lo) / bins;
  auto add = [&](double us, double n) {
    int b = width > 0 ? static_cast<int>((us - lo) / width) : 0;
    b = std::min(std::max(b, 0), bins - 1);
    (*counts)[static_cast<size_t>(b)] += n;
  };
  const json& histogram = Member(stats, "histogram");
  if (histogram.is_object()) {
    const json& bucket = Member(histogram, "bucket");
    const json& count = Member(histogram, "count");
    for (size_t i = 0; i < bucket.size() && i < count.size(); ++i) {
      const int b = bucket[i].get<int>();
      const double mid = (LatencyHistogram::BucketLow(b) + LatencyHistogram::BucketHigh(b)) / 2.0 / 1000.0;
      add(mid, count[i].get<double>());
    }
    return true;
  }
  const std::vector<std::pair<double, double>> samples = KeptSamples(stats);
  for (const auto& s : samples) add(s.second, 1);
  return !samples.empty();
}

// --- benchmark_model ------------------------------------------------------------------------------

std::string LatencyHistogramChart(const std::vector<const json*>& stats, const std::vector<std::string>& names) {
  double lo = INFINITY, hi = -INFINITY;
  for (const json* s : stats) {
    lo = std::min(lo, Num(*s, "min_us", INFINITY));
    hi = std::max(hi, Num(*s, "max_us", -INFINITY));
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "";
  // The bulk, not a lone outlier, sets the range: up to the largest p99 (the rest in the last bin).
  double p99 = -INFINITY;
  for (const json* s : stats) p99 = std::max(p99, Num(*s, "p99_us", hi));
  hi = std::min(hi, p99 + (p99 - lo) * 0.1);
  if (hi <= lo) hi = lo + std::max(1e-3, lo * 0.01);
  const int bins = 50;
  std::vector<double> edges;
  for (int b = 0; b <= bins; ++b) edges.push_back(lo + (hi - lo) * b / bins);
  std::vector<std::vector<double>> counts;
  for (const json* s : stats) {
    std::vector<double> c;
    LatencyBins(*s, lo, hi, bins, &c);
    counts.push_back(c);
  }
  std::vector<std::string> colors = {svg::kNeutral, svg::kDelegate};
  return svg::Histogram("latency-histogram", "Latency of the regular runs (beyond p99 in the last bin)", edges, counts,
                        names, colors, {"latency (us)"}, {"runs"});
}

// Rolling median of a run-ordered series (window of about a fiftieth of the runs).
std::vector<double> RollingMedian(const std::vector<double>& values) {
  const size_t half = std::max<size_t>(2, values.size() / 100);
  std::vector<double> out;
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t a = i >= half ? i - half : 0, b = std::min(values.size(), i + half + 1);
    out.push_back(MedianOf(std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(a),
                                               values.begin() + static_cast<std::ptrdiff_t>(b))));
  }
  return out;
}

std::vector<svg::Series> RunOrderSeries(const json& report, const std::string& prefix, const std::string& color,
                                        const std::string& warmup_color) {
  const json& latency = Member(report, "latency");
  const std::vector<std::pair<double, double>> warmup = KeptSamples(Member(latency, "warmup"));
  const std::vector<std::pair<double, double>> regular = KeptSamples(Member(latency, "regular"));
  const double offset = Num(Member(latency, "warmup"), "count", static_cast<double>(warmup.size()));
  svg::Series w{prefix + "warm-up", warmup_color};
  w.line = false;
  w.point_class = "point warmup";
  for (const auto& s : warmup) {
    w.x.push_back(s.first);
    w.y.push_back(s.second);
  }
  svg::Series g{prefix + "regular", color};
  g.line = false;
  g.point_class = "point regular";
  for (const auto& s : regular) {
    g.x.push_back(offset + s.first);
    g.y.push_back(s.second);
  }
  svg::Series m{prefix + "rolling median", "#222"};
  m.points = false;
  m.x = g.x;
  m.y = RollingMedian(g.y);
  m.dashed = !prefix.empty();
  return {w, g, m};
}

// The latency axis of a run-order plot: up to three times the largest p99, so that a few stalls do not
// flatten the rest (they are drawn at the top).
svg::Axis RunOrderAxis(const std::vector<const json*>& stats) {
  svg::Axis axis{"latency (us; stalls beyond 3 x p99 drawn at the top)"};
  double p99 = 0, max = 0;
  for (const json* s : stats) {
    p99 = std::max(p99, Num(*s, "p99_us", 0));
    max = std::max(max, Num(*s, "max_us", 0));
  }
  if (p99 > 0 && max > 3 * p99) axis.max = 3 * p99;
  return axis;
}

std::string PercentileTable(const std::vector<const json*>& stats, const std::vector<std::string>& names) {
  std::ostringstream out;
  out << "<table class=\"percentiles\"><tr><th>figure (us)</th>";
  for (const std::string& n : names) out << "<th>" << Escape(n) << "</th>";
  out << "</tr>";
  for (const char* key : {"count", "min_us", "p5_us", "p50_us", "median_us", "p90_us", "p95_us", "p99_us", "max_us",
                          "mean_us", "std_us"}) {
    out << "<tr><th>" << key << "</th>";
    for (const json* s : stats) out << "<td class=\"num\">" << Escape(Number(Num(*s, key))) << "</td>";
    out << "</tr>";
  }
  out << "<tr><th>percentiles</th>";
  for (const json* s : stats) {
    out << "<td>" << (s->value("percentiles_exact", false) ? "exact" : "from a histogram of every run (within 0.4%)")
        << "</td>";
  }
  out << "</tr></table>\n";
  return out.str();
}

// Per-op rows (avg us per call) of every subgraph, largest first.
std::vector<svg::BarRow> OpRows(const json& report, size_t limit) {
  std::vector<svg::BarRow> rows;
  for (const json& s : Member(Member(report, "op_profile"), "subgraphs")) {
    for (const json& n : Member(s, "nodes")) {
      svg::BarRow row;
      row.label = Str(n, "type") + " :" + std::to_string(n.value("node_index", -1)) +
                  (s.value("index", 0) != 0 ? " (subgraph " + std::to_string(s.value("index", 0)) + ")" : "");
      row.values = {Num(n, "avg_us", 0)};
      row.tip = Str(n, "name") + ", " + std::to_string(n.value("times_called_per_run", 0)) + " calls per run";
      const std::string kernel = Str(n, "kernel");
      row.css_class = std::string("bar") + (n.value("delegate", false) ? " delegate" : "") +
                      (kernel.empty() ? "" : " kernel-" + kernel);
      if (n.value("delegate", false)) row.color = svg::kDelegate;
      rows.push_back(row);
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const svg::BarRow& a, const svg::BarRow& b) { return a.values[0] > b.values[0]; });
  if (rows.size() > limit) rows.resize(limit);
  return rows;
}

std::string TimelineChart(const json& report) {
  const json& timeline = Member(Member(report, "op_profile"), "timeline");
  const json& events = Member(timeline, "events");
  if (!events.is_array() || events.empty()) return "";
  std::vector<std::string> lanes;
  absl::flat_hash_map<std::string, int> lane_of;
  auto lane = [&](const std::string& name) {
    auto it = lane_of.find(name);
    if (it != lane_of.end()) return it->second;
    lanes.push_back(name);
    return lane_of[name] = static_cast<int>(lanes.size()) - 1;
  };
  absl::flat_hash_map<std::string, std::string> color_of;
  std::vector<svg::Block> blocks;
  for (const json& e : events) {
    svg::Block b;
    const int inside = e.value("inside_of", -1);
    b.lane =
        inside >= 0
            ? lane("ops inside delegate kernels")
            : lane("thread " + std::to_string(e.value("thread", 0)) +
                   (e.value("subgraph", 0) != 0 ? " (subgraph " + std::to_string(e.value("subgraph", 0)) + ")" : ""));
    b.start = Num(e, "start_us", 0);
    b.duration = Num(e, "duration_us", 0);
    b.label = Str(e, "type");
    const std::string kernel = Str(e, "kernel");
    b.tip = Str(e, "type") + " " + Str(e, "name") + (kernel.empty() ? "" : " [" + kernel + "]") +
            (inside >= 0 ? " (in delegate kernel node " + std::to_string(inside) + ")" : "") + ": starts at " +
            Number(b.start) + " us, " + Number(b.duration) + " us";
    if (e.value("delegate", false)) {
      b.css_class = "block delegate";
      b.color = svg::kDelegate;
    } else {
      if (inside >= 0) b.css_class = "block delegate-op";
      auto c = color_of.find(b.label);
      if (c == color_of.end()) {
        const std::vector<std::string>& palette = svg::Palette();
        // Orange is for delegate kernels.
        std::string color = palette[(color_of.size() * 2 + 0) % palette.size()];
        if (color == svg::kDelegate) color = palette[(color_of.size() * 2 + 3) % palette.size()];
        c = color_of.emplace(b.label, color).first;
      }
      b.color = c->second;
    }
    blocks.push_back(b);
  }
  return svg::Timeline("timeline", "One invoke (profiled run " + Member(timeline, "run").dump() + "), node by node",
                       lanes, blocks, {"time from the start of the invoke (us)"});
}

void BenchmarkPage(const json& r, Page* page) {
  const json& latency = Member(r, "latency");
  const json& regular = Member(latency, "regular");
  const json& warmup = Member(latency, "warmup");
  page->Heading("summary", "Summary");
  page->Table({{"init", Number(Num(latency, "init_us")) + " us"},
               {"first inference", Number(Num(latency, "first_inference_us")) + " us"},
               {"warm-up runs", Number(Num(warmup, "count", 0)) + ", avg " + Number(Num(warmup, "mean_us")) + " us"},
               {"regular runs", Number(Num(regular, "count", 0)) + ", avg " + Number(Num(regular, "mean_us")) +
                                    " us, median " + Number(Num(regular, "median_us")) + " us"}});
  const json& gate = Member(r, "gate");
  if (gate.is_object()) {
    page->body << "<p>Latency gate against " << Escape(Str(gate, "baseline")) << ": <span class=\"verdict "
               << Escape(Str(gate, "verdict")) << "\">" << Escape(Str(gate, "verdict")) << "</span> "
               << Escape(Str(Member(gate, "latency"), "reason")) << "</p>\n";
  }
  page->Heading("latency", "Latency");
  const std::string histogram = LatencyHistogramChart({&regular}, {"regular runs"});
  if (histogram.empty()) {
    page->Note("No regular runs.");
  } else {
    page->Figure(histogram);
  }
  std::vector<svg::Series> order = RunOrderSeries(r, "", svg::kNeutral, svg::kDelegate);
  page->Figure(svg::LineChart("run-order",
                              "Every kept run in run order: warm-up, then regular (drift shows in the median)", order,
                              {"run"}, RunOrderAxis({&warmup, &regular})));
  if (!Member(regular, "samples").value("all_kept", true)) {
    page->Note("A uniform sample of " + Member(Member(regular, "samples"), "kept").dump() + " of " +
               regular["count"].dump() + " regular runs is kept (and drawn); the histogram counts every run.");
  }
  page->body << PercentileTable({&regular}, {"regular runs"});
  page->Heading("ops", "Time per op");
  if (!Member(r, "op_profile").is_object()) {
    page->Note("No op profile in this report: run benchmark_model with --enable_op_profiling.");
  } else {
    const std::vector<svg::BarRow> rows = OpRows(r, 40);
    page->Figure(svg::BarChart("op-time", "Average time per call, largest first (delegate kernels in orange)", rows,
                               {"avg us"}, {svg::kNeutral}, {"microseconds per call"}));
    const std::string timeline = TimelineChart(r);
    if (timeline.empty()) {
      page->Note("No timeline in this report's op profile.");
    } else {
      page->Figure(timeline);
      page->Note(
          "Times are the op observer's whole microseconds; ops a delegate reported run inside its kernel "
          "(their own lanes). Intra-op threads work inside a node and are not drawn apart.");
    }
  }
  page->Heading("memory", "Memory");
  const json& memory = Member(r, "memory");
  std::vector<svg::BarRow> rows;
  std::vector<std::pair<std::string, std::string>> table;
  for (const char* key : {"model_file_bytes", "weights_bytes", "arena_bytes", "dynamic_tensor_bytes", "rss_start_bytes",
                          "rss_after_init_bytes", "rss_end_bytes", "max_rss_end_bytes", "peak_rss_bytes"}) {
    const double v = Num(memory, key);
    if (std::isnan(v)) continue;
    rows.push_back({key, {v / (1024.0 * 1024.0)}, Bytes(v)});
    table.emplace_back(key, Bytes(v) + " (" + Number(v) + " bytes)");
  }
  page->Figure(svg::BarChart("memory", "Memory figures", rows, {"MB"}, {svg::Palette()[2]}, {"MB"}));
  page->Table(table);
}

// --- inference_diff --------------------------------------------------------------------------------

// An output's or layer's error histogram: quantization steps for quantized tensors, else |diff| by powers
// of two.
std::string ErrorHistogramChart(const json& entry, const std::string& id, const std::string& title) {
  const json& quantized = Member(entry, "quantized");
  if (quantized.is_object()) {
    const json& h = Member(quantized, "step_histogram");
    std::vector<svg::BarRow> rows;
    for (const char* key : {"0", "1", "2", ">2"}) rows.push_back({std::string(key) + " steps", {Num(h, key, 0)}, ""});
    return svg::BarChart(id, title + ": elements by quantization steps from the reference", rows, {"elements"},
                         {svg::kNeutral}, {"elements (all runs)"});
  }
  const json& h = Member(entry, "error_histogram");
  if (!h.is_object()) return "";
  const json& log2 = Member(h, "log2");
  const json& count = Member(h, "count");
  std::vector<double> edges, counts;
  int previous = 0;
  for (size_t i = 0; i < log2.size() && i < count.size(); ++i) {
    const int e = log2[i].get<int>();
    if (edges.empty()) {
      edges.push_back(std::ldexp(1.0, e));
    } else {
      for (int gap = previous + 1; gap < e; ++gap) {  // empty powers of two between
        counts.push_back(0);
        edges.push_back(std::ldexp(1.0, gap + 1));
      }
    }
    counts.push_back(count[i].get<double>());
    edges.push_back(std::ldexp(1.0, e + 1));
    previous = e;
  }
  if (counts.empty()) return "";
  svg::Axis x{"|test - reference| (raw units, log scale)", true};
  return svg::Histogram(id, title + ": elements by error, powers of two", edges, {counts}, {"elements"},
                        {svg::kNeutral}, x, {"elements (all runs)"});
}

void InferenceDiffPage(const json& r, Page* page) {
  page->Heading("summary", "Summary");
  const std::string verdict = Str(r, "verdict", "NONE");
  page->body << "<p>Verdict: <span class=\"verdict " << Escape(verdict) << "\">" << Escape(verdict) << "</span> "
             << Escape(Str(r, "failure")) << "</p>\n";
  page->Table({{"runs", Member(r, "num_runs").dump() + " (" + Member(r, "invocations_per_run").dump() +
                            " invocations each), seed " + Member(r, "seed").dump()},
               {"reference latency", Number(Num(Member(Member(r, "reference"), "latency"), "mean_us")) + " us avg"},
               {"test latency", Number(Num(Member(Member(r, "test"), "latency"), "mean_us")) + " us avg"}});
  page->Heading("outputs", "Outputs");
  std::ostringstream table;
  table << "<table class=\"outputs\"><tr><th>output</th><th>type</th><th>avg_error</th><th>max_abs_error</th>"
        << "<th>max relative</th><th>cosine</th><th>breach</th></tr>";
  for (const json& o : Member(r, "outputs")) {
    table << "<tr><td>" << Escape(std::to_string(o.value("index", 0)) + " " + Str(o, "name")) << "</td><td>"
          << Escape(Str(o, "type")) << "</td><td class=\"num\">" << Number(Num(o, "avg_error"))
          << "</td><td class=\"num\">" << Number(Num(o, "max_abs_error")) << "</td><td class=\"num\">"
          << Number(Num(o, "max_relative_error")) << "</td><td class=\"num\">" << Number(Num(o, "cosine_similarity"))
          << "</td><td>" << Escape(Str(o, "breach", Str(o, "mismatch"))) << "</td></tr>";
  }
  table << "</table>\n";
  page->body << table.str();
  for (const json& o : Member(r, "outputs")) {
    const std::string chart =
        ErrorHistogramChart(o, "error-histogram-" + std::to_string(o.value("index", 0)),
                            "OutputDiff[" + std::to_string(o.value("index", 0)) + "] '" + Str(o, "name") + "'");
    if (chart.empty()) {
      const std::string label = "OutputDiff[" + std::to_string(o.value("index", 0)) + "]: ";
      page->Note(o.contains("mismatch") ? label + "not compared: " + Str(o, "mismatch")
                 : !o.contains("error_histogram") && !o.contains("quantized")
                     ? label + "no error histogram in this report (made by an older build)"
                     : label + "every element equal to the reference's");
    } else {
      page->Figure(chart);
    }
  }
  page->Heading("layerwise", "Layer by layer");
  const json& layerwise = Member(r, "layerwise");
  if (!layerwise.is_object()) {
    page->Note("Not in this report: run inference_diff with --layerwise for the error along the graph.");
    return;
  }
  svg::Series max_rel{"max relative error", svg::kNeutral}, mean_rel{"mean relative error", svg::Palette()[2]};
  svg::Series breach{"beyond its threshold", svg::kBad};
  breach.line = false;
  breach.point_class = "point breach";
  const json& tensors = Member(layerwise, "tensors");
  for (size_t l = 0; l < tensors.size(); ++l) {
    const json& t = tensors[l];
    const double x = static_cast<double>(l);
    const std::string tip = "layer " + std::to_string(l) + ": op " + std::to_string(t.value("node", -1)) + " " +
                            Str(t, "op") + " -> " + Str(t, "name");
    max_rel.x.push_back(x);
    max_rel.y.push_back(Num(t, "max_relative_error", 0));
    max_rel.tips.push_back(tip + ", max relative " + Number(Num(t, "max_relative_error", 0)));
    mean_rel.x.push_back(x);
    mean_rel.y.push_back(Num(t, "mean_relative_error", 0));
    mean_rel.tips.push_back(tip + ", mean relative " + Number(Num(t, "mean_relative_error", 0)));
    if (t.contains("breach") && t["breach"].is_string()) {
      breach.x.push_back(x);
      breach.y.push_back(Num(t, "max_relative_error", 0));
      breach.tips.push_back(tip + ": " + Str(t, "breach"));
    }
  }
  max_rel.point_class = "point layer";
  mean_rel.point_class = "point layer-mean";
  std::vector<svg::Series> series = {max_rel, mean_rel};
  const json& first = Member(layerwise, "first_divergence");
  if (first.is_object()) {
    const double l = first.value("layer", 0);
    svg::Series marker{"first diverging op", svg::kBad};
    marker.points = false;
    marker.x = {l, l};
    marker.y = {1e-12, 1.0};
    marker.dashed = true;
    series.push_back(marker);
  }
  if (!breach.x.empty()) series.push_back(breach);
  page->Figure(svg::LineChart(
      "layerwise", "Error along the graph, in execution order (relative to the reference's largest magnitude)", series,
      {"layer (tensor in execution order)"}, {"relative error (log; 0 at the floor)", true}));
  if (first.is_object()) {
    page->Note((first.value("breach", false) ? "First diverging op: " : "First op that differs: ") + Str(first, "op") +
               " (node " + std::to_string(first.value("node", -1)) + "), layer " +
               std::to_string(first.value("layer", 0)) + ", tensor " + std::to_string(first.value("tensor", -1)) + ".");
  } else {
    page->Note("No tensor exceeds a threshold (or differs, without thresholds).");
  }
}

// --- imagenet_eval ------------------------------------------------------------------------------------

svg::Series TopKSeries(const json& accuracy, const std::string& name, const std::string& color) {
  svg::Series s{name, color};
  s.point_class = "point topk";
  for (size_t k = 0; k < accuracy.size(); ++k) {
    s.x.push_back(static_cast<double>(k + 1));
    s.y.push_back(accuracy[k].get<double>() * 100);
    s.tips.push_back(name + " top-" + std::to_string(k + 1) + ": " + Percent(accuracy[k].get<double>()));
  }
  return s;
}

std::string ImagePath(const std::string& root, const std::string& relative, const std::string& as_recorded) {
  if (root.empty()) return as_recorded;
  return root + (root.back() == '/' ? "" : "/") + relative;
}

void ImagenetPage(const json& r, const PageOptions& options, Page* page) {
  const json& accuracy = Member(r, "topk_accuracy");
  page->Heading("summary", "Summary");
  page->Table({{"images evaluated", Member(r, "num_evaluation_runs").dump()},
               {"top-1", accuracy.size() > 0 ? Percent(accuracy[0].get<double>()) : "-"},
               {"top-5", accuracy.size() > 4 ? Percent(accuracy[4].get<double>()) : "-"},
               {"skipped", std::to_string(Member(r, "skipped").size())}});
  page->Heading("topk", "Top-K accuracy");
  std::vector<svg::Series> series = {TopKSeries(accuracy, "this run", svg::kNeutral)};
  const json& reference = Member(r, "reference");
  if (reference.is_object())
    series.push_back(TopKSeries(Member(reference, "topk_accuracy"), "reference kernels", svg::kDelegate));
  page->Figure(svg::LineChart("topk", "Top-K accuracy", series, {"K", false, 1, 10}, {"accuracy (%)", false, 0, 100}));
  page->Heading("classes", "Per-class accuracy");
  std::vector<std::pair<double, std::string>> classes;
  for (const json& c : Member(r, "per_class")) {
    classes.emplace_back(Num(c, "top1_accuracy", 0) * 100,
                         Str(c, "label") + " (" + std::to_string(c.value("images", 0)) + ")");
  }
  std::stable_sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<svg::BarRow> rows;
  for (size_t i = 0; i < classes.size() && i < 40; ++i) rows.push_back({classes[i].second, {classes[i].first}, ""});
  if (classes.size() > 40) {
    svg::Series sorted{"top-1 by class", svg::kNeutral};
    sorted.point_class = "point class";
    for (size_t i = 0; i < classes.size(); ++i) {
      sorted.x.push_back(static_cast<double>(i + 1));
      sorted.y.push_back(classes[i].first);
      sorted.tips.push_back(classes[i].second + ": " + Number(classes[i].first) + "%");
    }
    page->Figure(svg::LineChart("class-accuracy-sorted", "Top-1 accuracy of every class, sorted", {sorted},
                                {"class (sorted by accuracy)"}, {"top-1 accuracy (%)", false, 0, 100}));
  }
  page->Figure(svg::BarChart(
      "class-accuracy",
      classes.size() > 40 ? "The 40 classes with the lowest top-1 accuracy" : "Top-1 accuracy per class, lowest first",
      rows, {"top-1 %"}, {svg::kNeutral}, {"top-1 accuracy (%)", false, 0, 100}));
  page->Heading("worst", "Worst misclassified images");
  const json& worst = Member(r, "worst_misclassified");
  if (!worst.is_array() || worst.empty()) {
    page->Note("Every evaluated image had its label ranked first.");
    return;
  }
  page->Note("Label missed from the top 10 first, then ranked lower, then the more confident the wrong top-1.");
  page->body << "<div class=\"grid-images worst\">";
  for (const json& w : worst) {
    const std::string path = ImagePath(options.images_root, Str(w, "file"), Str(w, "path"));
    StatusOr<std::string> thumbnail = ThumbnailDataUri(path, options.thumbnail_px);
    const int rank = w.value("first_hit_rank", 0);
    page->body << "<figure class=\"thumb\">";
    if (thumbnail.ok()) {
      page->body << "<img class=\"thumbnail\" alt=\"" << Escape(Str(w, "file")) << "\" src=\"" << thumbnail.value()
                 << "\">";
    } else {
      page->body << "<div class=\"missing\">" << Escape(thumbnail.status().message()) << "</div>";
    }
    page->body << "<figcaption><b>" << Escape(Str(w, "file")) << "</b><br>true: " << Escape(Str(w, "label"))
               << "<br>predicted: " << Escape(Str(w, "top1_label")) << " (" << Number(Num(w, "top1_score")) << ")<br>"
               << (rank == 0 ? "label not in the top 10" : "label ranked " + std::to_string(rank))
               << "</figcaption></figure>";
  }
  page->body << "</div>\n";
}

// --- coco_eval ------------------------------------------------------------------------------------------

std::vector<svg::Series> PrSeries(const json& curves, const std::string& prefix, bool only_first_and_mean) {
  std::vector<svg::Series> series;
  const json& thresholds = Member(curves, "iou_thresholds");
  const json& recall = Member(curves, "recall");
  const json& precision = Member(curves, "precision");
  for (size_t t = 0; t < precision.size() && t < thresholds.size(); ++t) {
    if (only_first_and_mean && t != 0 && t != 5) continue;
    svg::Series s{prefix + "IoU " + Number(thresholds[t].get<double>()), svg::Palette()[t % svg::Palette().size()]};
    s.points = false;
    for (size_t k = 0; k < recall.size() && k < precision[t].size(); ++k) {
      const double p = precision[t][k].get<double>();
      if (p < 0) continue;
      s.x.push_back(recall[k].get<double>());
      s.y.push_back(p);
    }
    series.push_back(s);
  }
  return series;
}

void CocoPage(const json& r, const PageOptions& options, Page* page) {
  page->Heading("summary", "Summary");
  const json& coco = Member(r, "coco");
  const json& tflite = Member(r, "tflite");
  std::vector<std::pair<std::string, std::string>> rows = {{"images", Member(r, "num_images").dump()},
                                                           {"detections", Member(r, "num_detections").dump()}};
  if (coco.is_object()) {
    rows.emplace_back("COCO AP@[.5:.95]", Number(Num(coco, "AP")));
    rows.emplace_back("COCO AP50 / AP75", Number(Num(coco, "AP50")) + " / " + Number(Num(coco, "AP75")));
    rows.emplace_back("COCO AR100", Number(Num(coco, "AR100")));
  }
  if (tflite.is_object()) rows.emplace_back("TFLite mAP", Number(Num(tflite, "overall_map")));
  page->Table(rows);
  page->Heading("pr", "Precision and recall");
  const json& curves = Member(r, "pr_curves");
  if (curves.is_object()) {
    std::vector<svg::Series> series = PrSeries(curves, "", false);
    for (svg::Series& s : series) s.point_class = "point pr";
    page->Figure(svg::LineChart("pr-curves", "Precision-recall per IoU threshold (COCO, averaged over classes)", series,
                                {"recall", false, 0, 1}, {"precision", false, 0, 1}));
  } else {
    page->Note("No precision-recall curves: they come with COCO's metric (--metric=coco or both, COCO JSON).");
  }
  page->Heading("classes", "Per-class AP");
  std::vector<svg::BarRow> classes;
  for (const json& c : Member(r, "per_class")) {
    const double a = Num(c, "coco_ap"), t = Num(c, "tflite_ap");
    if (std::isnan(a) && std::isnan(t)) continue;
    classes.push_back({Str(c, "name"), {a, t}, ""});
  }
  std::stable_sort(classes.begin(), classes.end(), [](const svg::BarRow& a, const svg::BarRow& b) {
    const double x = std::isnan(a.values[0]) ? a.values[1] : a.values[0];
    const double y = std::isnan(b.values[0]) ? b.values[1] : b.values[0];
    return x > y;
  });
  if (classes.size() > 60) classes.resize(60);
  page->Figure(svg::BarChart("class-ap", "AP per class (classes with ground truth), highest first", classes,
                             {"COCO AP@[.5:.95]", "TFLite AP"}, {svg::kNeutral, svg::kDelegate}, {"AP", false, 0, 1}));
  page->Heading("examples", "Images with the most errors");
  const json& examples = Member(r, "examples");
  if (!examples.is_array() || examples.empty()) {
    page->Note("No images in this report.");
    return;
  }
  page->body << "<p class=\"key\"><span style=\"background:#2a9d4b\">ground truth</span><span "
                "style=\"background:#ffc800;color:#222\">"
             << "missed ground truth</span><span style=\"background:#4c78a8\">detection that hit</span>"
             << "<span style=\"background:#d1495b\">false positive</span> (detections of score &gt;= 0.5; a hit "
             << "overlaps ground truth of its class by IoU &gt;= 0.5)</p>\n<div class=\"examples\">";
  const std::string root =
      options.images_root.empty() ? Str(Member(r, "details"), "ground_truth_images_path") : options.images_root;
  for (const json& e : examples) {
    std::vector<DrawnBox> boxes;
    auto add = [&](const json& b, bool truth) {
      const json& box = Member(b, "box");
      if (!box.is_array() || box.size() != 4) return;
      DrawnBox d;
      d.ymin = box[0].get<float>();
      d.xmin = box[1].get<float>();
      d.ymax = box[2].get<float>();
      d.xmax = box[3].get<float>();
      const bool hit = b.value("hit", false);
      d.kind =
          truth ? (hit ? DrawnBox::kTruth : DrawnBox::kMissedTruth) : (hit ? DrawnBox::kHit : DrawnBox::kFalsePositive);
      d.label = Str(b, "name") + (truth ? "" : " " + Number(Num(b, "score")));
      boxes.push_back(d);
    };
    for (const json& b : Member(e, "ground_truth")) add(b, true);
    for (const json& b : Member(e, "detections")) add(b, false);
    const std::string path = root + (root.empty() || root.back() == '/' ? "" : "/") + Str(e, "file_name");
    StatusOr<std::string> drawn = DrawBoxesDataUri(path, boxes, options.example_px);
    page->body << "<figure class=\"example\">";
    if (drawn.ok()) {
      page->body << "<img class=\"drawn\" alt=\"" << Escape(Str(e, "file_name")) << "\" src=\"" << drawn.value()
                 << "\">";
    } else {
      page->body << "<div class=\"missing\">" << Escape(drawn.status().message()) << "</div>";
    }
    page->body << "<figcaption>" << Escape(Str(e, "file_name")) << " (image " << Member(e, "image_id").dump()
               << "): " << Member(e, "missed").dump() << " missed, " << Member(e, "false_positives").dump()
               << " false positives</figcaption></figure>\n";
  }
  page->body << "</div>\n";
}

std::string ToolTitle(const std::string& tool) {
  if (tool == "benchmark_model") return "benchmark_model: latency";
  if (tool == "inference_diff") return "inference_diff: outputs against the reference";
  if (tool == "imagenet_eval") return "imagenet_eval: classification accuracy";
  if (tool == "coco_eval") return "coco_eval: detection accuracy";
  return tool;
}

// --- comparison ------------------------------------------------------------------------------------------

void ComparisonCharts(const json& b, const json& c, const ReportDiff& diff, Page* page) {
  const std::string& tool = diff.tool;
  const std::vector<std::string> names = {"baseline", "current"};
  const std::vector<std::string> colors = {"#9aa7b8", svg::kNeutral};
  if (tool == "benchmark_model") {
    const json& br = Member(Member(b, "latency"), "regular");
    const json& cr = Member(Member(c, "latency"), "regular");
    const std::string h = LatencyHistogramChart({&br, &cr}, names);
    if (!h.empty()) page->Figure(h);
    std::vector<svg::Series> series = RunOrderSeries(b, "baseline ", "#9aa7b8", "#c9b28f");
    for (const svg::Series& s : RunOrderSeries(c, "current ", svg::kNeutral, svg::kDelegate)) series.push_back(s);
    const json& bw = Member(Member(b, "latency"), "warmup");
    const json& cw = Member(Member(c, "latency"), "warmup");
    page->Figure(svg::LineChart("run-order", "Runs in order, both reports", series, {"run"},
                                RunOrderAxis({&bw, &br, &cw, &cr})));
    page->body << PercentileTable({&br, &cr}, names);
    std::vector<svg::BarRow> rows;
    for (const OpDiff& op : diff.ops) {
      if (rows.size() >= 30) break;
      rows.push_back({op.type + " " + op.node, {op.baseline_avg_us, op.current_avg_us}, ""});
    }
    if (!rows.empty()) {
      page->Figure(svg::BarChart("op-time", "Average time per call, by the current run's time", rows, names, colors,
                                 {"microseconds per call"}));
    }
  } else if (tool == "inference_diff") {
    std::vector<svg::BarRow> rows;
    const json& bo = Member(b, "outputs");
    const json& co = Member(c, "outputs");
    for (size_t i = 0; i < co.size(); ++i) {
      const double base = i < bo.size() ? Num(bo[i], "max_abs_error") : NAN;
      rows.push_back({"OutputDiff[" + std::to_string(i) + "] max_abs_error", {base, Num(co[i], "max_abs_error")}, ""});
      const double base_avg = i < bo.size() ? Num(bo[i], "avg_error") : NAN;
      rows.push_back({"OutputDiff[" + std::to_string(i) + "] avg_error", {base_avg, Num(co[i], "avg_error")}, ""});
    }
    page->Figure(svg::BarChart("output-errors", "Output errors, both reports", rows, names, colors, {"raw units"}));
    std::vector<svg::Series> series;
    for (int k = 0; k < 2; ++k) {
      const json& tensors = Member(Member(k == 0 ? b : c, "layerwise"), "tensors");
      svg::Series s{names[k] + " max relative error", colors[k]};
      s.point_class = "point layer";
      for (size_t l = 0; l < tensors.size(); ++l) {
        s.x.push_back(static_cast<double>(l));
        s.y.push_back(Num(tensors[l], "max_relative_error", 0));
      }
      if (!s.x.empty()) series.push_back(s);
    }
    if (!series.empty()) {
      page->Figure(svg::LineChart("layerwise", "Error along the graph, both reports", series, {"layer"},
                                  {"relative error (log)", true}));
    }
  } else if (tool == "imagenet_eval") {
    page->Figure(svg::LineChart("topk", "Top-K accuracy, both reports",
                                {TopKSeries(Member(b, "topk_accuracy"), "baseline", colors[0]),
                                 TopKSeries(Member(c, "topk_accuracy"), "current", colors[1])},
                                {"K", false, 1, 10}, {"accuracy (%)", false, 0, 100}));
    std::map<std::string, double> base;
    for (const json& k : Member(b, "per_class")) base[Str(k, "label")] = Num(k, "top1_accuracy", 0) * 100;
    std::vector<svg::BarRow> rows;
    for (const json& k : Member(c, "per_class")) {
      auto it = base.find(Str(k, "label"));
      rows.push_back({Str(k, "label"), {it == base.end() ? NAN : it->second, Num(k, "top1_accuracy", 0) * 100}, ""});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const svg::BarRow& x, const svg::BarRow& y) {
      const double dx = std::isnan(x.values[0]) ? 0 : x.values[1] - x.values[0];
      const double dy = std::isnan(y.values[0]) ? 0 : y.values[1] - y.values[0];
      return dx < dy;
    });
    if (rows.size() > 30) rows.resize(30);
    page->Figure(svg::BarChart("class-accuracy", "Top-1 per class, the largest drops first", rows, names, colors,
                               {"top-1 accuracy (%)", false, 0, 100}));
  } else if (tool == "coco_eval") {
    std::vector<svg::Series> series = PrSeries(Member(b, "pr_curves"), "baseline ", true);
    for (svg::Series& s : series) {
      s.dashed = true;
      s.color = "#9aa7b8";
    }
    for (const svg::Series& s : PrSeries(Member(c, "pr_curves"), "current ", true)) series.push_back(s);
    if (!series.empty()) {
      page->Figure(svg::LineChart("pr-curves", "Precision-recall at IoU 0.5 and 0.75, both reports", series,
                                  {"recall", false, 0, 1}, {"precision", false, 0, 1}));
    }
    std::map<std::string, double> base;
    for (const json& k : Member(b, "per_class")) {
      base[Str(k, "name")] = std::isnan(Num(k, "coco_ap")) ? Num(k, "tflite_ap") : Num(k, "coco_ap");
    }
    std::vector<svg::BarRow> rows;
    for (const json& k : Member(c, "per_class")) {
      const double now = std::isnan(Num(k, "coco_ap")) ? Num(k, "tflite_ap") : Num(k, "coco_ap");
      if (std::isnan(now)) continue;
      auto it = base.find(Str(k, "name"));
      rows.push_back({Str(k, "name"), {it == base.end() ? NAN : it->second, now}, ""});
    }
    if (rows.size() > 60) rows.resize(60);
    page->Figure(svg::BarChart("class-ap", "AP per class, both reports", rows, names, colors, {"AP", false, 0, 1}));
  }
}

}  // namespace

StatusOr<std::string> ReportPage(const json& report, const PageOptions& options) {
  if (!report.is_object() || !report.contains("tool") || !report["tool"].is_string()) {
    return InvalidInputError(options.report_name + ": not a Touchstone report (no \"tool\")");
  }
  const std::string tool = report["tool"].get<std::string>();
  Page page;
  page.body << "<section class=\"envelope\">";
  EnvelopeSection(report, &page);
  page.body << "</section>\n";
  if (tool == "benchmark_model") {
    BenchmarkPage(report, &page);
  } else if (tool == "inference_diff") {
    InferenceDiffPage(report, &page);
  } else if (tool == "imagenet_eval") {
    ImagenetPage(report, options, &page);
  } else if (tool == "coco_eval") {
    CocoPage(report, options, &page);
  } else {
    return InvalidInputError(options.report_name + ": a report of " + tool + ", which report_view does not draw");
  }
  return page.Finish(ToolTitle(tool), options.report_name);
}

StatusOr<std::string> ComparisonPage(const json& baseline, const json& current, const PageOptions& options,
                                     const ReportDiffConfig& config) {
  TS_ASSIGN_OR_RETURN(const ReportDiff& d, DiffReports(baseline, current, config));
  Page page;
  page.Heading("configuration", "Configuration");
  if (d.config_differences.empty()) {
    page.Note("The same configuration.");
  } else {
    page.body << "<ul class=\"differences\">";
    for (const std::string& line : d.config_differences) page.body << "<li>" << Escape(line) << "</li>";
    page.body << "</ul>\n";
  }
  page.body << "<div class=\"side-by-side\"><h3>baseline</h3>";
  EnvelopeSection(baseline, &page);
  page.body << "<h3>current</h3>";
  EnvelopeSection(current, &page);
  page.body << "</div>\n";
  page.Heading("gate", "Gate");
  page.body << "<p><span class=\"verdict " << GateVerdictName(d.verdict) << "\">" << GateVerdictName(d.verdict)
            << "</span> (exit code " << GateExitCode(d.verdict) << ")</p><pre class=\"gate\">";
  for (const std::string& line : d.gate_lines) page.body << Escape(line) << "\n";
  page.body << "</pre>\n";
  page.Heading("charts", "Both runs");
  ComparisonCharts(baseline, current, d, &page);
  page.Heading("figures", "Every figure both reports hold");
  page.body
      << "<table "
         "class=\"figures\"><tr><th>figure</th><th>baseline</th><th>current</th><th>change</th><th>verdict</th></tr>";
  for (const FigureDiff& f : d.figures) {
    page.body << "<tr><td>" << Escape(f.path) << "</td><td class=\"num\">" << Number(f.baseline)
              << "</td><td class=\"num\">" << Number(f.current) << "</td><td class=\"num\">" << Escape(f.change)
              << "</td><td class=\"" << Escape(f.verdict == "-" ? "" : f.verdict) << "\">" << Escape(f.verdict)
              << "</td></tr>";
  }
  page.body << "</table>\n";
  return page.Finish("Comparison: " + ToolTitle(d.tool),
                     options.baseline_name + " (baseline) against " + options.report_name + " (current)");
}

}  // namespace touchstone
