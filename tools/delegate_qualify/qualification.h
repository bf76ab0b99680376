// delegate_qualify's work: qualifies a delegate against the reference kernels in one run.
//
// - Op conformance: every case of evaluation/op_conformance_suite.h through the delegate and through the
//   reference kernels (one thread) on the same seeded inputs (inference_diff's), judged by inference_diff
//   --qualify's documented thresholds. A case the delegate does not take is NOT_DELEGATED, never a pass.
// - Models: each model's outputs against the reference, the same thresholds, how much of the graph the
//   delegate took (nodes, partitions) and what stayed on the CPU (op, version, types, why). For a failing
//   model, the first node whose delegation makes the outputs diverge (delegating growing prefixes of
//   what the delegate claims, by bisection): a whole-graph delegate leaves inference_diff --layerwise one
//   tensor to compare.
// - Latency, as TFLite's Delegate Performance Benchmark judges it: startup (interpreter, delegation,
//   allocation) and inference against a run on the CPU without the delegate, a regression of at most
//   max_regression_pct each; PASS, PASS_WITH_WARNING or FAIL per metric, and NOISY where the bootstrap
//   interval of benchmark_model's gate cannot tell.
// - Robustness: each case, model and latency run happens in a child process (tools/common/isolation.h):
//   a delegate that crashes or hangs fails that item, and the run goes on.
#ifndef TOUCHSTONE_TOOLS_DELEGATE_QUALIFY_QUALIFICATION_H_
#define TOUCHSTONE_TOOLS_DELEGATE_QUALIFY_QUALIFICATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "delegates/providers/delegate_provider.h"
#include "evaluation/report_envelope.h"
#include "runtime/model.h"
#include "runtime/status.h"

namespace touchstone {

// Makes the delegates under qualification, afresh (called in each child process).
using DelegateFactory = std::function<StatusOr<std::vector<ProvidedDelegate>>()>;

// delegate_qualify's flags bind to these fields, so their defaults are the flags' defaults.
struct QualifyConfig {
  // Models to qualify on: .tflite paths. Empty: the suite's own models (BuiltinQualificationModels).
  std::vector<std::string> model_paths;
  // Only the case or model with this id ("CONV_2D/int8/3x3_stride_1_SAME", "model:mobilenet_like"); run
  // in this process, without isolation, so a debugger or sanitizer sees it. Empty: everything.
  std::string only;
  bool isolate = true;
  int timeout_secs = 60;  // per case, model or latency run
  int diff_runs = 2;      // inference_diff runs per case and model
  uint32_t seed = 1;
  double float_tolerance = 1e-5;  // --qualify's float tolerance (1e-2 for a float16 delegate)
  bool conformance = true;
  bool models = true;
  bool latency = true;
  int num_threads = 1;  // CPU threads of the latency reference and the test run
  int startup_runs = 5;
  int inference_runs = 50;
  float max_regression_pct = 5.0f;  // a float, as --max_regression_pct parses it
  bool localize = true;
  // Shell words that select the delegate(s), for the reproduce commands.
  std::string delegate_flags;
};

// PASS, FAIL, NOT_DELEGATED (the delegate took nothing), CRASH (died of a signal), HANG (timed out),
// INVALID (the case does not run on the reference kernels: a fault of the suite or the model).
enum class ItemVerdict { kPass, kFail, kNotDelegated, kCrash, kHang, kInvalid };
const char* ItemVerdictName(ItemVerdict verdict);

struct OutputFigures {
  std::string name;
  std::string type;
  double max_abs_error = 0.0;
  double max_relative_error = 0.0;
  double avg_error = 0.0;
  std::string threshold;  // DescribeThresholds
  std::string breach;     // "" within it
};

// A node the CPU kernels kept.
struct CpuNode {
  int node = -1;
  std::string op;
  int version = 0;
  std::string types;  // "in FLOAT32,INT32 -> out FLOAT32"
  std::string reason;
};

// One conformance case or one model.
struct QualifiedItem {
  std::string id;  // the case's id, or "model:<file name>"
  std::string op;  // cases: the op; models: ""
  std::string type;
  std::string variant;  // cases: the variant; models: the path
  int version = 0;
  ItemVerdict verdict = ItemVerdict::kInvalid;
  std::string detail;  // why it failed, crashed, hung or was invalid; what the delegate took otherwise
  int nodes = 0;
  int delegated_nodes = 0;
  int partitions = 0;
  std::vector<OutputFigures> outputs;
  std::vector<CpuNode> cpu_nodes;
  // Models that fail: the first node whose delegation makes the outputs diverge (-1: not localized).
  int divergent_node = -1;
  std::string divergent_op;
  std::string localization;
  std::string reproduce;              // a command that runs this item alone
  std::vector<std::string> log_tail;  // the last lines the item's run printed (crashes, hangs)
};

// One latency metric of TFLite's Delegate Performance Benchmark.
struct LatencyCriterion {
  std::string metric;  // "startup_overhead", "average_inference"
  double reference_median_us = 0.0;
  double test_median_us = 0.0;
  double ratio = 0.0;  // test / reference medians
  double ci_low = 0.0;
  double ci_high = 0.0;
  int reference_runs = 0;
  int test_runs = 0;
  std::string verdict;  // PASS, PASS_WITH_WARNING, FAIL, NOISY
};

struct LatencyResult {
  std::string model;
  std::string verdict;  // the criteria's combined verdict; "ERROR" when the run failed
  std::string detail;
  std::vector<LatencyCriterion> criteria;
};

struct QualificationReport {
  ReportEnvelope envelope{"touchstone.delegate_qualify.report", 1, "delegate_qualify"};
  std::string delegates;  // "STABLE_DELEGATE", described
  double float_tolerance = 0.0;
  double max_regression_pct = 0.0;
  std::vector<QualifiedItem> cases;
  std::vector<QualifiedItem> models;
  std::vector<LatencyResult> latency;
  int crashes = 0;
  int hangs = 0;
  bool passed = false;  // every claimed case and every delegated model passed
  std::string summary;  // one line
};

// A model of the suite's own (no ../shared): name and bytes.
struct NamedModel {
  std::string name;
  std::vector<uint8_t> bytes;
};
std::vector<NamedModel> BuiltinQualificationModels();

// TFLite's Delegate Performance Benchmark verdict for one metric from the bootstrap interval of the
// ratio test/reference: PASS (not slower), PASS_WITH_WARNING (slower by at most the limit), FAIL (slower
// by more), NOISY (the interval straddles the limit).
std::string LatencyVerdict(double ci_low, double ci_high, double max_regression_pct);
// FAIL if any, else NOISY, else PASS_WITH_WARNING, else PASS.
std::string CombineLatencyVerdicts(const std::vector<std::string>& verdicts);

// Runs the whole qualification. Progress lines go to `progress` (may be null). Errors: kUsage for an
// `only` that names nothing, kInvalidInput for a model path that cannot be read.
StatusOr<QualificationReport> RunQualification(const QualifyConfig& config, const DelegateFactory& factory,
                                               FILE* progress);

// The exit code: 0 when passed, 1 otherwise.
int QualificationExitCode(const QualificationReport& report);

// Text for stdout: failures first, then totals and the verdict line.
std::string FormatQualification(const QualificationReport& report);
// The JSON report in the shared envelope (docs/schemas/delegate_qualify.schema.json).
std::string QualificationJson(const QualificationReport& report);
// One row per case and model: id, kind, op, type, variant, verdict, figures, detail, reproduce.
std::string QualificationCsv(const QualificationReport& report);
// A self-contained page: summary, latency, models, then a table per op (failing cases first), each
// failing item with the command that reproduces it.
std::string QualificationHtml(const QualificationReport& report);

// An item's identity, verdict, figures and CPU nodes as JSON: what both the report's entries and the
// child process's answer (which adds the divergence and reproduction fields its own way) hold.
nlohmann::ordered_json ItemCoreJson(const QualifiedItem& item);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_DELEGATE_QUALIFY_QUALIFICATION_H_
