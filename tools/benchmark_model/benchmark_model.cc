// benchmark_model: how long a .tflite model takes to run on this machine, with TensorFlow Lite's
// flags and output lines. It measures wall-clock latency of Invoke alone (inputs are copied in
// before each run, outside the timer), after warm-up runs, and the time to initialise. It does not
// measure accuracy (see imagenet_eval, coco_eval) nor compare against the reference (inference_diff).
// Delegates come from the delegate-provider registry's flags and are applied in command-line order.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "delegates/providers/apply_delegates.h"
#include "evaluation/latency_stats.h"
#include "evaluation/model_inputs.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"

namespace touchstone {
namespace {

struct BenchmarkFlags {
  std::string graph;
  int32_t num_threads = -1;
  int32_t num_runs = 50;
  float min_secs = 1.0f;
  float max_secs = 150.0f;
  float run_delay = -1.0f;
  int32_t warmup_runs = 1;
  float warmup_min_secs = 0.5f;
  std::string input_layer;
  std::string input_layer_shape;
  std::string input_layer_value_range;
  std::string input_layer_value_files;
  std::string output_filepath;
  bool use_reference_kernels = false;
  bool require_full_delegation = false;
  bool verbose = false;
};

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Runs Invoke in TFLite's loop: at least `min_runs` runs and `min_secs`, stopping once `max_secs`
// have passed. Only Invoke is timed.
Status RunLoop(Interpreter* interpreter, const std::vector<std::vector<uint8_t>>& inputs,
               int min_runs, float min_secs, float max_secs, float run_delay_secs,
               LatencyStats* stats) {
  std::cout << "Running benchmark for at least " << min_runs << " iterations and at least "
            << min_secs << " seconds but terminate if exceeding " << max_secs << " seconds."
            << std::endl;
  const int64_t start_us = NowMicros();
  const int64_t min_finish_us = start_us + static_cast<int64_t>(min_secs * 1e6f);
  const int64_t max_finish_us = start_us + static_cast<int64_t>(max_secs * 1e6f);
  int64_t now_us = start_us;
  for (int run = 0; (run < min_runs || now_us < min_finish_us) && now_us <= max_finish_us; ++run) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::memcpy(interpreter->input_tensor(i)->data.raw, inputs[i].data(), inputs[i].size());
    }
    const int64_t run_start_us = NowMicros();
    TS_RETURN_IF_ERROR(interpreter->Invoke());
    const int64_t run_end_us = NowMicros();
    stats->Add(run_end_us - run_start_us);
    if (run_delay_secs > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(run_delay_secs * 1e6f)));
    }
    now_us = NowMicros();
  }
  std::cout << stats->ToString() << std::endl;
  return Status::Ok();
}

// Writes every output's raw bytes, concatenated in output order, whole or not at all.
Status WriteOutputs(Interpreter* interpreter, const std::string& path) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return InvalidInputError("--output_filepath: cannot write " + path);
    for (size_t i = 0; i < interpreter->outputs().size(); ++i) {
      const TfLiteTensor* t = interpreter->output_tensor(i);
      if (t->bytes > 0 && t->data.raw != nullptr) out.write(t->data.raw, static_cast<std::streamsize>(t->bytes));
    }
    if (!out.good()) {
      std::remove(temp.c_str());
      return InvalidInputError("--output_filepath: write to " + path + " failed");
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return InvalidInputError("--output_filepath: cannot rename into " + path);
  }
  return Status::Ok();
}

Status Run(const BenchmarkFlags& flags, const FlagTable& table, DelegateFlagGroup* delegate_flags) {
  if (flags.graph.empty()) return UsageError("--graph is required (the .tflite model to benchmark)");
  if (flags.num_runs < 0 || flags.warmup_runs < 0) {
    return UsageError("--num_runs and --warmup_runs must not be negative");
  }
  StatusOr<InputSpec> spec = ParseInputSpec(flags.input_layer, flags.input_layer_shape,
                                            flags.input_layer_value_range, flags.input_layer_value_files);
  if (!spec.ok()) return spec.status();

  const int64_t init_start_us = NowMicros();
  StatusOr<std::shared_ptr<const Model>> model = Model::FromFile(flags.graph);
  if (!model.ok()) return model.status();
  std::cout << "Loaded model " << flags.graph << std::endl;
  std::cout << "The input model file size (MB): " << model.value()->file_bytes() / 1e6 << std::endl;

  InterpreterOptions options;
  options.kernel_set = flags.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
  options.num_threads = flags.num_threads > 0 ? flags.num_threads : 1;
  // Declared before the interpreter, so the interpreter (whose delegate kernels live in them) goes first.
  StatusOr<std::vector<ProvidedDelegate>> delegates = delegate_flags->CreateDelegates(table, options.num_threads);
  if (!delegates.ok()) return delegates.status();
  if (!delegates.value().empty()) {
    std::cout << "Going to apply " << delegates.value().size() << " delegates one after another." << std::endl;
  }
  const InputSpec& input_spec = spec.value();
  const std::shared_ptr<const Model>& loaded = model.value();
  auto make_interpreter = [&]() -> StatusOr<std::unique_ptr<Interpreter>> {
    StatusOr<std::unique_ptr<Interpreter>> made = Interpreter::Create(loaded, options);
    if (!made.ok()) return made.status();
    TS_RETURN_IF_ERROR(ApplyInputShapes(input_spec, made.value().get()));
    return made;
  };
  ApplyDelegatesOptions apply_options;
  apply_options.require_full_delegation = flags.require_full_delegation;
  std::vector<DelegateOutcome> outcomes;
  StatusOr<std::unique_ptr<Interpreter>> interpreter =
      BuildInterpreterWithDelegates(make_interpreter, delegates.value(), apply_options, &outcomes);
  for (const DelegateOutcome& outcome : outcomes) {
    if (outcome.applied) {
      std::cout << DescribeOutcome(outcome) << std::endl;
    } else if (interpreter.ok()) {
      std::cerr << "WARNING: " << DescribeOutcome(outcome) << std::endl;
    }
  }
  if (!interpreter.ok()) return interpreter.status();
  Interpreter* interp = interpreter.value().get();
  const int64_t init_us = NowMicros() - init_start_us;
  std::cout << "Initialized session in " << init_us / 1e3 << "ms." << std::endl;

  StatusOr<std::vector<std::vector<uint8_t>>> inputs = MakeInputData(spec.value(), interp);
  if (!inputs.ok()) return inputs.status();

  LatencyStats warmup;
  TS_RETURN_IF_ERROR(RunLoop(interp, inputs.value(), flags.warmup_runs, flags.warmup_min_secs,
                             flags.max_secs, flags.run_delay, &warmup));
  LatencyStats regular;
  TS_RETURN_IF_ERROR(RunLoop(interp, inputs.value(), flags.num_runs, flags.min_secs, flags.max_secs,
                             flags.run_delay, &regular));
  std::cout << "Inference timings in us: Init: " << init_us
            << ", First inference: " << (warmup.empty() ? 0 : warmup.first_us())
            << ", Warmup (avg): " << warmup.mean_us() << ", Inference (avg): " << regular.mean_us()
            << std::endl;
  std::cout << "Memory (arena bytes): " << interp->arena_bytes()
            << ", weights bytes: " << model.value()->weights_bytes() << std::endl;
  if (!flags.output_filepath.empty()) TS_RETURN_IF_ERROR(WriteOutputs(interp, flags.output_filepath));
  return Status::Ok();
}

int Main(int argc, char** argv) {
  BenchmarkFlags flags;
  FlagTable table;
  table.AddString("graph", &flags.graph, "the .tflite model to benchmark");
  table.AddInt("num_threads", &flags.num_threads, "threads for CPU inference (-1: the runtime's default)");
  table.AddInt("num_runs", &flags.num_runs, "minimum number of timed runs");
  table.AddFloat("min_secs", &flags.min_secs, "minimum seconds of timed runs");
  table.AddFloat("max_secs", &flags.max_secs, "stop the timed runs after this many seconds");
  table.AddFloat("run_delay", &flags.run_delay, "seconds to sleep between runs (-1: none)");
  table.AddInt("warmup_runs", &flags.warmup_runs, "minimum number of warm-up runs");
  table.AddFloat("warmup_min_secs", &flags.warmup_min_secs, "minimum seconds of warm-up runs");
  table.AddString("input_layer", &flags.input_layer, "input names, comma separated");
  table.AddString("input_layer_shape", &flags.input_layer_shape, "shapes for --input_layer: 1,224,224,3:1,10");
  table.AddString("input_layer_value_range", &flags.input_layer_value_range, "name,low,high:... for random integer inputs");
  table.AddString("input_layer_value_files", &flags.input_layer_value_files, "name:path,... raw input bytes ('::' for ':' in a name)");
  table.AddString("output_filepath", &flags.output_filepath, "write all outputs' raw bytes here after the runs");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels, "run the single-threaded reference kernels");
  table.AddBool("require_full_delegation", &flags.require_full_delegation,
                "fail (exit code 4) unless a delegate takes the whole graph: no CPU fallback");
  table.AddBool("verbose", &flags.verbose, "print every parameter");
  DelegateFlagGroup delegate_flags;
  delegate_flags.AddTo(&table);
  bool help = false;
  std::vector<std::string> warnings;
  Status parsed = table.Parse(argc, argv, &help, &warnings);
  if (help) {
    std::cout << table.Usage("benchmark_model");
    return 0;
  }
  if (!parsed.ok()) return ReportFailure(parsed);
  for (const std::string& w : warnings) std::cerr << "WARNING: " << w << std::endl;
  std::cout << "STARTING!" << std::endl;
  std::cout << "Graph: [" << flags.graph << "]" << std::endl;
  std::cout << "Num runs: [" << flags.num_runs << "]" << std::endl;
  std::cout << "Kernels: [" << (flags.use_reference_kernels ? "reference" : "optimized") << "]" << std::endl;
  Status status = Run(flags, table, &delegate_flags);
  if (!status.ok()) return ReportFailure(status);
  return 0;
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
