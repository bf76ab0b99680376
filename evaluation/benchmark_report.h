// The one structure a benchmark_model run produces. Every result line the tool prints is formatted
// from it (the text is a view of the report), and --report_json writes it whole (schema in
// docs/benchmark_model.md). A report read back (ParseReportJson) is what the regression gate compares
// against.
#ifndef TOUCHSTONE_EVALUATION_BENCHMARK_REPORT_H_
#define TOUCHSTONE_EVALUATION_BENCHMARK_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "evaluation/latency_stats.h"
#include "evaluation/machine_info.h"
#include "evaluation/op_profile.h"
#include "evaluation/regression_gate.h"
#include "runtime/status.h"

namespace touchstone {

// Identifies the report format; ParseReportJson accepts this major version.
constexpr const char* kBenchmarkReportSchema = "touchstone.benchmark_model.report/1";
constexpr const char* kTouchstoneVersion = "0.5.0";

struct DelegateReport {
  std::string provider;          // "SAMPLE", "EXTERNAL", ...
  bool applied = false;
  int delegate_kernels = 0;      // its kernel nodes in the executed graph
  bool fully_delegated = false;
  std::string error;             // why it was not applied
};

struct BenchmarkReport {
  std::string benchmark_name;    // --benchmark_name
  std::string output_prefix;     // --output_prefix

  struct Model {
    std::string path;            // --graph as given
    int64_t size_bytes = 0;
    std::string sha256;
    int subgraphs = 0;
  } model;

  struct Configuration {
    std::vector<std::pair<std::string, std::string>> flags;  // flags given on the command line, in order
    int num_threads = 1;
    std::string kernels;         // "optimized" or "reference"
    std::string signature;       // the signature benchmarked; "" for the primary subgraph without one
    int subgraph = 0;            // the subgraph run
    int warmup_runs = 0;
    double warmup_min_secs = 0;
    int num_runs = 0;
    double min_secs = 0;
    double max_secs = 0;
    double run_delay = -1;
    double run_frequency = -1;
    bool dry_run = false;
    std::vector<DelegateReport> delegates;  // in the order tried
    int execution_plan_nodes = 0;           // nodes of the executed subgraph's plan after delegation
    int delegate_kernels = 0;               // of which delegate kernels
    bool fully_delegated = false;
    int64_t input_bytes = 0;                // bytes of all inputs copied in before each run
  } config;

  int64_t init_us = 0;           // load + build + delegates + AllocateTensors
  LatencyStats warmup;           // warm-up runs (the first one is the first inference)
  LatencyStats regular;          // regular runs

  struct Memory {
    int64_t model_file_bytes = 0;
    int64_t weights_bytes = 0;        // constant buffers, inside the mapped file
    int64_t arena_bytes = 0;          // tensor arena planned at AllocateTensors (all subgraphs)
    int64_t dynamic_tensor_bytes = 0; // tensors allocated on their own (dynamic, variables), at the end
    bool os_figures = false;          // the RSS figures below could be read
    int64_t rss_start_bytes = 0, rss_after_init_bytes = 0, rss_end_bytes = 0;
    int64_t max_rss_start_bytes = 0, max_rss_after_init_bytes = 0, max_rss_end_bytes = 0;
    bool peak_sampled = false;        // --report_peak_memory_footprint
    int64_t peak_rss_bytes = 0;
    int sample_interval_ms = 0;
    int64_t samples = 0;
  } memory;

  bool has_op_profile = false;
  OpProfileReport op_profile;

  MachineInfo machine;

  struct Gate {
    bool requested = false;
    std::string baseline_path;
    std::string baseline_sha256;
    GateVerdict verdict = GateVerdict::kPass;
    LatencyGateResult latency;
    std::vector<MemoryGateResult> memory;
  } gate;
};

// --- Text views (TFLite's lines first, then Touchstone's) ---------------------------------------

// "Inference timings in us: Init: X, First inference: Y, Warmup (avg): Z, Inference (avg): W"
std::string FormatInferenceTimings(const BenchmarkReport& report);
// "Inference latency percentiles in us (N samples): p5=.. p50=.. p90=.. p95=.. p99=.."
std::string FormatPercentiles(const BenchmarkReport& report);
// "Inference latency samples in us: a b c ..."
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
  std::string model_path;
  std::string model_sha256;
  std::vector<int64_t> regular_samples_us;
  int64_t arena_bytes = -1;      // -1: absent
  int64_t peak_rss_bytes = -1;
  int64_t max_rss_end_bytes = -1;
};

// Parses a report written by ReportToJson. Errors (kInvalidInput) name `source` and what is missing.
StatusOr<BaselineReport> ParseReportJson(const std::string& text, const std::string& source);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_BENCHMARK_REPORT_H_
