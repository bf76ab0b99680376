#include "evaluation/benchmark.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/numbers.h"
#include "evaluation/kernel_usage.h"
#include "evaluation/machine_info.h"
#include "evaluation/memory_usage.h"
#include "evaluation/op_profile.h"
#include "evaluation/report_envelope.h"
#include "evaluation/sha256.h"

namespace touchstone {
namespace {

class SystemClock : public BenchmarkClock {
 public:
  int64_t NowMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t NowNanos() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void SleepMicros(int64_t micros) override {
    if (micros > 0) std::this_thread::sleep_for(std::chrono::microseconds(micros));
  }
};

bool ParseNonNegative(const std::string& text, long long* out) { return absl::SimpleAtoi(text, out) && *out >= 0; }

// Where the benchmark feeds inputs and reads outputs: the signature's subgraph, or the primary one.
struct Target {
  int subgraph = 0;
  std::string signature;
  std::string warning;  // for the listener
};

StatusOr<Target> ResolveTarget(Interpreter* interpreter, const std::string& requested) {
  Target target;
  const std::vector<SignatureInfo>& signatures = interpreter->signatures();
  std::string keys;
  for (const SignatureInfo& s : signatures) keys += (keys.empty() ? "" : ", ") + s.key;
  if (signatures.empty()) {
    if (!requested.empty()) {
      return UsageError("--signature_to_run_for=" + requested + ": the model has no signatures");
    }
    return target;
  }
  std::string key = requested;
  if (key.empty()) {
    if (signatures.size() > 1) {
      // TFLite refuses; Touchstone runs the primary subgraph, as for a model without signatures.
      target.warning = "the model has " + std::to_string(signatures.size()) + " signatures (" + keys +
                       ") and --signature_to_run_for names none: benchmarking the primary subgraph";
      return target;
    }
    key = signatures[0].key;
  }
  const SignatureInfo* info = interpreter->FindSignature(key);
  if (info == nullptr) {
    return UsageError("--signature_to_run_for=" + requested + ": the model has no such signature (it has: " + keys +
                      ")");
  }
  target.subgraph = info->subgraph_index;
  target.signature = key;
  return target;
}

ReportedDelegate ReportDelegateOutcome(const DelegateOutcome& outcome) {
  ReportedDelegate d;
  d.provider = outcome.provider;
  d.applied = outcome.applied;
  d.delegate_kernels = outcome.delegate_kernels;
  d.fully_delegated = outcome.fully_delegated;
  d.error = outcome.error;
  return d;
}

// Each input's name, type, shape and where its values come from: "random", "random [lo,hi]" or "file
// sha256 <12 hex digits>" (the content, so that the same file compares equal on another machine).
std::vector<ReportedInput> DescribeInputs(const InputSpec& spec, const InputTarget& target,
                                          const std::vector<std::vector<uint8_t>>& data) {
  std::vector<ReportedInput> described;
  const std::vector<int>& indices = target.subgraph->inputs();
  for (size_t i = 0; i < indices.size(); ++i) {
    const TfLiteTensor* t = target.subgraph->tensor(indices[i]);
    ReportedInput input;
    input.name = t->name != nullptr ? t->name : "";
    input.type = TfLiteTypeGetName(t->type);
    for (int d = 0; t->dims != nullptr && d < t->dims->size; ++d) input.shape.push_back(t->dims->data[d]);
    // The names this input goes by on the command line: its tensor name and its signature aliases.
    std::vector<std::string> names = {input.name};
    for (const auto& alias : target.aliases) {
      if (alias.second == indices[i]) names.push_back(alias.first);
    }
    input.source = "random";
    for (const std::string& name : names) {
      if (spec.value_files.count(name) != 0 && i < data.size()) {
        input.source = "file sha256 " + Sha256Hex(data[i].data(), data[i].size()).substr(0, 12);
      } else if (spec.value_ranges.count(name) != 0) {
        const std::pair<int, int>& range = spec.value_ranges.at(name);
        input.source = "random [" + std::to_string(range.first) + "," + std::to_string(range.second) + "]";
      }
    }
    described.push_back(input);
  }
  return described;
}

InputTarget MakeInputTarget(Interpreter* interpreter, const Target& target) {
  InputTarget input;
  input.subgraph = interpreter->subgraph(target.subgraph);
  if (!target.signature.empty()) {
    const SignatureInfo* info = interpreter->FindSignature(target.signature);
    if (info != nullptr) {
      for (const auto& entry : info->inputs) input.aliases[entry.first] = entry.second;
    }
  }
  return input;
}

}  // namespace

BenchmarkClock* SystemBenchmarkClock() {
  static SystemClock* clock = new SystemClock();
  return clock;
}

Status RunLoop(const RunLoopConfig& config, const RunLoopHooks& hooks, BenchmarkClock* clock, LatencyStats* stats) {
  int64_t now_us = clock->NowMicros();
  const int64_t start_us = now_us;
  const int64_t min_finish_us = now_us + static_cast<int64_t>(config.min_secs * 1.e6f);
  const int64_t max_finish_us = now_us + static_cast<int64_t>(config.max_secs * 1.e6f);
  const double gap_secs = config.run_frequency > 0 ? 1.0 / config.run_frequency : 0.0;
  // Seconds as double: a float cannot hold microsecond timestamps.
  double next_run_finish_secs = static_cast<double>(now_us) * 1e-6 + gap_secs;
  for (int64_t run = 0; (run < config.min_runs || now_us < min_finish_us) && now_us <= max_finish_us; ++run) {
    if (hooks.before_run) TS_RETURN_IF_ERROR(hooks.before_run());
    const int64_t run_start_ns = clock->NowNanos();
    const Status status = hooks.invoke ? hooks.invoke() : Status::Ok();
    const int64_t run_end_ns = clock->NowNanos();
    if (hooks.after_run) hooks.after_run();
    if (!status.ok()) return status;
    stats->Add(LatencySample{run_end_ns / 1000 - run_start_ns / 1000, run_end_ns - run_start_ns});
    double sleep_secs = config.run_delay_secs;
    if (config.run_frequency > 0) {
      sleep_secs = next_run_finish_secs - static_cast<double>(clock->NowMicros()) * 1e-6;
      next_run_finish_secs += gap_secs;
    }
    if (sleep_secs > 0) clock->SleepMicros(static_cast<int64_t>(sleep_secs * 1e6));
    now_us = clock->NowMicros();
    if (hooks.progress) hooks.progress(run + 1, now_us - start_us);
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<const Model>> LoadBenchmarkModel(const std::string& graph) {
  if (graph.rfind("fd:", 0) != 0) return Model::FromFile(graph);
  // TFLite's "fd:<fd>:<offset>:<size>": the model is `size` bytes at `offset` of an open descriptor.
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= graph.size(); ++i) {
    if (i == graph.size() || graph[i] == ':') {
      parts.push_back(graph.substr(start, i - start));
      start = i + 1;
    }
  }
  long long fd = 0, offset = 0, size = 0;
  if (parts.size() != 4 || !ParseNonNegative(parts[1], &fd) || !ParseNonNegative(parts[2], &offset) ||
      !ParseNonNegative(parts[3], &size) || size == 0 || fd > 1 << 20) {
    return UsageError("--graph=" + graph + ": expected fd:<fd>:<offset>:<size> with non-negative integers");
  }
  if (size > (int64_t{1} << 34)) return InvalidInputError(graph + ": size " + parts[3] + " is too large");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = pread(static_cast<int>(fd), bytes.data() + done, bytes.size() - done,
                              static_cast<off_t>(offset + static_cast<long long>(done)));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return InvalidInputError(graph + ": cannot read " + parts[3] + " bytes at offset " + parts[2] +
                               " of descriptor " + parts[1] +
                               (got < 0 ? std::string(": ") + std::strerror(errno) : ": file too short"));
    }
    done += static_cast<size_t>(got);
  }
  return Model::FromBuffer(std::move(bytes), graph);
}

StatusOr<std::vector<std::string>> ListSignatures(const std::string& graph, const InterpreterOptions& options) {
  TS_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, LoadBenchmarkModel(graph));
  TS_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> interpreter, Interpreter::Create(model, options));
  std::vector<std::string> keys;
  for (const SignatureInfo& s : interpreter->signatures()) keys.push_back(s.key);
  return keys;
}

namespace {

// The report's configuration: the envelope's, and the run loops as TFLite reads its flags (--dry_run
// sets warmup_runs 0, warmup_min_secs -1, num_runs 0, min_secs -1), which *warmup and *regular become.
void RecordRunConfig(const BenchmarkConfig& config, BenchmarkReport* report, RunLoopConfig* warmup_out,
                     RunLoopConfig* regular_out) {
  ReportEnvelope& envelope = report->envelope;
  envelope.start_time = UtcTimestamp();
  envelope.machine = ReadMachineInfo();
  envelope.config.num_threads = config.interpreter.num_threads;
  envelope.config.kernels = config.interpreter.kernel_set == KernelSet::kReference ? "reference" : "optimized";
  if (!config.signature.empty()) envelope.config.settings.emplace_back("signature", config.signature);
  report->config.dry_run = config.dry_run;
  if (config.keep_all_samples) {
    report->warmup = LatencyStats(LatencyStats::kKeepAll);
    report->regular = LatencyStats(LatencyStats::kKeepAll);
  }

  RunLoopConfig& warmup = *warmup_out;
  RunLoopConfig& regular = *regular_out;
  warmup = config.warmup;
  regular = config.regular;
  if (config.dry_run) {
    warmup.min_runs = 0;
    warmup.min_secs = -1.0f;
    regular.min_runs = 0;
    regular.min_secs = -1.0f;
  }
  report->config.warmup_runs = warmup.min_runs;
  report->config.warmup_min_secs = warmup.min_secs;
  report->config.num_runs = regular.min_runs;
  report->config.min_secs = regular.min_secs;
  report->config.max_secs = regular.max_secs;
  report->config.run_delay = regular.run_delay_secs;
  report->config.run_frequency = regular.run_frequency;
}

// The warmup runs, then the regular ones (profiled when asked); the first error stops them.
Status RunPhases(const RunLoopConfig& warmup, const RunLoopConfig& regular, const RunLoopHooks& hooks,
                 OpProfiler* profiler, BenchmarkListener* listener, BenchmarkClock* clock, BenchmarkReport* report) {
  Status status;
  for (RunKind kind : {RunKind::kWarmup, RunKind::kRegular}) {
    const RunLoopConfig& loop = kind == RunKind::kWarmup ? warmup : regular;
    LatencyStats* stats = kind == RunKind::kWarmup ? &report->warmup : &report->regular;
    RunLoopHooks run_hooks = hooks;
    if (kind == RunKind::kRegular && profiler != nullptr) {
      run_hooks.before_run = [&]() {
        profiler->BeginRun();
        return Status::Ok();
      };
      run_hooks.after_run = [&]() { profiler->EndRun(); };
    }
    run_hooks.progress = [&, kind](int64_t runs, int64_t elapsed_us) {
      listener->OnRunProgress(kind, runs, elapsed_us);
    };
    listener->OnRunsStarting(kind, loop);
    status = RunLoop(loop, run_hooks, clock, stats);
    listener->OnRunsFinished(kind, *stats);
    if (!status.ok()) break;
  }
  return status;
}

// The memory figures at the end, beside those at the start and after Init.
void RecordMemory(const MemorySnapshot& start_memory, const MemorySnapshot& init_memory, PeakRssMonitor* monitor,
                  const Interpreter& interpreter, BenchmarkReport* report) {
  const MemorySnapshot end_memory = ReadMemorySnapshot();
  if (monitor != nullptr) {
    monitor->Stop();
    report->memory.peak_sampled = true;
    report->memory.peak_rss_bytes = monitor->peak_rss_bytes();
    report->memory.sample_interval_ms = monitor->interval_ms();
    report->memory.samples = monitor->samples();
  }
  report->memory.os_figures = start_memory.valid && init_memory.valid && end_memory.valid;
  report->memory.rss_start_bytes = start_memory.rss_bytes;
  report->memory.rss_after_init_bytes = init_memory.rss_bytes;
  report->memory.rss_end_bytes = end_memory.rss_bytes;
  report->memory.max_rss_start_bytes = start_memory.max_rss_bytes;
  report->memory.max_rss_after_init_bytes = init_memory.max_rss_bytes;
  report->memory.max_rss_end_bytes = end_memory.max_rss_bytes;
  report->memory.arena_bytes = static_cast<int64_t>(interpreter.arena_bytes());
  report->memory.dynamic_tensor_bytes = static_cast<int64_t>(interpreter.dynamic_bytes());
  report->memory.weights_released_bytes = static_cast<int64_t>(interpreter.weights_released_bytes());
  report->memory.prepared_weights_released_bytes = static_cast<int64_t>(interpreter.prepared_weights_released_bytes());
}

}  // namespace

Status RunBenchmark(const BenchmarkConfig& config, const std::vector<ProvidedDelegate>& delegates,
                    BenchmarkListener* listener, BenchmarkReport* report, BenchmarkClock* clock) {
  BenchmarkListener silent;
  if (listener == nullptr) listener = &silent;
  if (clock == nullptr) clock = SystemBenchmarkClock();
  ReportEnvelope& envelope = report->envelope;
  RunLoopConfig warmup, regular;
  RecordRunConfig(config, report, &warmup, &regular);
  std::unique_ptr<PeakRssMonitor> monitor;
  if (config.peak_memory) {
    monitor.reset(new PeakRssMonitor(config.memory_interval_ms));
    monitor->Start();
  }
  const MemorySnapshot start_memory = ReadMemorySnapshot();
  const int64_t init_start_us = clock->NowMicros();

  envelope.model.path = config.graph;
  TS_ASSIGN_OR_RETURN(const std::shared_ptr<const Model> model, LoadBenchmarkModel(config.graph));
  const int64_t loaded_us = clock->NowMicros();
  report->init_parts.load_us = loaded_us - init_start_us;
  int64_t build_us = 0;
  envelope.model.size_bytes = static_cast<int64_t>(model->file_bytes());
  report->config.subgraphs =
      model->fb()->subgraphs() != nullptr ? static_cast<int>(model->fb()->subgraphs()->size()) : 0;
  report->memory.model_file_bytes = envelope.model.size_bytes;
  report->memory.weights_bytes = static_cast<int64_t>(model->weights_bytes());
  listener->OnModelLoaded(*report);

  Target target;
  bool target_resolved = false;
  auto build_interpreter = [&]() -> StatusOr<std::unique_ptr<Interpreter>> {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> made, Interpreter::Create(model, config.interpreter));
    Interpreter* interpreter = made.get();
    if (!target_resolved) {
      TS_ASSIGN_OR_RETURN(target, ResolveTarget(interpreter, config.signature));
      target_resolved = true;
      if (!target.warning.empty()) listener->OnWarning(target.warning);
      if (!target.signature.empty()) listener->OnSignature(target.signature);
    }
    TS_RETURN_IF_ERROR(ApplyInputShapes(config.inputs, MakeInputTarget(interpreter, target)));
    return std::move(made);
  };
  // Called again when a delegate fails and the interpreter is rebuilt without it.
  auto make_interpreter = [&]() -> StatusOr<std::unique_ptr<Interpreter>> {
    const int64_t build_start_us = clock->NowMicros();
    StatusOr<std::unique_ptr<Interpreter>> made = build_interpreter();
    build_us += clock->NowMicros() - build_start_us;
    return made;
  };
  ApplyDelegatesOptions apply_options;
  apply_options.require_full_delegation = config.require_full_delegation;
  std::vector<DelegateOutcome> outcomes;
  StatusOr<std::unique_ptr<Interpreter>> built =
      BuildInterpreterWithDelegates(make_interpreter, delegates, apply_options, &outcomes);
  for (const DelegateOutcome& outcome : outcomes) {
    envelope.config.delegates.push_back(ReportDelegateOutcome(outcome));
    listener->OnDelegateOutcome(outcome, built.ok());
  }
  TS_ASSIGN_OR_RETURN(const std::unique_ptr<Interpreter> owned, std::move(built));
  const int64_t built_us = clock->NowMicros();
  report->init_parts.build_us = build_us;
  report->init_parts.prepare_us = built_us - loaded_us - build_us;
  Interpreter* interpreter = owned.get();
  report->config.signature = target.signature;
  report->config.subgraph = target.subgraph;
  const InputTarget inputs = MakeInputTarget(interpreter, target);
  if (!inputs.subgraph->tensors_allocated()) {
    Status allocated = inputs.subgraph->AllocateTensors();
    if (!allocated.ok()) return allocated.WithContext(model->name());
  }
  const std::vector<int>& plan = inputs.subgraph->execution_plan();
  report->config.execution_plan_nodes = static_cast<int>(plan.size());
  report->config.delegate_kernels = inputs.subgraph->delegated_node_count();
  report->config.fully_delegated = inputs.subgraph->fully_delegated();
  const int64_t init_end_us = clock->NowMicros();
  report->init_parts.allocate_us = init_end_us - built_us;
  report->init_us = init_end_us - init_start_us;
  // The report's fingerprint of the model, outside the Init figure (TFLite's Init has no such work).
  if (config.fingerprint_model) envelope.model.sha256 = Sha256Hex(model->file_data(), model->file_bytes());
  const MemorySnapshot init_memory = ReadMemorySnapshot();
  report->memory.arena_bytes = static_cast<int64_t>(interpreter->arena_bytes());
  report->kernels = KernelUsageOf(interpreter);
  listener->OnInitialized(*report);

  TS_ASSIGN_OR_RETURN(std::vector<std::vector<uint8_t>> data, MakeInputData(config.inputs, inputs));
  for (const std::vector<uint8_t>& d : data) report->config.input_bytes += static_cast<int64_t>(d.size());
  envelope.config.inputs = DescribeInputs(config.inputs, inputs, data);

  std::unique_ptr<OpProfiler> profiler;
  if (config.op_profiling) {
    profiler.reset(new OpProfiler(interpreter));
    interpreter->SetNodeObserver(profiler.get());
  }
  listener->OnBenchmarkStart(*report, interpreter);
  TS_RETURN_IF_ERROR(listener->CheckBeforeRuns(report));

  const bool primary = target.subgraph == 0;
  Subgraph* subgraph = inputs.subgraph;
  // Inputs are set once, as TFLite's benchmark sets them: copying them again before every run would
  // keep them hot in the cache for Invoke (or, when large, push its working set out).
  CopyInputData(data, inputs);
  RunLoopHooks hooks;
  hooks.invoke = [&]() -> Status {
    if (primary) return interpreter->Invoke();
    return subgraph->Invoke().WithContext(model->name());
  };
  const Status status = RunPhases(warmup, regular, hooks, profiler.get(), listener, clock, report);
  interpreter->SetNodeObserver(nullptr);

  RecordMemory(start_memory, init_memory, monitor.get(), *interpreter, report);
  // Nodes prepared during Invoke (after a dynamic output) have chosen their kernels by now.
  if (report->kernels.at_invoke > 0) report->kernels = KernelUsageOf(interpreter);
  if (profiler != nullptr) {
    report->has_op_profile = true;
    report->op_profile = profiler->Report();
  }
  if (!status.ok()) return status;
  listener->OnBenchmarkEnd(*report, interpreter, inputs);
  return Status::Ok();
}

}  // namespace touchstone
