// inference_diff: does the test interpreter (the user's kernels, threads and delegates) compute what
// the reference interpreter (reference kernels, one thread, no delegate) computes? TensorFlow Lite's
// inference_diff flags and lines, plus per-output detail, thresholds for CI (a breach prints one
// "FAIL: ..." line and exits 1; without any there is no verdict, never a PASS), --qualify's documented
// default thresholds per output type, a gate against an earlier report's errors (--baseline), a
// layer-wise comparison naming the first diverging op (--layerwise), inputs from files, and a JSON
// report. It measures errors, not speed (its latencies are TFLite's lines, not a benchmark). The work is
// evaluation/inference_diff.h; this main turns flags into its config and prints its result.
// docs/inference_diff.md.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delegates/providers/delegate_provider.h"
#include "evaluation/inference_diff.h"
#include "evaluation/model_inputs.h"
#include "evaluation/shards.h"
#include "runtime/logging.h"
#include "runtime/model.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

struct DiffFlags {
  std::string model_file;
  std::string output_file_path;
  int32_t num_runs = 50;
  int32_t num_interpreter_threads = 1;
  std::string delegate;
  int64_t seed = 1;
  std::string input_layer_value_files;
  bool layerwise = false;
  float max_avg_error = -1.0f;
  float max_abs_error = -1.0f;
  float min_cosine = -1.0f;
  bool use_reference_kernels = false;
  bool require_full_delegation = false;
  bool qualify = false;
  float qualify_float_tolerance = -1.0f;
  std::string baseline;
  bool allow_config_change = false;
  float max_error_increase_pct = 10.0f;
  int32_t shard_index = -1;
  int32_t num_shards = 0;
};

// The flag table parses floats; thresholds are compared as doubles, so 1e-5 means 1e-5 and not the
// float nearest to it: the shortest decimal that reads back as the same float, read as a double.
double AsDouble(float value) {
  char text[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  return std::strtod(text, nullptr);
}

StatusOr<std::map<std::string, InferenceDiffConfig::FixedInput>> ReadInputFiles(const std::string& text) {
  TS_ASSIGN_OR_RETURN(auto files, ParseNameValueList(text, "input_layer_value_files"));
  std::map<std::string, InferenceDiffConfig::FixedInput> inputs;
  for (const auto& entry : files) {
    std::ifstream in(entry.second, std::ios::binary);
    if (!in) return InvalidInputError(entry.second + ": cannot read input file for '" + entry.first + "'");
    InferenceDiffConfig::FixedInput input;
    input.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    input.source = entry.second;
    inputs[entry.first] = std::move(input);
  }
  return inputs;
}

// The exit code (InferenceDiffExitCode) or an error.
StatusOr<int> Run(const DiffFlags& flags, const FlagTable& table, const DelegateFlagGroup& group) {
  if (flags.model_file.empty()) return UsageError("--model_file is required (the .tflite model to compare)");
  std::vector<std::string> warnings;
  WarnIfMoreThreadsThanCpus("num_interpreter_threads", flags.num_interpreter_threads, &warnings);
  PrintWarnings(warnings);
  const bool explicit_thresholds = flags.max_avg_error >= 0 || flags.max_abs_error >= 0 || flags.min_cosine > -1.0f;
  if (flags.qualify && explicit_thresholds) {
    return UsageError(
        "--qualify sets every threshold by output type; give it or --max_avg_error/--max_abs_error/"
        "--min_cosine, not both (--qualify_float_tolerance changes its float tolerance)");
  }
  if (!flags.qualify && flags.qualify_float_tolerance >= 0) {
    return UsageError("--qualify_float_tolerance needs --qualify");
  }
  if (flags.baseline.empty() && flags.allow_config_change) {
    return UsageError("--allow_config_change needs --baseline=REPORT.json");
  }
  TS_ASSIGN_OR_RETURN(ShardSpec shard, ShardSpecFromFlags(flags.shard_index, flags.num_shards));
  if (shard.enabled() && !flags.baseline.empty()) {
    return UsageError(
        "--baseline gates a whole run: merge the shard reports (merge_reports) and compare the merged "
        "report (report_diff)");
  }
  InferenceDiffBaseline baseline;
  if (!flags.baseline.empty()) {
    TS_ASSIGN_OR_RETURN(std::string text, ReadBaselineText(flags.baseline));
    TS_ASSIGN_OR_RETURN(baseline, ParseInferenceDiffJson(text, flags.baseline));
  }
  TS_ASSIGN_OR_RETURN(auto inputs, ReadInputFiles(flags.input_layer_value_files));
  TS_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::FromFile(flags.model_file));
  // Declared before the interpreters (inside RunInferenceDiff), so they outlive them.
  // The test interpreter's delegates; not told its kernels, so one applied by default (XNNPACK) applies
  // over the reference kernels too.
  DelegateRequest request;
  request.num_threads = flags.num_interpreter_threads;
  request.by_name = flags.delegate;
  TS_ASSIGN_OR_RETURN(std::vector<ProvidedDelegate> delegates, group.CreateDelegates(table, request));

  InferenceDiffConfig config;
  config.num_runs = flags.num_runs;
  config.seed = static_cast<uint32_t>(flags.seed);
  config.fixed_inputs = std::move(inputs);
  config.layerwise = flags.layerwise;
  config.thresholds.max_avg_error = AsDouble(flags.max_avg_error);
  config.thresholds.max_abs_error = AsDouble(flags.max_abs_error);
  config.thresholds.min_cosine = AsDouble(flags.min_cosine);
  config.test_kernel_set = flags.use_reference_kernels ? KernelSet::kReference : KernelSet::kOptimized;
  config.test_num_threads = flags.num_interpreter_threads;
  config.require_full_delegation = flags.require_full_delegation;
  config.max_tensor_bytes = group.max_tensor_bytes();
  config.allow_newer_op_versions = group.allow_newer_op_versions();
  config.qualify = flags.qualify;
  config.shard = shard;
  if (flags.qualify) {
    config.qualify_float_tolerance = flags.qualify_float_tolerance >= 0  ? AsDouble(flags.qualify_float_tolerance)
                                     : group.ReducedPrecision(delegates) ? kQualifyFloat16Tolerance
                                                                         : kQualifyFloat32Tolerance;
  }
  TS_ASSIGN_OR_RETURN(InferenceDiffResult ran, RunInferenceDiff(model, config, delegates));
  InferenceDiffResult& result = ran;
  CompleteEnvelope(table, group, &result.envelope);
  for (const DelegateOutcome& outcome : result.delegates) {
    if (!outcome.applied) LogWarning("{}", DescribeOutcome(outcome));
  }
  if (!flags.baseline.empty()) {
    result.gate.requested = true;
    result.gate.baseline_path = flags.baseline;
    TS_RETURN_IF_ERROR(CheckComparable(baseline.envelope, result.envelope, flags.baseline, flags.allow_config_change,
                                       &result.gate.config_change));
    result.gate.errors = CompareOutputErrors(baseline.outputs, OutputErrorsOf(result), flags.max_error_increase_pct);
  }
  std::cout << FormatInferenceDiff(result) << std::flush;
  if (!flags.output_file_path.empty()) {
    TS_RETURN_IF_ERROR(WriteFileAtomically(flags.output_file_path, InferenceDiffJson(result), "output_file_path"));
  }
  // A shard's thresholds speak for its part only: the merged report's verdict is the run's (merge_reports).
  return config.shard.enabled() ? 0 : InferenceDiffExitCode(result);
}

int Main(int argc, char** argv) {
  DiffFlags flags;
  FlagTable table;
  table.AddString("model_file", &flags.model_file, "the .tflite model to compare");
  table.AddString("output_file_path", &flags.output_file_path,
                  "write the JSON report here (docs/inference_diff.md), whole or not at all");
  table.AddInt("num_runs", &flags.num_runs, "runs of test and reference inference each (3 invocations per run)")
      .AtLeast(1);
  table.AddInt("num_interpreter_threads", &flags.num_interpreter_threads, "threads of the test interpreter").AtLeast(1);
  table.AddString("delegate", &flags.delegate,
                  "delegate for the test interpreter, by name (" + RegisteredDelegateNames() +
                      "); same as its provider's --use_* flag");
  table.AddInt64("seed", &flags.seed, "seed of the random inputs (1: TFLite's default sequence)")
      .InRange(0, 4294967295.0);
  table.AddString("input_layer_value_files", &flags.input_layer_value_files,
                  "name:path,... raw input bytes instead of random inputs ('::' for ':' in a name)");
  table.AddBool("layerwise", &flags.layerwise,
                "compare every tensor both interpreters materialise, in execution order, and name the first "
                "diverging op");
  table.AddFloat("max_avg_error", &flags.max_avg_error,
                 "FAIL (exit 1) when a tensor's avg_error exceeds this, raw units (negative: no check)");
  table.AddFloat("max_abs_error", &flags.max_abs_error,
                 "FAIL (exit 1) when a tensor's max_abs_error exceeds this, raw units (negative: no check)");
  table
      .AddFloat("min_cosine", &flags.min_cosine,
                "FAIL (exit 1) when a tensor's cosine similarity is below this (-1: no check)")
      .AtMost(1);
  table.AddBool("qualify", &flags.qualify,
                "FAIL (exit 1) unless every output is within the documented default of its type: float within "
                "1e-5 of the reference's largest magnitude (1e-2 for a delegate computing in float16), quantized "
                "within one step, other types exact (docs/inference_diff.md)");
  table.AddFloat("qualify_float_tolerance", &flags.qualify_float_tolerance,
                 "--qualify's float tolerance, relative to the reference's largest magnitude (-1: the default)");
  AddBaselineFlags(&table, &flags.baseline, &flags.allow_config_change,
                   "an output's max_abs_error or avg_error grew beyond", "inputs, runs or seed",
                   "max_error_increase_pct", &flags.max_error_increase_pct,
                   "growth of an output's errors over the baseline's that --baseline tolerates, in percent");
  table.AddBool("use_reference_kernels", &flags.use_reference_kernels,
                "the test interpreter runs the reference kernels too (else the optimized ones)");
  table.AddBool("require_full_delegation", &flags.require_full_delegation,
                "fail (exit code 4) unless a delegate takes the whole graph of the test interpreter");
  AddShardFlags(&table, &flags.shard_index, &flags.num_shards,
                "run shard I of N, runs [R*I/N, R*(I+1)/N) of --num_runs with the inputs a single run draws for them",
                "the runs");
  DelegateFlagGroup delegate_flags;
  delegate_flags.AddTo(&table);
  ToolSpec spec;
  spec.name = "inference_diff";
  spec.delegates = &delegate_flags;
  spec.run = [&]() { return Run(flags, table, delegate_flags); };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
