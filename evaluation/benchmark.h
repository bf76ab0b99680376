// The benchmark stage behind benchmark_model: loads a model, builds the interpreter with the given
// delegates (delegates/providers/apply_delegates.h), makes the inputs, runs TFLite's warm-up and
// regular loops timing Invoke alone, and fills a BenchmarkReport (latency, memory, op profile). It
// knows nothing of flags; the tool translates flags into a BenchmarkConfig and prints, through a
// BenchmarkListener, the lines the report holds as the run proceeds.
#ifndef TOUCHSTONE_EVALUATION_BENCHMARK_H_
#define TOUCHSTONE_EVALUATION_BENCHMARK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "delegates/providers/apply_delegates.h"
#include "delegates/providers/delegate_provider.h"
#include "evaluation/benchmark_report.h"
#include "evaluation/latency_stats.h"
#include "evaluation/model_inputs.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "runtime/status.h"

namespace touchstone {

// --- The run loop ------------------------------------------------------------------------------

// Time for the run loop; tests substitute a fake one.
class BenchmarkClock {
 public:
  virtual ~BenchmarkClock() = default;
  virtual int64_t NowMicros() = 0;
  // Nanoseconds of the same clock (a fake clock's microseconds * 1000 unless it says otherwise).
  virtual int64_t NowNanos() { return NowMicros() * 1000; }
  virtual void SleepMicros(int64_t micros) = 0;
};

// steady_clock and this_thread::sleep_for.
BenchmarkClock* SystemBenchmarkClock();

struct RunLoopConfig {
  int min_runs = 1;              // at least this many runs ...
  float min_secs = 0.0f;         // ... and at least this long ...
  float max_secs = 150.0f;       // ... but no run starts after this many seconds
  float run_delay_secs = -1.0f;  // sleep after each run (<= 0: none)
  float run_frequency = -1.0f;   // > 0: pace runs to this many per second (overrides run_delay)
};

struct RunLoopHooks {
  std::function<Status()> before_run;  // outside the timer: copy the inputs in
  std::function<Status()> invoke;      // timed
  std::function<void()> after_run;     // outside the timer
  // After each run: runs so far and microseconds since the loop started.
  std::function<void(int64_t, int64_t)> progress;
};

// TFLite's loop: run while (run < min_runs || now < start + min_secs) && now <= start + max_secs. Each
// sample is the time of `invoke` alone: in whole microseconds as TFLite takes it (the difference of two
// microsecond readings) and in nanoseconds. With run_frequency > 0 the loop sleeps until the next slot of
// a fixed schedule (1/run_frequency apart), not at all when it is behind (it catches up); otherwise it
// sleeps run_delay seconds after each run. The first failing hook ends the loop with its error.
Status RunLoop(const RunLoopConfig& config, const RunLoopHooks& hooks, BenchmarkClock* clock, LatencyStats* stats);

// --- The whole benchmark -------------------------------------------------------------------------

struct BenchmarkConfig {
  std::string graph;  // a path, or TFLite's "fd:<fd>:<offset>:<size>"
  InterpreterOptions interpreter;
  // --signature_to_run_for. "": the model's only signature; the primary subgraph when it has none, or
  // several (with a warning; TFLite refuses that case).
  std::string signature;
  InputSpec inputs;
  RunLoopConfig warmup;
  RunLoopConfig regular;
  bool dry_run = false;  // load, build, allocate; no Invoke (TFLite: 0 runs, min secs -1)
  bool require_full_delegation = false;
  bool op_profiling = false;
  bool peak_memory = false;  // sample the RSS on a thread
  int memory_interval_ms = 50;
  // Keep every latency sample (unbounded memory and report size) instead of a bounded summary
  // (latency_stats.h).
  bool keep_all_samples = false;
  // The model's sha256 in the report's envelope: reading the whole file costs ~3 ms per MB, so a tool
  // that writes no report and checks no baseline leaves it empty.
  bool fingerprint_model = true;
};

enum class RunKind { kWarmup, kRegular };

// What the tool prints, and when. Each callback sees the report as far as it is filled.
class BenchmarkListener {
 public:
  virtual ~BenchmarkListener() = default;
  virtual void OnModelLoaded(const BenchmarkReport&) {}
  virtual void OnSignature(const std::string& /*key*/) {}
  // Something the user should know that does not stop the run (one line).
  virtual void OnWarning(const std::string& /*message*/) {}
  // `built`: whether the interpreter came up (a failed delegate is a warning when it did).
  virtual void OnDelegateOutcome(const DelegateOutcome&, bool /*built*/) {}
  virtual void OnInitialized(const BenchmarkReport&) {}
  // After the inputs are made, before the first run (TFLite prints the pre-invoke state here).
  virtual void OnBenchmarkStart(const BenchmarkReport&, Interpreter*) {}
  // Then, with the report's envelope complete as far as RunBenchmark knows it: the listener may add to it
  // and stop the benchmark before any run (a gate whose baseline was made with another configuration).
  virtual Status CheckBeforeRuns(BenchmarkReport*) { return Status::Ok(); }
  virtual void OnRunsStarting(RunKind, const RunLoopConfig&) {}
  virtual void OnRunProgress(RunKind, int64_t /*runs*/, int64_t /*elapsed_us*/) {}
  virtual void OnRunsFinished(RunKind, const LatencyStats&) {}
  // Everything measured; the interpreter still holds the last run's outputs.
  virtual void OnBenchmarkEnd(const BenchmarkReport&, Interpreter*, const InputTarget& /*target*/) {}
};

// Loads `graph` (a path or "fd:<fd>:<offset>:<size>"). Errors name it (kInvalidInput; kUsage for a
// malformed fd: form).
StatusOr<std::shared_ptr<const Model>> LoadBenchmarkModel(const std::string& graph);

// The signature keys of a model, in file order.
StatusOr<std::vector<std::string>> ListSignatures(const std::string& graph, const InterpreterOptions& options);

// Runs the benchmark. `delegates` are applied in order and must outlive the call. `report` is filled as
// far as the run got, also on error: its envelope's start time, model, machine, threads, kernels,
// delegate outcomes and inputs (the caller adds the version, the flags and the delegates' options).
// `clock` null: the system clock.
Status RunBenchmark(const BenchmarkConfig& config, const std::vector<ProvidedDelegate>& delegates,
                    BenchmarkListener* listener, BenchmarkReport* report, BenchmarkClock* clock = nullptr);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_BENCHMARK_H_
