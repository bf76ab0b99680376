#include "evaluation/benchmark_report.h"

#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string Mb(int64_t bytes) { return fmt::format("{:.2f} MB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

ordered_json NodeJson(const OpProfileNode& node, int64_t runs) {
  ordered_json j;
  j["node_index"] = node.node_index;
  j["type"] = node.type;
  j["name"] = node.name;
  j["delegate"] = node.delegate;
  j["kernel"] = node.kernel;
  j["run_order"] = node.run_order;
  j["first_us"] = node.us.first_us();
  j["avg_us"] = JsonNumber(node.us.mean_us());
  j["total_us"] = node.us.sum_us();
  j["times_called"] = node.times_called;
  j["times_called_per_run"] = runs > 0 ? node.times_called / runs : 0;
  ordered_json inside = ordered_json::array();
  for (const OpProfileNode& op : node.inside) inside.push_back(NodeJson(op, runs));
  j["inside"] = inside;
  return j;
}

ordered_json GateJson(const BenchmarkReport::Gate& gate) {
  ordered_json j;
  j["baseline"] = gate.baseline_path;
  j["baseline_sha256"] = gate.baseline_sha256;
  j["config_change"] = gate.config_change;
  j["verdict"] = GateVerdictName(gate.verdict);
  j["exit_code"] = GateExitCode(gate.verdict);
  const LatencyGateResult& l = gate.latency;
  ordered_json lat;
  lat["verdict"] = GateVerdictName(l.verdict);
  lat["statistic"] = "ratio of medians (current / baseline), percentile bootstrap";
  lat["baseline_median_us"] = JsonNumber(l.baseline_median_us);
  lat["current_median_us"] = JsonNumber(l.current_median_us);
  lat["ratio"] = JsonNumber(l.ratio);
  lat["ci_low"] = JsonNumber(l.ci_low);
  lat["ci_high"] = JsonNumber(l.ci_high);
  lat["confidence"] = l.confidence;
  lat["resamples"] = l.resamples;
  lat["max_regression_pct"] = l.max_regression_pct;
  lat["baseline_count"] = l.baseline_count;
  lat["current_count"] = l.current_count;
  lat["baseline_bootstrapped"] = l.baseline_bootstrapped;
  lat["current_bootstrapped"] = l.current_bootstrapped;
  lat["reason"] = l.reason;
  j["latency"] = lat;
  ordered_json memory = ordered_json::array();
  for (const MemoryGateResult& m : gate.memory) {
    ordered_json e;
    e["figure"] = m.figure;
    e["verdict"] = GateVerdictName(m.verdict);
    e["baseline_bytes"] = m.baseline_bytes;
    e["current_bytes"] = m.current_bytes;
    e["ratio"] = JsonNumber(m.ratio);
    e["max_regression_pct"] = m.max_regression_pct;
    e["reason"] = m.reason;
    memory.push_back(e);
  }
  j["memory"] = memory;
  return j;
}

}  // namespace

// TFLite's line streams the averages as doubles: six significant digits ({:g}).
std::string FormatInferenceTimings(const BenchmarkReport& report) {
  return fmt::format(
      "Inference timings in us: Init: {}, First inference: {}, Warmup (avg): {:g}, Inference (avg): {:g}",
      report.init_us, report.warmup.first_us(), report.warmup.mean_us(), report.regular.mean_us());
}

std::string FormatInitParts(const BenchmarkReport& report) {
  const BenchmarkReport::InitParts& p = report.init_parts;
  return fmt::format("Init parts in us: load {}, build {}, prepare {}, allocate {}", p.load_us, p.build_us,
                     p.prepare_us, p.allocate_us);
}

std::string FormatPercentiles(const BenchmarkReport& report) {
  const LatencySummary s = report.regular.Summary();
  std::string text = fmt::format(
      "Inference latency in us ({} runs): min={:.3f} avg={:.3f} std={:.3f} p5={:.3f} p50={:.3f} p90={:.3f} "
      "p95={:.3f} p99={:.3f} max={:.3f}",
      s.count, s.min_fine_us, s.mean_fine_us, s.stddev_fine_us, s.p5_fine_us, s.p50_fine_us, s.p90_fine_us,
      s.p95_fine_us, s.p99_fine_us, s.max_fine_us);
  if (!s.percentiles_exact) text += " (percentiles from a histogram of every run, within 0.4%)";
  return text;
}

std::string FormatSamples(const BenchmarkReport& report) {
  std::string line = "Inference latency samples in us";
  if (!report.regular.all_kept()) {
    line += fmt::format(" (a uniform sample of {} of {} runs; --report_all_latency_samples keeps every one)",
                        report.regular.kept().size(), report.regular.count());
  }
  line += ":";
  for (int64_t ns : report.regular.samples_ns()) fmt::format_to(std::back_inserter(line), " {:.3f}", ns / 1000.0);
  return line;
}

std::vector<std::string> FormatTfliteMemoryLines(const BenchmarkReport& report) {
  const BenchmarkReport::Memory& m = report.memory;
  std::vector<std::string> lines;
  if (!m.os_figures) return lines;
  lines.push_back(
      "Note: as the benchmark tool itself affects memory footprint, the following is only APPROXIMATE to the "
      "actual memory footprint of the model at runtime. Take the information at your discretion.");
  // TFLite's figures on Linux: the growth of the resident high-water mark (ru_maxrss, in KB) / 1024.
  const double init_mb = static_cast<double>((m.max_rss_after_init_bytes - m.max_rss_start_bytes) / 1024) / 1024.0;
  const double overall_mb = static_cast<double>((m.max_rss_end_bytes - m.max_rss_start_bytes) / 1024) / 1024.0;
  lines.push_back(fmt::format("Memory footprint delta from the start of the tool (MB): init={:g} overall={:g}", init_mb,
                              overall_mb));
  if (m.peak_sampled && m.peak_rss_bytes > 0) {
    // TFLite's figure is a float.
    lines.push_back(fmt::format("Overall peak memory footprint (MB) via periodic monitoring: {:g}",
                                static_cast<float>(static_cast<double>(m.peak_rss_bytes) / (1024.0 * 1024.0))));
  }
  return lines;
}

std::vector<std::string> FormatMemoryLines(const BenchmarkReport& report) {
  const BenchmarkReport::Memory& m = report.memory;
  std::vector<std::string> lines;
  lines.push_back(fmt::format(
      "Memory, model file: {} ({} bytes, mapped read-only); of which weights (constant buffers): {} ({} bytes)",
      Mb(m.model_file_bytes), m.model_file_bytes, Mb(m.weights_bytes), m.weights_bytes));
  lines.push_back(
      fmt::format("Memory, weights read only from a kernel's copy (their pages of the model file unmapped): {} ({} bytes)",
                  Mb(m.weights_released_bytes), m.weights_released_bytes));
  if (m.prepared_weights_released_bytes > 0) {
    lines.push_back(fmt::format(
        "Memory, weights expanded at Prepare (float16, sparse) given back once kernels copied them: {} ({} bytes)",
        Mb(m.prepared_weights_released_bytes), m.prepared_weights_released_bytes));
  }
  lines.push_back(fmt::format("Memory, tensor arena (planned at AllocateTensors, all subgraphs): {} ({} bytes)",
                              Mb(m.arena_bytes), m.arena_bytes));
  lines.push_back(
      fmt::format("Memory, tensors allocated outside the arena (dynamic tensors, variables) at the end: {} ({} bytes)",
                  Mb(m.dynamic_tensor_bytes), m.dynamic_tensor_bytes));
  if (m.os_figures) {
    lines.push_back(fmt::format("Memory, process RSS now (resident, /proc/self/statm): start {}, after init {}, end {}",
                                Mb(m.rss_start_bytes), Mb(m.rss_after_init_bytes), Mb(m.rss_end_bytes)));
    lines.push_back(fmt::format(
        "Memory, process RSS high-water mark (getrusage ru_maxrss, never decreases): start {}, after init {}, end {}",
        Mb(m.max_rss_start_bytes), Mb(m.max_rss_after_init_bytes), Mb(m.max_rss_end_bytes)));
  }
  if (m.peak_sampled) {
    lines.push_back(fmt::format("Memory, peak process RSS sampled every {} ms on its own thread: {} ({} samples)",
                                m.sample_interval_ms, Mb(m.peak_rss_bytes), m.samples));
  }
  return lines;
}

std::string ReportToJson(const BenchmarkReport& r) {
  ordered_json j = EnvelopeJson(r.envelope);
  j["benchmark_name"] = r.benchmark_name;
  j["output_prefix"] = r.output_prefix;

  const BenchmarkReport::Configuration& c = r.config;
  ordered_json run;
  run["subgraphs"] = c.subgraphs;
  run["signature"] = c.signature;
  run["subgraph"] = c.subgraph;
  run["warmup_runs"] = c.warmup_runs;
  run["warmup_min_secs"] = c.warmup_min_secs;
  run["num_runs"] = c.num_runs;
  run["min_secs"] = c.min_secs;
  run["max_secs"] = c.max_secs;
  run["run_delay"] = c.run_delay;
  run["run_frequency"] = c.run_frequency;
  run["dry_run"] = c.dry_run;
  run["execution_plan_nodes"] = c.execution_plan_nodes;
  run["delegate_kernels"] = c.delegate_kernels;
  run["fully_delegated"] = c.fully_delegated;
  run["input_bytes"] = c.input_bytes;
  j["run"] = run;

  ordered_json kernels;
  kernels["optimized"] = r.kernels.optimized;
  kernels["reference"] = r.kernels.reference;
  kernels["reference_unlisted"] = r.kernels.reference_unlisted;
  kernels["delegated"] = r.kernels.delegated;
  kernels["prepare"] = r.kernels.prepare;
  kernels["at_invoke"] = r.kernels.at_invoke;
  ordered_json nodes = ordered_json::array();
  for (const NodeKernel& n : r.kernels.nodes) {
    nodes.push_back({{"subgraph", n.subgraph},
                     {"node", n.node},
                     {"op", n.op},
                     {"kernel", n.kernel},
                     {"configuration", n.configuration},
                     {"reference_reason", n.reference_reason}});
  }
  kernels["nodes"] = nodes;
  j["kernels"] = kernels;

  ordered_json latency;
  latency["init_us"] = r.init_us;
  latency["init_parts_us"] = {{"load", r.init_parts.load_us},
                              {"build", r.init_parts.build_us},
                              {"prepare", r.init_parts.prepare_us},
                              {"allocate", r.init_parts.allocate_us}};
  latency["first_inference_us"] = r.warmup.empty() ? 0.0 : static_cast<double>(r.warmup.first_ns()) / 1000.0;
  latency["warmup"] = LatencyStatsJson(r.warmup, true);
  latency["regular"] = LatencyStatsJson(r.regular, true);
  j["latency"] = latency;

  const BenchmarkReport::Memory& m = r.memory;
  ordered_json memory;
  memory["model_file_bytes"] = m.model_file_bytes;
  memory["weights_bytes"] = m.weights_bytes;
  memory["weights_released_bytes"] = m.weights_released_bytes;
  memory["prepared_weights_released_bytes"] = m.prepared_weights_released_bytes;
  memory["arena_bytes"] = m.arena_bytes;
  memory["dynamic_tensor_bytes"] = m.dynamic_tensor_bytes;
  if (m.os_figures) {
    memory["rss_start_bytes"] = m.rss_start_bytes;
    memory["rss_after_init_bytes"] = m.rss_after_init_bytes;
    memory["rss_end_bytes"] = m.rss_end_bytes;
    memory["max_rss_start_bytes"] = m.max_rss_start_bytes;
    memory["max_rss_after_init_bytes"] = m.max_rss_after_init_bytes;
    memory["max_rss_end_bytes"] = m.max_rss_end_bytes;
    memory["tflite_init_footprint_kb"] = (m.max_rss_after_init_bytes - m.max_rss_start_bytes) / 1024;
    memory["tflite_overall_footprint_kb"] = (m.max_rss_end_bytes - m.max_rss_start_bytes) / 1024;
  }
  if (m.peak_sampled) {
    memory["peak_rss_bytes"] = m.peak_rss_bytes;
    memory["peak_sample_interval_ms"] = m.sample_interval_ms;
    memory["peak_samples"] = m.samples;
  }
  j["memory"] = memory;

  if (r.has_op_profile) {
    ordered_json profile;
    profile["runs"] = r.op_profile.runs;
    ordered_json subgraphs = ordered_json::array();
    for (const OpProfileSubgraph& s : r.op_profile.subgraphs) {
      ordered_json e;
      e["index"] = s.index;
      e["name"] = s.name;
      e["run_total"] = LatencyStatsJson(s.run_total_us, false);
      ordered_json nodes = ordered_json::array();
      for (const OpProfileNode& n : s.nodes) nodes.push_back(NodeJson(n, s.run_total_us.count()));
      e["nodes"] = nodes;
      subgraphs.push_back(e);
    }
    profile["subgraphs"] = subgraphs;
    // The last profiled run node by node (report_view draws it).
    ordered_json events = ordered_json::array();
    for (const OpTimelineEvent& e : r.op_profile.timeline) {
      events.push_back({{"subgraph", e.subgraph},
                        {"node_index", e.node_index},
                        {"type", e.type},
                        {"name", e.name},
                        {"kernel", e.kernel},
                        {"delegate", e.delegate},
                        {"inside_of", e.inside_of},
                        {"thread", e.thread},
                        {"start_us", e.start_us},
                        {"duration_us", e.duration_us}});
    }
    profile["timeline"] = {{"run", r.op_profile.runs - 1}, {"events", events}};
    j["op_profile"] = profile;
  } else {
    j["op_profile"] = nullptr;
  }

  j["gate"] = r.gate.requested ? GateJson(r.gate) : ordered_json(nullptr);
  return j.dump(2) + "\n";
}

std::string ResultFileJson(const BenchmarkReport& r) {
  ordered_json j;
  ordered_json latency;
  latency["init_ms"] = static_cast<double>(r.init_us) / 1000.0;
  latency["first_inference_ms"] = static_cast<double>(r.warmup.first_us()) / 1000.0;
  latency["average_warm_up_ms"] = r.warmup.mean_us() / 1000.0;
  latency["avg_ms"] = r.regular.mean_us() / 1000.0;
  latency["min_ms"] = static_cast<double>(r.regular.min_us()) / 1000.0;
  latency["max_ms"] = static_cast<double>(r.regular.max_us()) / 1000.0;
  latency["stddev_ms"] = static_cast<double>(static_cast<int64_t>(r.regular.stddev_us())) / 1000.0;
  latency["median_ms"] = static_cast<double>(r.regular.percentile_us(50)) / 1000.0;
  latency["p5_ms"] = static_cast<double>(r.regular.percentile_us(5)) / 1000.0;
  latency["p95_ms"] = static_cast<double>(r.regular.percentile_us(95)) / 1000.0;
  j["latency_metrics"] = latency;
  const BenchmarkReport::Memory& m = r.memory;
  if (m.os_figures) {
    ordered_json memory;
    memory["init_footprint_kb"] = (m.max_rss_after_init_bytes - m.max_rss_start_bytes) / 1024;
    memory["overall_footprint_kb"] = (m.max_rss_end_bytes - m.max_rss_start_bytes) / 1024;
    if (m.peak_sampled && m.peak_rss_bytes > 0) {
      memory["peak_mem_mb"] = static_cast<double>(m.peak_rss_bytes) / (1024.0 * 1024.0);
    }
    j["memory_metrics"] = memory;
  }
  ordered_json misc;
  misc["model_size_mb"] = static_cast<double>(r.envelope.model.size_bytes) / 1e6;
  misc["num_runs"] = r.regular.count();
  misc["num_warmup_runs"] = r.warmup.count();
  // TFLite's throughput: input bytes consumed per second of inference, in MiB.
  const int64_t sum = r.regular.sum_us();
  misc["model_throughput_in_mb_per_sec"] =
      sum > 0 ? JsonNumber(static_cast<double>(r.config.input_bytes) * static_cast<double>(r.regular.count()) * 1e6 /
                           static_cast<double>(sum) / (1024.0 * 1024.0))
              : ordered_json(0.0);
  j["misc_metrics"] = misc;
  return j.dump(2) + "\n";
}

StatusOr<BaselineReport> ParseReportJson(const std::string& text, const std::string& source) {
  TS_ASSIGN_OR_RETURN(ParsedReport parsed,
                      ParseReport(text, source, kBenchmarkReportSchema, kBenchmarkReportVersion, "--report_json"));
  json& j = parsed.json;
  const ReportEnvelope& envelope = parsed.envelope;
  BaselineReport baseline;
  baseline.envelope = envelope;
  const json* regular = nullptr;
  if (j.contains("latency") && j["latency"].is_object() && j["latency"].contains("regular") &&
      j["latency"]["regular"].is_object()) {
    regular = &j["latency"]["regular"];
  }
  if (regular == nullptr || !regular->contains("samples") || !(*regular)["samples"].is_object() ||
      !(*regular)["samples"].contains("latency_us") || !(*regular)["samples"]["latency_us"].is_array()) {
    return InvalidInputError(source + ": has no latency.regular.samples.latency_us list");
  }
  for (const json& s : (*regular)["samples"]["latency_us"]) {
    if (!s.is_number()) return InvalidInputError(source + ": latency.regular.samples.latency_us holds a non-number");
    const double v = s.get<double>();
    if (!(v >= 0.0) || v > 9.0e15) {
      return InvalidInputError(source + ": latency.regular.samples.latency_us holds a value out of range");
    }
    baseline.regular.us.push_back(v);
  }
  const json count = regular->value("count", json());
  baseline.regular.runs =
      count.is_number_integer() && count.get<int64_t>() >= static_cast<int64_t>(baseline.regular.us.size())
          ? count.get<int64_t>()
          : static_cast<int64_t>(baseline.regular.us.size());
  if (j.contains("memory") && j["memory"].is_object()) {
    const json& m = j["memory"];
    auto get = [&](const char* key) -> int64_t {
      return m.contains(key) && m[key].is_number_integer() ? m[key].get<int64_t>() : -1;
    };
    baseline.arena_bytes = get("arena_bytes");
    baseline.peak_rss_bytes = get("peak_rss_bytes");
    baseline.max_rss_end_bytes = get("max_rss_end_bytes");
  }
  return baseline;
}

}  // namespace touchstone
