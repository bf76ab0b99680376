// benchmark_model: how long a .tflite model takes to run on this machine, with TensorFlow Lite's
// flags and output lines. It measures wall-clock latency of Invoke alone (inputs are copied in before
// each run, outside the timer), after warm-up runs, the time to initialise, memory (labelled for what
// each figure is), and on request an operator-wise profile; it writes one JSON report (--report_json)
// and gates against a baseline report (--baseline). It does not measure accuracy (imagenet_eval,
// coco_eval) nor compare outputs against the reference kernels. Delegates come from the delegate-provider
// registry's flags and are applied in command-line order. The work is done by evaluation/benchmark.h;
// this file turns flags into its config and prints the report's lines (docs/benchmark_model.md).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "delegates/providers/apply_delegates.h"
#include "delegates/providers/registry.h"
#include "evaluation/benchmark.h"
#include "evaluation/benchmark_report.h"
#include "evaluation/interpreter_state.h"
#include "evaluation/model_inputs.h"
#include "evaluation/op_profile.h"
#include "evaluation/regression_gate.h"
#include "runtime/logging.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

struct BenchmarkFlags {
  // TFLite's BenchmarkModel.
  int32_t num_runs = 50;
  float min_secs = 1.0f;
  float max_secs = 150.0f;
  float run_delay = -1.0f;
  float run_frequency = -1.0f;
  int32_t num_threads = -1;
  std::string benchmark_name;
  std::string output_prefix;
  int32_t warmup_runs = 1;
  float warmup_min_secs = 0.5f;
  bool verbose = false;
  bool dry_run = false;
  bool report_peak_memory_footprint = false;
  int32_t memory_footprint_check_interval_ms = 50;
  // TFLite's BenchmarkTfLiteModel.
  std::string graph;
  std::string signature_to_run_for;
  bool list_signatures = false;
  std::string input_layer;
  std::string input_layer_shape;
  std::string input_layer_value_range;
  std::string input_layer_value_files;
  bool allow_fp16 = false;
  bool require_full_delegation = false;
  bool enable_op_profiling = false;
  std::string op_profiling_output_mode = "stdout";
  std::string op_profiling_output_file;
  int32_t max_profiling_buffer_entries = 1024;
  std::string profiling_output_csv_file;
  bool print_preinvoke_state = false;
  bool print_postinvoke_state = false;
  bool release_dynamic_tensors = false;
  std::string output_filepath;
  std::string result_file_path;
  int32_t tensor_name_display_length = 25;
  int32_t tensor_type_display_length = 15;
  int32_t alloc_type_display_length = 18;
  // Touchstone's.
  bool use_reference_kernels = false;
  std::string report_json;
  bool print_latency_samples = false;
  bool report_all_latency_samples = false;
  std::string baseline;
  bool allow_config_change = false;
  float max_regression_pct = 5.0f;
  bool gate_memory = false;
  float max_memory_regression_pct = 5.0f;
};

// A flag and how TFLite's LogParams names it ("Min num runs: [50]").
struct LoggedParam {
  std::string flag;
  std::string label;
  std::function<std::string()> value;
  bool always = false;  // logged even when not given (TFLite: graph, signature_to_run_for)
};

// Declares each flag once: in the table (parsing, --help) and in the list LogParams prints.
class FlagDeclarations {
 public:
  explicit FlagDeclarations(FlagTable* table) : table_(table) {}

  FlagTable::Limits String(const std::string& name, std::string* v, const std::string& help, const std::string& label,
                           bool always = false) {
    params_.push_back({name, label, [v]() { return *v; }, always});
    return table_->AddString(name, v, help);
  }
  FlagTable::Limits Int(const std::string& name, int32_t* v, const std::string& help, const std::string& label) {
    params_.push_back({name, label, [v]() { return std::to_string(*v); }});
    return table_->AddInt(name, v, help);
  }
  FlagTable::Limits Float(const std::string& name, float* v, const std::string& help, const std::string& label) {
    // As TFLite logs a float: six significant digits.
    params_.push_back({name, label, [v]() { return fmt::format("{:g}", *v); }});
    return table_->AddFloat(name, v, help);
  }
  void Bool(const std::string& name, bool* v, const std::string& help, const std::string& label) {
    table_->AddBool(name, v, help);
    params_.push_back({name, label, [v]() { return std::string(*v ? "1" : "0"); }});
  }
  const std::vector<LoggedParam>& params() const { return params_; }

 private:
  FlagTable* table_;
  std::vector<LoggedParam> params_;
};

// TFLite flags whose feature Touchstone lacks: accepted, with a warning naming them. Delegate flags
// of TFLite's providers that the registry does not (yet) have are added here only when no registered
// provider declares them.
const std::vector<std::pair<std::string, std::string>>& InapplicableFlags() {
  static const auto* flags = new std::vector<std::pair<std::string, std::string>>{
      {"use_caching", "Touchstone's kernels have no Ruy prepacked-weights cache"},
      {"gpu_invoke_loop_times", "no GPU invoke loop in this build"},
      {"allow_dynamic_profiling_buffer_increase", "the op profiler aggregates per node and has no buffer"},
      {"export_model_runtime_info", "no ModelRuntimeInfo protobuf export"},
      {"model_runtime_info_output_file", "no ModelRuntimeInfo protobuf export"},
      {"optimize_memory_for_large_tensors", "the arena planner has no large-tensor mode"},
      {"disable_delegate_clustering", "delegates partition by independent subsets; no clustering switch"},
      {"enable_builtin_cast_constant_cache", "no constant CAST cache"},
      {"output_proto_filepath", "no tf.Example protobuf output; use --output_filepath"},
      {"use_xnnpack", "no XNNPACK delegate provider is registered in this build"},
      {"xnnpack_force_fp16", "no XNNPACK delegate provider is registered in this build"},
      {"xnnpack_weight_cache_file_path", "no XNNPACK delegate provider is registered in this build"},
      {"use_gpu", "no GPU delegate provider is registered in this build"},
      {"gpu_precision_loss_allowed", "no GPU delegate provider is registered in this build"},
      {"gpu_experimental_enable_quant", "no GPU delegate provider is registered in this build"},
      {"gpu_inference_for_sustained_speed", "no GPU delegate provider is registered in this build"},
      {"gpu_backend", "no GPU delegate provider is registered in this build"},
      {"gpu_wait_type", "no GPU delegate provider is registered in this build"},
      {"use_nnapi", "NNAPI exists only on Android"},
      {"nnapi_execution_preference", "NNAPI exists only on Android"},
      {"nnapi_execution_priority", "NNAPI exists only on Android"},
      {"nnapi_accelerator_name", "NNAPI exists only on Android"},
      {"disable_nnapi_cpu", "NNAPI exists only on Android"},
      {"nnapi_allow_fp16", "NNAPI exists only on Android"},
      {"nnapi_allow_dynamic_dimensions", "NNAPI exists only on Android"},
      {"nnapi_use_burst_mode", "NNAPI exists only on Android"},
      {"use_hexagon", "the Hexagon delegate exists only on Qualcomm Android devices"},
      {"hexagon_profiling", "the Hexagon delegate exists only on Qualcomm Android devices"},
      {"hexagon_lib_path", "the Hexagon delegate exists only on Qualcomm Android devices"},
      {"use_coreml", "Core ML exists only on Apple platforms"},
      {"coreml_version", "Core ML exists only on Apple platforms"},
      {"delegate_serialize_dir", "no delegate serialization cache"},
      {"delegate_serialize_token", "no delegate serialization cache"},
      {"stable_delegate_settings_file", "no stable-delegate loader; use --external_delegate_path"},
  };
  return *flags;
}

std::string Mode(const BenchmarkFlags& f) {
  if (!f.profiling_output_csv_file.empty()) return "csv";  // TFLite's backward compatibility
  return f.op_profiling_output_mode == "proto" ? "csv" : f.op_profiling_output_mode;
}

// Fails early (before a long run) when an output file cannot be created where asked.
Status CheckOutputFolderWritable(const std::string& path, const std::string& flag) {
  if (path.empty()) return Status::Ok();
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (access(dir.c_str(), W_OK) != 0) {
    return UsageError("--" + flag + ": cannot write " + path + " (folder " + dir + " missing or not writable)");
  }
  return Status::Ok();
}

// Every output's raw bytes, concatenated in output order.
std::string OutputBytes(const InputTarget& target) {
  std::string bytes;
  for (int index : target.subgraph->outputs()) {
    if (index < 0) continue;
    const TfLiteTensor* t = target.subgraph->tensor(index);
    if (t->bytes > 0 && t->data.raw != nullptr) bytes.append(t->data.raw, t->bytes);
  }
  return bytes;
}

// Prints the report's lines as the benchmark proceeds.
class Printer : public BenchmarkListener {
 public:
  Printer(const BenchmarkFlags& flags, const FlagTable& table, const DelegateFlagGroup& delegate_flags)
      : flags_(flags), table_(table), delegate_flags_(delegate_flags), heartbeat_(stdout) {
    progress_ = IsTerminal(stdout) && IsTerminal(stderr);
  }

  // Read before the run: a configuration the gate cannot compare stops it here, not after the runs.
  void set_baseline(const BaselineReport* baseline) { baseline_ = baseline; }
  const std::string& config_change() const { return config_change_; }

  void OnModelLoaded(const BenchmarkReport& report) override {
    Out("Loaded model " + report.envelope.model.path);
    if (delegates_ >= 2) Out(fmt::format("Going to apply {} delegates one after another.", delegates_));
  }
  void set_delegates(size_t count) { delegates_ = count; }
  void OnSignature(const std::string& key) override { Out("Using signature: " + key); }
  void OnWarning(const std::string& message) override { LogWarning("{}", message); }
  void OnDelegateOutcome(const DelegateOutcome& outcome, bool built) override {
    if (outcome.applied) {
      Out(DescribeOutcome(outcome));
    } else if (built) {
      LogWarning("{}", DescribeOutcome(outcome));
    }
  }
  void OnInitialized(const BenchmarkReport& report) override {
    // TFLite streams these doubles: six significant digits ({:g}).
    Out(fmt::format("The input model file size (MB): {:g}",
                    static_cast<double>(report.envelope.model.size_bytes) / 1e6));
    Out(fmt::format("Initialized session in {:g}ms.", static_cast<double>(report.init_us) / 1e3));
    Out(FormatInitParts(report));
    Out(FormatKernelUsage(report.kernels));
  }
  void OnBenchmarkStart(const BenchmarkReport&, Interpreter* interpreter) override {
    if (flags_.print_preinvoke_state) PrintState(interpreter, "pre-invoke");
  }
  Status CheckBeforeRuns(BenchmarkReport* report) override {
    CompleteEnvelope(table_, delegate_flags_, &report->envelope);
    if (baseline_ == nullptr) return Status::Ok();
    return CheckComparable(baseline_->envelope, report->envelope, flags_.baseline, flags_.allow_config_change,
                           &config_change_);
  }
  void OnRunsStarting(RunKind kind, const RunLoopConfig& loop) override {
    Out(fmt::format(
        "Running benchmark for at least {} iterations and at least {:g} seconds but terminate if exceeding {:g} "
        "seconds.",
        loop.min_runs, loop.min_secs, loop.max_secs));
    phase_ = kind == RunKind::kWarmup ? "warm-up" : "regular";
    heartbeat_label_ = phase_ + " runs";  // built once: OnRunProgress runs after every run
    shown_ = false;
    last_shown_us_ = 0;
    heartbeat_.Reset();
  }
  void OnRunProgress(RunKind, int64_t runs, int64_t elapsed_us) override {
    // Into a log: a line every 10 s. On a terminal: a line redrawn in place, once a loop has run for a
    // few seconds.
    if (!progress_) {
      heartbeat_.Beat(heartbeat_label_, runs, static_cast<double>(elapsed_us) / 1e6);
      return;
    }
    if (elapsed_us < 3000000 || elapsed_us - last_shown_us_ < 250000) return;
    last_shown_us_ = elapsed_us;
    shown_ = true;
    fmt::print(stderr, "\r{} runs: {} in {:.1f} s (stops by {:g} s)   ", phase_, runs,
               static_cast<double>(elapsed_us) / 1e6, flags_.max_secs);
    std::fflush(stderr);
  }
  void OnRunsFinished(RunKind, const LatencyStats& stats) override {
    if (shown_) {
      std::fputs("\r\033[K", stderr);
      std::fflush(stderr);
      shown_ = false;
    }
    Out(stats.ToString());
    Out("");
  }
  // The interpreter ends with RunBenchmark: keep what is printed or written after the results now.
  void OnBenchmarkEnd(const BenchmarkReport&, Interpreter* interpreter, const InputTarget& target) override {
    // Copied only to be written: a model's outputs can be megabytes, which the process's peak would
    // count for nothing.
    if (!flags_.output_filepath.empty()) output_bytes_ = OutputBytes(target);
    if (flags_.print_postinvoke_state) post_invoke_state_ = StateText(interpreter, "post-invoke");
  }

  void PrintResults(const BenchmarkReport& report) {
    Out(FormatInferenceTimings(report));
    for (const std::string& line : FormatTfliteMemoryLines(report)) Out(line);
    Out(FormatPercentiles(report));
    if (flags_.print_latency_samples) Out(FormatSamples(report));
    for (const std::string& line : FormatMemoryLines(report)) Out(line);
  }

  std::string StateText(Interpreter* interpreter, const std::string& when) const {
    InterpreterStateFormat format;
    format.tensor_name_length = flags_.tensor_name_display_length;
    format.tensor_type_length = flags_.tensor_type_display_length;
    format.alloc_type_length = flags_.alloc_type_display_length;
    return "\n====Printing out TfLite interpreter " + when + " state begins====\n" +
           DescribeInterpreterState(interpreter, format) + "====Printing out TfLite interpreter " + when +
           " state ends====\n\n";
  }
  void PrintState(Interpreter* interpreter, const std::string& when) { std::cout << StateText(interpreter, when); }

  const std::string& output_bytes() const { return output_bytes_; }
  const std::string& post_invoke_state() const { return post_invoke_state_; }

  static void Out(const std::string& line) { std::cout << line << std::endl; }

 private:
  const BenchmarkFlags& flags_;
  const FlagTable& table_;
  const DelegateFlagGroup& delegate_flags_;
  const BaselineReport* baseline_ = nullptr;
  std::string config_change_;
  Heartbeat heartbeat_;
  size_t delegates_ = 0;
  bool progress_ = false;
  bool shown_ = false;
  int64_t last_shown_us_ = 0;
  std::string phase_;
  std::string heartbeat_label_;
  std::string output_bytes_;
  std::string post_invoke_state_;
};

// A delegate provider flag's value as text ("1"/"0" for booleans, as TFLite logs them).
std::string ProviderValue(const DelegateFlagGroup& delegate_flags, const std::string& name) {
  // The isolation flags travel with the delegate flags (tools/common/isolation.h).
  if (name == "delegate_isolation") return delegate_flags.isolation().delegate_isolation;
  if (name == "delegate_timeout_secs") return std::to_string(delegate_flags.isolation().delegate_timeout_secs);
  if (name == "max_tensor_memory_mb") return std::to_string(delegate_flags.max_tensor_bytes() >> 20);
  if (name == "allow_newer_op_versions") return delegate_flags.allow_newer_op_versions() ? "1" : "0";
  return delegate_flags.ValueText(name);
}

void LogParams(const BenchmarkFlags& flags, const FlagTable& table, const std::vector<LoggedParam>& params,
               const DelegateFlagGroup& delegate_flags) {
  Printer::Out("Log parameter values verbosely: [" + std::string(flags.verbose ? "1" : "0") + "]");
  const std::vector<std::string>& given = table.given();
  auto was_given = [&](const std::string& name) { return std::find(given.begin(), given.end(), name) != given.end(); };
  for (const LoggedParam& p : params) {
    if (p.always || flags.verbose || was_given(p.flag)) Printer::Out(p.label + ": [" + p.value() + "]");
  }
  // Delegate providers' flags, as each TFLite provider logs its own.
  for (const DelegateProvider& provider : RegisteredDelegateProviders()) {
    for (const ProviderFlag& f : provider.flags) {
      if (flags.verbose || was_given(f.name))
        Printer::Out(f.name + ": [" + ProviderValue(delegate_flags, f.name) + "]");
    }
  }
  for (const char* name :
       {"delegate_isolation", "delegate_timeout_secs", "max_tensor_memory_mb", "allow_newer_op_versions"}) {
    if (flags.verbose || was_given(name))
      Printer::Out(std::string(name) + ": [" + ProviderValue(delegate_flags, name) + "]");
  }
}

Status Validate(BenchmarkFlags* f, std::vector<std::string>* warnings) {
  if (f->graph.empty()) return UsageError("--graph is required (the .tflite model to benchmark)");
  if (f->enable_op_profiling && f->op_profiling_output_mode == "proto") {
    warnings->push_back("--op_profiling_output_mode=proto: Touchstone writes no protobuf; writing csv instead");
  }
  if (!f->enable_op_profiling && (!f->op_profiling_output_file.empty() || !f->profiling_output_csv_file.empty())) {
    warnings->push_back(
        "--op_profiling_output_file/--profiling_output_csv_file have no effect without "
        "--enable_op_profiling");
  }
  if (f->report_peak_memory_footprint && f->memory_footprint_check_interval_ms <= 0) {
    warnings->push_back(fmt::format(
        "--memory_footprint_check_interval_ms is set to {} (ms), This value is invalid, and it will be set to the "
        "default value 50 (ms).",
        f->memory_footprint_check_interval_ms));
    f->memory_footprint_check_interval_ms = 50;
  }
  if (f->allow_fp16) {
    warnings->push_back("--allow_fp16: Touchstone's CPU kernels have no float16 path; float32 stays float32");
  }
  if (f->baseline.empty() && f->gate_memory) return UsageError("--gate_memory needs --baseline=REPORT.json");
  if (f->baseline.empty() && f->allow_config_change) {
    return UsageError("--allow_config_change needs --baseline=REPORT.json");
  }
  WarnIfMoreThreadsThanCpus("num_threads", f->num_threads, warnings);
  const std::string profile_file =
      !f->profiling_output_csv_file.empty() ? f->profiling_output_csv_file : f->op_profiling_output_file;
  TS_RETURN_IF_ERROR(CheckOutputFolderWritable(f->output_filepath, "output_filepath"));
  TS_RETURN_IF_ERROR(CheckOutputFolderWritable(f->result_file_path, "result_file_path"));
  TS_RETURN_IF_ERROR(CheckOutputFolderWritable(f->report_json, "report_json"));
  if (f->enable_op_profiling) TS_RETURN_IF_ERROR(CheckOutputFolderWritable(profile_file, "op_profiling_output_file"));
  return Status::Ok();
}

// Compares this run with the baseline (whose configuration CheckBeforeRuns found comparable); fills
// report->gate and prints one line per check.
void RunGate(const BenchmarkFlags& flags, const BaselineReport& baseline, const std::string& config_change,
             BenchmarkReport* report) {
  BenchmarkReport::Gate& gate = report->gate;
  gate.requested = true;
  gate.baseline_path = flags.baseline;
  gate.baseline_sha256 = baseline.envelope.model.sha256;
  gate.config_change = config_change;
  LatencyGateConfig config;
  config.max_regression_pct = flags.max_regression_pct;
  LatencySampleSet current;
  for (int64_t ns : report->regular.samples_ns()) current.us.push_back(static_cast<double>(ns) / 1000.0);
  current.runs = report->regular.count();
  gate.latency = CompareLatency(baseline.regular, current, config);
  std::vector<GateVerdict> verdicts = {gate.latency.verdict};
  if (flags.gate_memory) {
    gate.memory.push_back(CompareMemory("arena_bytes", baseline.arena_bytes, report->memory.arena_bytes,
                                        flags.max_memory_regression_pct));
    // The sampled peak when both runs sampled it, else the high-water mark at the end.
    if (report->memory.peak_sampled && baseline.peak_rss_bytes >= 0) {
      gate.memory.push_back(CompareMemory("peak_rss_bytes", baseline.peak_rss_bytes, report->memory.peak_rss_bytes,
                                          flags.max_memory_regression_pct));
    } else {
      gate.memory.push_back(CompareMemory("max_rss_end_bytes", baseline.max_rss_end_bytes,
                                          report->memory.os_figures ? report->memory.max_rss_end_bytes : -1,
                                          flags.max_memory_regression_pct));
    }
    for (const MemoryGateResult& m : gate.memory) verdicts.push_back(m.verdict);
  }
  gate.verdict = CombineVerdicts(verdicts);
  Printer::Out(FormatLatencyGate(gate.latency));
  for (const MemoryGateResult& m : gate.memory) Printer::Out(FormatMemoryGate(m));
  Printer::Out(FormatGateVerdict(gate.verdict, config_change));
}

int Run(const BenchmarkFlags& flags, const FlagTable& table, const FlagDeclarations& d,
        DelegateFlagGroup& delegate_flags);

int Main(int argc, char** argv) {
  BenchmarkFlags flags;
  FlagTable table;
  FlagDeclarations d(&table);
  d.Int("num_runs", &flags.num_runs, "expected number of runs, see also min_secs, max_secs", "Min num runs").AtLeast(0);
  d.Float("min_secs", &flags.min_secs, "minimum seconds of regular runs (more runs than num_runs if needed)",
          "Min runs duration (seconds)");
  d.Float("max_secs", &flags.max_secs, "no run starts after this many seconds (fewer runs than num_runs if needed)",
          "Max runs duration (seconds)")
      .GreaterThan(0);
  d.Float("run_delay", &flags.run_delay, "seconds to sleep after each run (-1: none)", "Inter-run delay (seconds)");
  d.Float("run_frequency", &flags.run_frequency,
          "runs per second on a fixed schedule, catching up when behind; overrides run_delay (-1: off)",
          "Number of prorated runs per second");
  d.Int("num_threads", &flags.num_threads, "threads for CPU inference (-1: the runtime's default, 1)", "Num threads")
      .AtLeast(1)
      .OrExactly(-1);
  d.String("benchmark_name", &flags.benchmark_name, "benchmark name (recorded in the report)", "Benchmark name");
  d.String("output_prefix", &flags.output_prefix, "benchmark output prefix (recorded in the report)", "Output prefix");
  d.Int("warmup_runs", &flags.warmup_runs, "minimum number of warm-up runs, see also warmup_min_secs",
        "Min warmup runs")
      .AtLeast(0);
  d.Float("warmup_min_secs", &flags.warmup_min_secs, "minimum seconds of warm-up runs",
          "Min warmup runs duration (seconds)");
  d.Bool("verbose", &flags.verbose, "log every parameter, not only those given", "Verbose");
  d.Bool("dry_run", &flags.dry_run, "load, build and allocate, but run nothing (0 runs)", "Run w/o invoking kernels");
  d.Bool("report_peak_memory_footprint", &flags.report_peak_memory_footprint,
         "sample the process RSS on a separate thread and report its peak", "Report the peak memory footprint");
  d.Int("memory_footprint_check_interval_ms", &flags.memory_footprint_check_interval_ms,
        "milliseconds between two RSS samples of --report_peak_memory_footprint",
        "Memory footprint check interval (ms)");
  d.String("graph", &flags.graph, "the .tflite model to benchmark (or fd:<fd>:<offset>:<size>)", "Graph", true);
  d.String("signature_to_run_for", &flags.signature_to_run_for,
           "the signature to benchmark; required when the model has several", "Signature to run", true);
  d.Bool("list_signatures", &flags.list_signatures, "print the model's signature keys and stop",
         "List signatures from the provided model");
  d.String("input_layer", &flags.input_layer, "input names, comma separated", "Input layers");
  d.String("input_layer_shape", &flags.input_layer_shape, "shapes for --input_layer: 1,224,224,3:1,10", "Input shapes");
  d.String("input_layer_value_range", &flags.input_layer_value_range,
           "name,low,high:... inclusive ranges for random inputs", "Input value ranges");
  d.String("input_layer_value_files", &flags.input_layer_value_files,
           "name:path,... raw input bytes ('::' for ':' in a name or path)", "Input value files");
  d.Bool("allow_fp16", &flags.allow_fp16, "allow float16 arithmetic for float32 (no effect here: warns)", "Allow fp16");
  d.Bool("require_full_delegation", &flags.require_full_delegation,
         "fail (exit code 4) unless a delegate takes the whole graph: no CPU fallback", "Require full delegation");
  d.Bool("enable_op_profiling", &flags.enable_op_profiling, "time every node of the regular runs",
         "Enable op profiling");
  d.String("op_profiling_output_mode", &flags.op_profiling_output_mode,
           "where the op profile goes (proto: written as csv)", "Op profiling output mode.")
      .OneOf({"stdout", "csv", "proto"});
  d.String("op_profiling_output_file", &flags.op_profiling_output_file,
           "write the op profile to this file instead of stdout", "Op profiling output file.");
  d.Int("max_profiling_buffer_entries", &flags.max_profiling_buffer_entries,
        "accepted for TFLite's scripts; the profiler aggregates per node and has no buffer",
        "Max initial profiling buffer entries");
  d.String("profiling_output_csv_file", &flags.profiling_output_csv_file,
           "[deprecated in TFLite] the op profile as csv into this file", "CSV File to export profiling data to");
  d.Bool("print_preinvoke_state", &flags.print_preinvoke_state, "dump tensors and nodes before the first run",
         "Print pre-invoke interpreter state");
  d.Bool("print_postinvoke_state", &flags.print_postinvoke_state, "dump tensors and nodes after the last run",
         "Print post-invoke interpreter state");
  d.Bool("release_dynamic_tensors", &flags.release_dynamic_tensors,
         "free each dynamic tensor's memory after its last use in every Invoke", "Release dynamic tensor memory");
  d.String("output_filepath", &flags.output_filepath, "write all outputs' raw bytes here after the runs",
           "File path to export outputs layer to");
  d.String("result_file_path", &flags.result_file_path,
           "write TFLite's BenchmarkResult fields here (as JSON, protobuf's JSON mapping)",
           "File path to save the benchmark result");
  d.Int("tensor_name_display_length", &flags.tensor_name_display_length,
        "characters of tensor names in the interpreter state", "Tensor name display length")
      .AtLeast(0);
  d.Int("tensor_type_display_length", &flags.tensor_type_display_length,
        "characters of tensor types in the interpreter state", "Tensor type display length")
      .AtLeast(0);
  d.Int("alloc_type_display_length", &flags.alloc_type_display_length,
        "characters of allocation types in the interpreter state", "Tensor allocation type display length")
      .AtLeast(0);
  table.AddGroup("Touchstone");
  d.Bool("use_reference_kernels", &flags.use_reference_kernels, "run the single-threaded reference kernels",
         "Use reference kernels");
  d.String("report_json", &flags.report_json, "write the whole report as JSON here (docs/benchmark_model.md)",
           "JSON report file");
  d.Bool("print_latency_samples", &flags.print_latency_samples, "print every regular run's latency",
         "Print latency samples");
  d.Bool("report_all_latency_samples", &flags.report_all_latency_samples,
         "keep every run's latency for --report_json and --print_latency_samples (unbounded memory and report "
         "size; by default a bounded summary: docs/gates.md)",
         "Report all latency samples");
  d.String("baseline", &flags.baseline,
           "gate against this --report_json of an earlier run: exit 1 on REGRESSION, 5 when NOISY, 2 when the "
           "configurations differ (docs/gates.md)",
           "Baseline report");
  d.Bool("allow_config_change", &flags.allow_config_change,
         "let --baseline compare runs whose model, threads, kernels, delegates or inputs differ (the verdict "
         "line says what differed)",
         "Allow config change");
  d.Float("max_regression_pct", &flags.max_regression_pct, "latency slowdown the gate tolerates, in percent",
          "Max regression (%)")
      .AtLeast(0);
  d.Bool("gate_memory", &flags.gate_memory, "also gate the arena bytes and the peak (or high-water) RSS",
         "Gate memory");
  d.Float("max_memory_regression_pct", &flags.max_memory_regression_pct, "memory growth the gate tolerates, in percent",
          "Max memory regression (%)")
      .AtLeast(0);
  DelegateFlagGroup delegate_flags;
  delegate_flags.AddTo(&table);
  std::set<std::string> registered;
  for (const DelegateProvider& provider : RegisteredDelegateProviders()) {
    for (const ProviderFlag& f : provider.flags) registered.insert(f.name);
  }
  table.AddGroup("TFLite flags without effect here (accepted with a warning)");
  for (const auto& entry : InapplicableFlags()) {
    if (registered.count(entry.first) == 0) table.AddIgnored(entry.first, entry.second);
  }

  ToolSpec spec;
  spec.name = "benchmark_model";
  spec.check = [&](std::vector<std::string>* warnings) {
    if (table.Position("max_profiling_buffer_entries") > 0) {
      warnings->push_back(
          "--max_profiling_buffer_entries is not applicable here and was ignored (the op profiler "
          "aggregates per node and has no buffer)");
    }
    return Validate(&flags, warnings);
  };
  spec.delegates = &delegate_flags;
  spec.run = [&]() -> StatusOr<int> { return Run(flags, table, d, delegate_flags); };
  return RunTool(argc, argv, &table, spec);
}

// The run, once the flags are valid (in the child process under --delegate_isolation=process).
int Run(const BenchmarkFlags& flags, const FlagTable& table, const FlagDeclarations& d,
        DelegateFlagGroup& delegate_flags) {
  Printer::Out("STARTING!");
  LogParams(flags, table, d.params(), delegate_flags);

  InterpreterOptions options;
  options.kernel_set = flags.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
  options.num_threads = flags.num_threads > 0 ? flags.num_threads : 1;
  options.ensure_dynamic_tensors_are_released = flags.release_dynamic_tensors;
  options.max_tensor_bytes = delegate_flags.max_tensor_bytes();
  options.allow_newer_op_versions = delegate_flags.allow_newer_op_versions();

  if (flags.list_signatures) {
    StatusOr<std::vector<std::string>> keys = ListSignatures(flags.graph, options);
    if (!keys.ok()) return ReportFailure(keys.status());
    Printer::Out(fmt::format("The Model contains {} signature key(s).", keys.value().size()));
    if (!keys.value().empty()) Printer::Out("They are listed below: ");
    for (const std::string& key : keys.value()) Printer::Out("-> Signature Key: " + key);
    return 0;
  }

  StatusOr<InputSpec> spec = ParseInputSpec(flags.input_layer, flags.input_layer_shape, flags.input_layer_value_range,
                                            flags.input_layer_value_files);
  if (!spec.ok()) return ReportFailure(spec.status());
  BaselineReport baseline;
  if (!flags.baseline.empty()) {
    StatusOr<std::string> text = ReadBaselineText(flags.baseline);
    if (!text.ok()) return ReportFailure(text.status());
    StatusOr<BaselineReport> read = ParseReportJson(text.value(), flags.baseline);
    if (!read.ok()) return ReportFailure(read.status());
    baseline = read.value();
  }

  BenchmarkConfig config;
  config.graph = flags.graph;
  config.interpreter = options;
  config.signature = flags.signature_to_run_for;
  config.inputs = spec.value();
  config.warmup = {flags.warmup_runs, flags.warmup_min_secs, flags.max_secs, flags.run_delay, flags.run_frequency};
  config.regular = {flags.num_runs, flags.min_secs, flags.max_secs, flags.run_delay, flags.run_frequency};
  config.dry_run = flags.dry_run;
  config.require_full_delegation = flags.require_full_delegation;
  config.op_profiling = flags.enable_op_profiling;
  config.peak_memory = flags.report_peak_memory_footprint;
  config.memory_interval_ms = flags.memory_footprint_check_interval_ms;
  config.keep_all_samples = flags.report_all_latency_samples;
  config.fingerprint_model = !flags.report_json.empty() || !flags.baseline.empty();

  // Declared before the interpreter (inside RunBenchmark's report), so delegate kernels outlive it.
  DelegateRequest request;
  request.num_threads = options.num_threads;
  request.use_reference_kernels = flags.use_reference_kernels;
  StatusOr<std::vector<ProvidedDelegate>> delegates = delegate_flags.CreateDelegates(table, request);
  if (!delegates.ok()) return ReportFailure(delegates.status());

  BenchmarkReport report;
  report.benchmark_name = flags.benchmark_name;
  report.output_prefix = flags.output_prefix;
  Printer printer(flags, table, delegate_flags);
  printer.set_delegates(delegates.value().size());
  if (!flags.baseline.empty()) printer.set_baseline(&baseline);
  Status status = RunBenchmark(config, delegates.value(), &printer, &report);
  if (!status.ok()) return ReportFailure(status);

  // TFLite's end-of-benchmark order: timings and memory, the op profile, the post-invoke state, then
  // the files.
  printer.PrintResults(report);
  if (report.has_op_profile) {
    OpProfileFormat format;
    format.csv = Mode(flags) == "csv";
    const std::string section = FormatOpProfileSection(report.op_profile, format);
    const std::string file =
        !flags.profiling_output_csv_file.empty() ? flags.profiling_output_csv_file : flags.op_profiling_output_file;
    if (file.empty()) {
      std::cout << section << std::flush;
    } else {
      Status written = WriteFileAtomically(file, section, "op_profiling_output_file");
      if (!written.ok()) return ReportFailure(written);
    }
  }
  if (flags.print_postinvoke_state) std::cout << printer.post_invoke_state() << std::flush;
  if (!flags.output_filepath.empty()) {
    Status written = WriteFileAtomically(flags.output_filepath, printer.output_bytes(), "output_filepath");
    if (!written.ok()) return ReportFailure(written);
  }
  if (!flags.baseline.empty()) RunGate(flags, baseline, printer.config_change(), &report);
  if (!flags.result_file_path.empty()) {
    Status written = WriteFileAtomically(flags.result_file_path, ResultFileJson(report), "result_file_path");
    if (!written.ok()) return ReportFailure(written);
    Printer::Out("Saved benchmark result to: " + flags.result_file_path);
  }
  if (!flags.report_json.empty()) {
    Status written = WriteFileAtomically(flags.report_json, ReportToJson(report), "report_json");
    if (!written.ok()) return ReportFailure(written);
    Printer::Out("Saved JSON report to: " + flags.report_json);
  }
  return report.gate.requested ? GateExitCode(report.gate.verdict) : 0;
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
