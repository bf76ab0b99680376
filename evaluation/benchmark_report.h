// The one structure a benchmark_model run produces. Every result line the tool prints is formatted
// from it (the text is a view of the report), and --report_json writes it whole, in the envelope every
// Touchstone report shares (report_envelope.h; schema docs/schemas/benchmark_model.schema.json). A
// report read back (ParseReportJson) is what the regression gate compares against.
#ifndef TOUCHSTONE_EVALUATION_BENCHMARK_REPORT_H_
#define TOUCHSTONE_EVALUATION_BENCHMARK_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "evaluation/kernel_usage.h"
#include "evaluation/latency_stats.h"
#include "evaluation/machine_info.h"
#include "evaluation/op_profile.h"
#include "evaluation/regression_gate.h"
#include "evaluation/report_envelope.h"
#include "runtime/status.h"

namespace touchstone {

// The report format ParseReportJson reads (the envelope's schema and version).
constexpr const char* kBenchmarkReportSchema = "touchstone.benchmark_model.report";
constexpr int kBenchmarkReportVersion = 2;

struct BenchmarkReport {
  // Schema, tool, version, start time, model (--graph as given, size, sha256), machine, and the
  // configuration a gate compares: threads, kernels, delegates (with their flags and outcomes), inputs
  // (names, types, shapes, source) and the signature.
  // RunBenchmark fills the start time and the machine.
  ReportEnvelope envelope{kBenchmarkReportSchema, kBenchmarkReportVersion, "benchmark_model"};
  std::string benchmark_name;  // --benchmark_name
  std::string output_prefix;   // --output_prefix

  // How the benchmark ran.
  struct Configuration {
    int subgraphs = 0;      // in the model
    std::string signature;  // the signature benchmarked; "" for the primary subgraph without one
    int subgraph = 0;       // the subgraph run
    int warmup_runs = 0;
    double warmup_min_secs = 0;
    int num_runs = 0;
    double min_secs = 0;
    double max_secs = 0;
    double run_delay = -1;
    double run_frequency = -1;
    bool dry_run = false;
    int execution_plan_nodes = 0;  // nodes of the executed subgraph's plan after delegation
    int delegate_kernels = 0;      // of which delegate kernels
    bool fully_delegated = false;
    int64_t input_bytes = 0;  // bytes of all inputs (set once before the runs)
  } config;

  KernelUsage kernels;  // which code runs each node (after AllocateTensors)
  int64_t init_us = 0;  // load + build + delegates + AllocateTensors
  // Init's parts, which add up to init_us: reading and verifying the file, building the interpreter
  // (tensors, nodes, op registrations), preparing it (the delegates applied, then every node's
  // Prepare and the arena plan), and what AllocateTensors had left to do.
  struct InitParts {
    int64_t load_us = 0, build_us = 0, prepare_us = 0, allocate_us = 0;
  } init_parts;
  LatencyStats warmup;   // warm-up runs (the first one is the first inference)
  LatencyStats regular;  // regular runs

  struct Memory {
    int64_t model_file_bytes = 0;
    int64_t weights_bytes = 0;         // constant buffers, inside the mapped file
    int64_t weights_released_bytes = 0;  // of them, pages unmapped once kernels copied them, at the end
    // Weights computed at Prepare (float16 DEQUANTIZE, DENSIFY) whose pages were given back once
    // every kernel reading them had copied them, at the end.
    int64_t prepared_weights_released_bytes = 0;
    int64_t arena_bytes = 0;           // tensor arena planned at AllocateTensors (all subgraphs)
    int64_t dynamic_tensor_bytes = 0;  // tensors allocated on their own (dynamic, variables), at the end
    bool os_figures = false;           // the RSS figures below could be read
    int64_t rss_start_bytes = 0, rss_after_init_bytes = 0, rss_end_bytes = 0;
    int64_t max_rss_start_bytes = 0, max_rss_after_init_bytes = 0, max_rss_end_bytes = 0;
    bool peak_sampled = false;  // --report_peak_memory_footprint
    int64_t peak_rss_bytes = 0;
    int sample_interval_ms = 0;
    int64_t samples = 0;
  } memory;

  bool has_op_profile = false;
  OpProfileReport op_profile;

  struct Gate {
    bool requested = false;
    std::string baseline_path;
    std::string baseline_sha256;
    // What differed between the configurations (--allow_config_change), "" when they matched.
    std::string config_change;
    GateVerdict verdict = GateVerdict::kPass;
    LatencyGateResult latency;
    std::vector<MemoryGateResult> memory;
  } gate;
};

// --- Text views (TFLite's lines first, then Touchstone's) ---------------------------------------

// "Inference timings in us: Init: X, First inference: Y, Warmup (avg): Z, Inference (avg): W"
std::string FormatInferenceTimings(const BenchmarkReport& report);
// "Init parts in us: load 120, build 850, prepare 300, allocate 40" (Touchstone's; TFLite has one
// Init figure).
std::string FormatInitParts(const BenchmarkReport& report);
// Touchstone's finer figures, at nanosecond resolution: "Inference latency in us (N runs): min=0.381
// avg=0.412 std=0.031 p5=0.390 p50=0.405 p90=0.431 p95=0.452 p99=0.610 max=12.043", with "(percentiles
// from a histogram of every run, within 0.4%)" when not every run was kept.
std::string FormatPercentiles(const BenchmarkReport& report);
// "Inference latency samples in us: a b c ..." (every run's, or "(a uniform sample of K of N runs)").
std::string FormatSamples(const BenchmarkReport& report);
// TFLite's: the "Note: ..." line, "Memory footprint delta from the start of the tool (MB): init=X
// overall=Y", and with peak sampling "Overall peak memory footprint (MB) via periodic monitoring: X".
std::vector<std::string> FormatTfliteMemoryLines(const BenchmarkReport& report);
// Touchstone's, each labelled with what it measures (docs/benchmark_model.md).
std::vector<std::string> FormatMemoryLines(const BenchmarkReport& report);

// --- Files ------------------------------------------------------------------------------------

// The whole report as JSON (2-space indented).
std::string ReportToJson(const BenchmarkReport& report);
// TFLite's --result_file_path content (its BenchmarkResult message: latency_metrics, memory_metrics,
// misc_metrics) in protobuf's JSON mapping with the .proto's field names.
std::string ResultFileJson(const BenchmarkReport& report);

// What the gate needs from a report read back.
struct BaselineReport {
  ReportEnvelope envelope;
  LatencySampleSet regular;  // the kept samples of the regular runs, and how many runs there were
  int64_t arena_bytes = -1;  // -1: absent
  int64_t peak_rss_bytes = -1;
  int64_t max_rss_end_bytes = -1;
};

// Parses a report written by ReportToJson. Errors (kInvalidInput) name `source` and what is missing.
StatusOr<BaselineReport> ParseReportJson(const std::string& text, const std::string& source);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_BENCHMARK_REPORT_H_
