// The inference_diff stage: runs one model on two interpreters with the same inputs and says how far
// the test interpreter (the user's kernels, threads and delegates) is from the reference (reference
// kernels, one thread, no delegate). It is TFLite's inference_diff (its Gaussian inputs, 3 invocations
// per run, one mean absolute error per output averaged over runs), plus per-output detail
// (output_diff.h), thresholds for CI, and a layer-wise comparison of every tensor both interpreters
// materialise, in execution order, naming the first op that diverges and its inputs' errors.
//
// No I/O: the caller reads input files and prints or writes the result (FormatInferenceDiff,
// InferenceDiffJson: the text is a view of the same structure the JSON report holds).
#ifndef TOUCHSTONE_EVALUATION_INFERENCE_DIFF_H_
#define TOUCHSTONE_EVALUATION_INFERENCE_DIFF_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "delegates/providers/apply_delegates.h"
#include "delegates/providers/delegate_provider.h"
#include "evaluation/latency_stats.h"
#include "evaluation/output_diff.h"
#include "evaluation/quality_gate.h"
#include "evaluation/report_envelope.h"
#include "evaluation/shards.h"
#include "runtime/model.h"
#include "runtime/op_resolver.h"
#include "runtime/status.h"

namespace touchstone {

// TFLite's inference_diff inputs (inference_profiler_stage.cc): each value is drawn from a normal
// distribution (mean 0.5, std 1/3 as a float) with std::default_random_engine, redrawn until it lies
// in [0, 1), then scaled to [min, max] in float arithmetic and cast: float32 and float16 (and float64)
// to [-1, 1]; integer types over their whole range. Like TFLite's function template, whose engine and
// distribution are static per C++ type, each C++ type has its own engine and distribution, and their
// state carries over from one input and one run to the next. Seed 1 is the default-constructed engine's,
// so the default sequence is TFLite's.
class GaussianInputGenerator {
 public:
  explicit GaussianInputGenerator(uint32_t seed = 1) : seed_(seed) {}
  // `count` elements of `type` into *bytes. Types with no number form (string, resource, ...) are an
  // error naming the type.
  Status Fill(TfLiteType type, int64_t count, std::vector<uint8_t>* bytes);

 private:
  struct Source {
    std::default_random_engine engine;
    std::normal_distribution<double> distribution;
  };
  Source* SourceFor(int cpp_type);
  double Next(Source* source);

  uint32_t seed_;
  std::map<int, std::unique_ptr<Source>> sources_;
};

// A breach is a value beyond one of these; a negative maximum (or a min_cosine of -1 or less) turns its
// check off. Errors are in the tensor's raw units (quantization steps for quantized tensors), as
// TFLite's avg_error; max_relative_error is TensorDiffSummary::max_relative_error (max |diff| over the
// reference's largest magnitude).
struct DiffThresholds {
  double max_avg_error = -1.0;
  double max_abs_error = -1.0;
  double min_cosine = -1.0;
  double max_relative_error = -1.0;
  bool qualify = false;  // --qualify's defaults (breaches say so), not flags
  bool any() const { return max_avg_error >= 0 || max_abs_error >= 0 || min_cosine > -1.0 || max_relative_error >= 0; }
};

// "avg_error=0.5 > --max_avg_error=0.1" ("> 1 (--qualify's default)" for the defaults), or "" when the
// summary is within every threshold that is on.
std::string DescribeBreach(const TensorDiffSummary& diff, const DiffThresholds& thresholds);

// --qualify's thresholds for a tensor (docs/inference_diff.md): float tensors within `float_tolerance` of
// the reference's largest magnitude (max_relative_error); quantized integer tensors within one
// quantization step (max_abs_error 1); other integer, boolean and byte tensors exact.
DiffThresholds QualifyThresholds(TfLiteType type, bool quantized, double float_tolerance);
// The float tolerances --qualify uses by default: float32 arithmetic against the reference, and a
// delegate that computes in float16 (DelegateProvider::reduced_precision).
constexpr double kQualifyFloat32Tolerance = 1e-5;
constexpr double kQualifyFloat16Tolerance = 1e-2;
// "max |diff| <= 1e-05 x max |reference|", "max |diff| <= 1 step", "exact".
std::string DescribeThresholds(const DiffThresholds& thresholds);

struct InferenceDiffConfig {
  int num_runs = 50;
  // TFLite invokes 3 times per run with the same inputs (for steadier latencies); each invocation is
  // one latency sample, and the outputs after the last one are compared.
  int invocations_per_run = 3;
  uint32_t seed = 1;
  // Inputs with fixed values (raw bytes of the tensor's type), by input tensor name; `source` names
  // where they came from in messages (the file). The other inputs are random, new for every run.
  struct FixedInput {
    std::vector<uint8_t> bytes;
    std::string source;
  };
  std::map<std::string, FixedInput> fixed_inputs;
  // Keep every tensor of both interpreters and compare them all (InterpreterOptions::preserve_all_tensors).
  bool layerwise = false;
  DiffThresholds thresholds;
  // --qualify: per-tensor thresholds by type (QualifyThresholds) instead of `thresholds`.
  bool qualify = false;
  double qualify_float_tolerance = kQualifyFloat32Tolerance;
  // The test interpreter's CPU side; its delegates are given to RunInferenceDiff.
  KernelSet test_kernel_set = KernelSet::kOptimized;
  int test_num_threads = 1;
  bool require_full_delegation = false;
  // InterpreterOptions::max_tensor_bytes for both interpreters.
  uint64_t max_tensor_bytes = uint64_t{16} << 30;
  // InterpreterOptions::allow_newer_op_versions for both interpreters.
  bool allow_newer_op_versions = false;
  // --shard_index/--num_shards: this process runs only its part of the runs (docs/cluster.md), with the
  // inputs a single run would draw for them (the generator goes through the runs before it unused).
  ShardSpec shard;
};

// One compared tensor of the primary subgraph.
struct TensorDiffEntry {
  int tensor = -1;
  std::string name;
  std::string type;
  std::vector<int> shape;  // the reference's, after the last run
  TensorDiffSummary diff;
  DiffThresholds thresholds;           // those applied to this tensor
  std::string mismatch;                // non-empty: shapes or types differ (a failure whatever the thresholds)
  std::string breach;                  // DescribeBreach, or the mismatch
  TensorDiffAccumulator::State state;  // what was accumulated (a shard report carries it)
};

struct OutputDiffEntry : TensorDiffEntry {
  int index = 0;  // position among the model's outputs
};

// A tensor the layer-wise comparison looks at: an output of an op in the test interpreter's execution
// order; for a delegate kernel, the outputs of its partition, attributed to the original op writing them.
struct LayerDiffEntry : TensorDiffEntry {
  int step = 0;    // position of the op (or its delegate kernel) in the test execution plan
  int node = -1;   // the original graph's op writing the tensor
  std::string op;  // its op name ("CONV_2D", a custom op's name)
  bool delegated = false;
  int delegate_node = -1;     // the delegate kernel node replacing it
  std::string delegate_name;  // that kernel's name ("SampleDelegate")
};

// An input of the first diverging op, and how far it already was.
struct DivergenceInput {
  int tensor = -1;
  std::string name;
  // "compared" (diff holds its figures), "graph input" (identical in both runs), "constant",
  // "variable", "inside the delegated partition" (the test run keeps it to the delegate), or
  // "not compared".
  std::string kind;
  TensorDiffSummary diff;
};

struct InputInfo {
  std::string name;
  std::string type;
  std::vector<int> shape;
  std::string source;  // "random" or the file its bytes came from
};

struct InferenceDiffResult {
  // Schema, tool, version, start time, model, machine, and the test interpreter's configuration
  // (threads, kernels, delegates, inputs; num_runs, seed and invocations as settings).
  ReportEnvelope envelope{"touchstone.inference_diff.report", 2, "inference_diff"};
  std::string model;
  int num_runs = 0;
  int invocations_per_run = 0;
  uint32_t seed = 1;
  std::vector<InputInfo> inputs;  // the model's inputs, in order
  std::string test_kernels;       // "optimized" or "reference"
  int test_num_threads = 1;
  std::vector<DelegateOutcome> delegates;  // applied to the test interpreter, in order
  LatencyStats reference_latency;          // one sample per invocation
  LatencyStats test_latency;
  std::vector<OutputDiffEntry> outputs;
  DiffThresholds thresholds;
  bool qualify = false;
  double qualify_float_tolerance = 0.0;

  bool layerwise = false;
  std::vector<LayerDiffEntry> layers;  // in execution order
  int tensors_inside_partitions = 0;   // written inside delegate kernels, not materialised
  // Index into `layers` of the first tensor beyond a threshold (or, with no thresholds, the first that
  // differs at all); -1 when none.
  int first_divergence = -1;
  bool divergence_is_breach = false;
  std::vector<DivergenceInput> divergence_inputs;
  // A shard of a model that keeps state between invokes (variable tensors, resource variables) runs the
  // runs before its part first, unmeasured, so that its runs start from the single run's state.
  int replayed_runs = 0;
  // In a shard report: each layer's inputs as DivergenceInput names them (their figures left out).
  std::vector<std::vector<DivergenceInput>> layer_inputs;

  // Whether any threshold applied (flags or --qualify): without one there is no verdict, never a PASS.
  bool checked = false;
  bool passed = true;
  std::string failure;  // the FAIL line's text (without "FAIL: ")

  // --baseline: this run's output errors against an earlier report's.
  struct Gate {
    bool requested = false;
    std::string baseline_path;
    std::string config_change;  // what differed (--allow_config_change), "" when the configurations matched
    ErrorGateResult errors;
  } gate;
};

// The exit code of a run: 1 when a threshold failed, else the gate's (0, 1 or 5), else 0.
int InferenceDiffExitCode(const InferenceDiffResult& result);

// The output errors of this run, for the gate.
std::vector<OutputErrors> OutputErrorsOf(const InferenceDiffResult& result);

// What the gate needs from a report read back.
struct InferenceDiffBaseline {
  ReportEnvelope envelope;
  std::vector<OutputErrors> outputs;
};
// Parses a report written by InferenceDiffJson. Errors (kInvalidInput) name `source`.
StatusOr<InferenceDiffBaseline> ParseInferenceDiffJson(const std::string& text, const std::string& source);

// Builds both interpreters for `model` (`delegates` go to the test interpreter, in order, with CPU
// fallback as every binary applies them; they must outlive the call), runs config.num_runs runs and
// compares. Errors: kUsage for an input name the model lacks, kInvalidInput for input bytes of the
// wrong size or an input type that cannot be made random, kExecution for a failed Invoke or delegation.
// A comparison beyond a threshold is not an error: result.passed is false.
StatusOr<InferenceDiffResult> RunInferenceDiff(const std::shared_ptr<const Model>& model,
                                               const InferenceDiffConfig& config,
                                               const std::vector<ProvidedDelegate>& delegates);

// The report one run over every run of `shards` (inference_diff shard reports, checked and in order:
// CheckShardReports) would have written: each output's and layer's error accumulators appended run by
// run (TensorDiffAccumulator::Append), so every error figure, the thresholds' verdicts and the first
// diverging op are the single run's exactly; latencies merged (MergedLatency). Errors (kInvalidInput)
// name the file and what it lacks.
StatusOr<InferenceDiffResult> MergeInferenceDiffShards(const std::vector<ShardReport>& shards);

// The lines the tool prints on stdout: TFLite's ("Num evaluation runs: N", "Reference run latency:
// avg=X(us), std_dev=Y(us)", "Test run latency: ...", "OutputDiff[i]: avg_error=X, std_dev=Y"), then
// per-output detail, the layer-wise table and first divergence, the thresholds --qualify applied, and
// "PASS", "FAIL: ..." or "verdict: none (no thresholds given)"; then the gate's lines.
std::string FormatInferenceDiff(const InferenceDiffResult& result);

// The JSON report in the shared envelope (docs/inference_diff.md, docs/schemas/inference_diff.schema.json).
// Infinite or NaN figures are written as null. A shard report (envelope.shard) also holds each output's
// and layer's accumulator state ("shard_state"), each layer's inputs as the first diverging op would
// name them, and the latency states: what MergeInferenceDiffShards needs.
std::string InferenceDiffJson(const InferenceDiffResult& result);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_INFERENCE_DIFF_H_
