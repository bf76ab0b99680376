#include "tools/delegate_qualify/qualification.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "datasets/sample_models.h"
#include "evaluation/inference_diff.h"
#include "evaluation/op_conformance_suite.h"
#include "evaluation/output_diff.h"
#include "evaluation/regression_gate.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/model_builder.h"
#include "tools/common/isolation.h"

namespace touchstone {
namespace {

using Clock = std::chrono::steady_clock;

bool IsOpaque(const TfLiteDelegate* d) { return d->Prepare == nullptr && d->opaque_delegate_builder != nullptr; }

// The original nodes a delegate kernel node replaced (its params block, classic or opaque).
std::vector<int> ReplacedNodes(const TfLiteNode& node) {
  const TfLiteIntArray* nodes = nullptr;
  if (node.delegate == nullptr || node.builtin_data == nullptr) return {};
  if (IsOpaque(node.delegate)) {
    nodes = static_cast<const TfLiteOpaqueDelegateParams*>(node.builtin_data)->nodes_to_replace;
  } else {
    nodes = static_cast<const TfLiteDelegateParams*>(node.builtin_data)->nodes_to_replace;
  }
  return nodes != nullptr ? std::vector<int>(nodes->data, nodes->data + nodes->size) : std::vector<int>();
}

// A delegate that sees only `allowed` nodes of the execution plan: the host answers GetExecutionPlan with
// those alone while the wrapped delegate prepares. Kernels it creates belong to the wrapped delegate.
class LimitedDelegate {
 public:
  LimitedDelegate(TfLiteDelegate* inner, std::set<int> allowed) : inner_(inner), allowed_(std::move(allowed)) {
    wrapper_.data_ = this;
    wrapper_.Prepare = Prepare;
    wrapper_.flags = IsOpaque(inner) ? inner->opaque_delegate_builder->flags : inner->flags;
  }
  ~LimitedDelegate() { TfLiteIntArrayFree(filtered_); }
  TfLiteDelegate* get() { return &wrapper_; }

 private:
  static LimitedDelegate*& Active() {
    static LimitedDelegate* active = nullptr;
    return active;
  }
  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteDelegate* wrapper) {
    auto* self = static_cast<LimitedDelegate*>(wrapper->data_);
    self->original_ = context->GetExecutionPlan;
    Active() = self;
    context->GetExecutionPlan = Filtered;
    TfLiteDelegate* inner = self->inner_;
    const TfLiteStatus status =
        IsOpaque(inner) ? inner->opaque_delegate_builder->Prepare(reinterpret_cast<TfLiteOpaqueContext*>(context),
                                                                  reinterpret_cast<TfLiteOpaqueDelegate*>(inner),
                                                                  inner->opaque_delegate_builder->data)
                        : inner->Prepare(context, inner);
    context->GetExecutionPlan = self->original_;
    Active() = nullptr;
    return status;
  }
  static TfLiteStatus Filtered(TfLiteContext* context, TfLiteIntArray** plan) {
    LimitedDelegate* self = Active();
    TfLiteIntArray* full = nullptr;
    TF_LITE_ENSURE_STATUS(self->original_(context, &full));
    std::vector<int> kept;
    for (int i = 0; i < full->size; ++i) {
      if (self->allowed_.count(full->data[i]) != 0) kept.push_back(full->data[i]);
    }
    TfLiteIntArrayFree(self->filtered_);
    self->filtered_ = TfLiteIntArrayCreate(static_cast<int>(kept.size()));
    std::copy(kept.begin(), kept.end(), self->filtered_->data);
    *plan = self->filtered_;
    return kTfLiteOk;
  }

  TfLiteDelegate wrapper_{};
  TfLiteDelegate* inner_;
  std::set<int> allowed_;
  TfLiteIntArray* filtered_ = nullptr;
  TfLiteStatus (*original_)(TfLiteContext*, TfLiteIntArray**) = nullptr;
};

// The version the model's operator code gives node `node` of the primary subgraph.
int OpVersion(const Model& model, int node) {
  const auto* subgraphs = model.fb()->subgraphs();
  if (subgraphs == nullptr || subgraphs->size() == 0 || subgraphs->Get(0)->operators() == nullptr) return 0;
  const auto* operators = subgraphs->Get(0)->operators();
  if (node < 0 || static_cast<uint32_t>(node) >= operators->size()) return 0;
  const auto* codes = model.fb()->operator_codes();
  const uint32_t code = operators->Get(node)->opcode_index();
  return codes != nullptr && code < codes->size() ? codes->Get(code)->version() : 0;
}

std::string TypesOf(Subgraph& subgraph, const TfLiteNode& node) {
  auto list = [&subgraph](const TfLiteIntArray* tensors) {
    std::string text;
    for (int k = 0; k < tensors->size; ++k) {
      const int t = tensors->data[k];
      if (!text.empty()) text += ",";
      text += t < 0 ? "-" : TypeName(subgraph.tensor(t)->type);
    }
    return text;
  };
  return "in " + list(node.inputs) + " -> out " + list(node.outputs);
}

// How the delegates share the primary subgraph: applied in order on a reference interpreter.
struct Delegation {
  int nodes = 0;
  int delegated_nodes = 0;
  int partitions = 0;
  std::vector<int> claimed;  // original nodes delegated, in the original plan's order
  std::vector<CpuNode> cpu_nodes;
  std::string errors;  // delegates that failed to apply
};

StatusOr<Delegation> InspectDelegation(const std::shared_ptr<const Model>& model,
                                       const std::vector<ProvidedDelegate>& delegates) {
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  TS_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> made, Interpreter::Create(model, options));
  Interpreter* interpreter = made.get();
  const std::vector<int> original_plan = interpreter->primary()->execution_plan();
  Delegation d;
  d.nodes = static_cast<int>(original_plan.size());
  for (const ProvidedDelegate& provided : delegates) {
    Status applied = interpreter->ModifyGraphWithDelegate(provided.delegate.get());
    if (!applied.ok()) d.errors += (d.errors.empty() ? "" : "; ") + provided.provider + ": " + applied.message();
  }
  Subgraph& primary = *interpreter->primary();
  std::set<int> claimed;
  for (int n : primary.execution_plan()) {
    const TfLiteNode& node = primary.node(n);
    if (node.delegate != nullptr) {
      ++d.partitions;
      for (int replaced : ReplacedNodes(node)) claimed.insert(replaced);
      continue;
    }
    CpuNode cpu;
    cpu.node = n;
    cpu.op = primary.op_name(n);
    cpu.version = OpVersion(*model, n);
    cpu.types = TypesOf(primary, node);
    cpu.reason = d.errors.empty() ? "not claimed by the delegate" : "the delegate failed to apply: " + d.errors;
    d.cpu_nodes.push_back(cpu);
  }
  for (int n : original_plan) {
    if (claimed.count(n) != 0) d.claimed.push_back(n);
  }
  d.delegated_nodes = static_cast<int>(d.claimed.size());
  return d;
}

InferenceDiffConfig DiffConfig(const QualifyConfig& config) {
  InferenceDiffConfig diff;
  diff.num_runs = config.diff_runs;
  diff.seed = config.seed;
  diff.qualify = true;
  diff.qualify_float_tolerance = config.float_tolerance;
  // The CPU side of the test run is the reference too: a difference is the delegate's.
  diff.test_kernel_set = KernelSet::kReference;
  diff.test_num_threads = 1;
  return diff;
}

void FillOutputs(const InferenceDiffResult& diff, QualifiedItem* item) {
  item->outputs.clear();
  for (const OutputDiffEntry& o : diff.outputs) {
    OutputFigures f;
    f.name = o.name;
    f.type = o.type;
    f.max_abs_error = o.diff.max_abs_error;
    f.max_relative_error = o.diff.max_relative_error;
    f.avg_error = o.diff.avg_error;
    f.threshold = DescribeThresholds(o.thresholds);
    f.breach = o.breach;
    item->outputs.push_back(f);
  }
}

// Whether delegating `delegates` limited to `allowed` keeps the outputs within the thresholds.
StatusOr<bool> PassesWithOnly(const std::shared_ptr<const Model>& model, const std::vector<ProvidedDelegate>& delegates,
                              const std::set<int>& allowed, const QualifyConfig& config) {
  std::vector<std::unique_ptr<LimitedDelegate>> limited;
  std::vector<ProvidedDelegate> wrapped;
  for (const ProvidedDelegate& d : delegates) {
    limited.push_back(std::make_unique<LimitedDelegate>(d.delegate.get(), allowed));
    ProvidedDelegate w;
    w.provider = d.provider;
    w.position = d.position;
    w.delegate = TfLiteDelegatePtr(limited.back()->get(), [](TfLiteDelegate*) {});
    wrapped.push_back(std::move(w));
  }
  StatusOr<InferenceDiffResult> diff = RunInferenceDiff(model, DiffConfig(config), wrapped);
  if (!diff.ok()) return false;
  return diff.value().passed;
}

// The body of one case or model, in whatever process runs it.
QualifiedItem QualifyItem(QualifiedItem item, const std::vector<uint8_t>& bytes, bool is_model,
                          const QualifyConfig& config, const DelegateFactory& factory) {
  StatusOr<std::shared_ptr<const Model>> model = Model::FromBuffer(bytes, item.id);
  if (!model.ok()) {
    item.verdict = ItemVerdict::kInvalid;
    item.detail = model.status().message();
    return item;
  }
  StatusOr<std::vector<ProvidedDelegate>> delegates = factory();
  if (!delegates.ok()) {
    item.verdict = ItemVerdict::kFail;
    item.detail = "the delegate could not be created: " + delegates.status().message();
    return item;
  }
  StatusOr<Delegation> delegation = InspectDelegation(model.value(), delegates.value());
  if (!delegation.ok()) {
    item.verdict = ItemVerdict::kInvalid;
    item.detail = delegation.status().message();
    return item;
  }
  const Delegation& d = delegation.value();
  item.nodes = d.nodes;
  item.delegated_nodes = d.delegated_nodes;
  item.partitions = d.partitions;
  if (is_model) item.cpu_nodes = d.cpu_nodes;
  if (d.delegated_nodes == 0) {
    item.verdict = ItemVerdict::kNotDelegated;
    item.detail = d.errors.empty() ? "the delegate did not claim it" : "the delegate failed to apply: " + d.errors;
    return item;
  }
  StatusOr<InferenceDiffResult> diff = RunInferenceDiff(model.value(), DiffConfig(config), delegates.value());
  if (!diff.ok()) {
    item.verdict = ItemVerdict::kFail;
    item.detail = diff.status().message();
  } else {
    FillOutputs(diff.value(), &item);
    item.verdict = diff.value().passed ? ItemVerdict::kPass : ItemVerdict::kFail;
    item.detail = diff.value().passed ? "" : diff.value().failure;
  }
  if (item.verdict == ItemVerdict::kFail && is_model && config.localize) {
    // Bisect over prefixes of the claimed nodes: the smallest prefix whose delegation fails ends with the
    // node that makes the outputs diverge.
    int lo = 1, hi = static_cast<int>(d.claimed.size());
    StatusOr<bool> whole =
        PassesWithOnly(model.value(), delegates.value(), std::set<int>(d.claimed.begin(), d.claimed.end()), config);
    if (whole.ok() && !whole.value()) {
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        StatusOr<bool> passes = PassesWithOnly(model.value(), delegates.value(),
                                               std::set<int>(d.claimed.begin(), d.claimed.begin() + mid), config);
        if (passes.ok() && !passes.value()) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      item.divergent_node = d.claimed[lo - 1];
      StatusOr<std::unique_ptr<Interpreter>> plain = Interpreter::Create(model.value(), InterpreterOptions());
      if (plain.ok()) item.divergent_op = plain.value()->primary()->op_name(item.divergent_node);
      item.localization = "first divergence when node " + std::to_string(item.divergent_node) + " (" +
                          item.divergent_op + ") is delegated: delegating the first " + std::to_string(lo - 1) +
                          " of the " + std::to_string(d.claimed.size()) +
                          " claimed nodes keeps the outputs within the thresholds";
    } else {
      item.localization =
          "not localized: delegating the claimed nodes one prefix at a time does not reproduce "
          "the failure";
    }
  }
  return item;
}

// --- Item <-> JSON (the child's answer, and the report's entries) ---

nlohmann::ordered_json ItemJson(const QualifiedItem& item) {
  nlohmann::ordered_json j = ItemCoreJson(item);
  j["divergent_node"] = item.divergent_node;
  j["divergent_op"] = item.divergent_op;
  j["localization"] = item.localization;
  j["reproduce"] = item.reproduce;
  j["log_tail"] = item.log_tail;
  return j;
}

ItemVerdict VerdictFromName(const std::string& name) {
  for (ItemVerdict v : {ItemVerdict::kPass, ItemVerdict::kFail, ItemVerdict::kNotDelegated, ItemVerdict::kCrash,
                        ItemVerdict::kHang, ItemVerdict::kInvalid}) {
    if (name == ItemVerdictName(v)) return v;
  }
  return ItemVerdict::kInvalid;
}

QualifiedItem ItemFromJson(const nlohmann::json& j) {
  QualifiedItem item;
  item.id = j.value("id", "");
  item.op = j.value("op", "");
  item.type = j.value("type", "");
  item.variant = j.value("variant", "");
  item.version = j.value("version", 0);
  item.verdict = VerdictFromName(j.value("verdict", ""));
  item.detail = j.value("detail", "");
  item.nodes = j.value("nodes", 0);
  item.delegated_nodes = j.value("delegated_nodes", 0);
  item.partitions = j.value("partitions", 0);
  for (const auto& f : j.value("outputs", nlohmann::json::array())) {
    OutputFigures o;
    o.name = f.value("name", "");
    o.type = f.value("type", "");
    auto number = [&f](const char* key) {
      return f.contains(key) && f[key].is_number() ? f[key].get<double>() : std::numeric_limits<double>::infinity();
    };
    o.max_abs_error = number("max_abs_error");
    o.max_relative_error = number("max_relative_error");
    o.avg_error = number("avg_error");
    o.threshold = f.value("threshold", "");
    o.breach = f.value("breach", "");
    item.outputs.push_back(o);
  }
  for (const auto& n : j.value("cpu_nodes", nlohmann::json::array())) {
    item.cpu_nodes.push_back(CpuNode{n.value("node", -1), n.value("op", ""), n.value("version", 0),
                                     n.value("types", ""), n.value("reason", "")});
  }
  item.divergent_node = j.value("divergent_node", -1);
  item.divergent_op = j.value("divergent_op", "");
  item.localization = j.value("localization", "");
  item.reproduce = j.value("reproduce", "");
  item.log_tail = j.value("log_tail", std::vector<std::string>());
  return item;
}

std::string TempPath(const std::string& what) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir != nullptr && *dir ? dir : "/tmp") + "/delegate_qualify_" + what + "_XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = mkstemp(buffer.data());
  if (fd >= 0) close(fd);
  return fd >= 0 ? std::string(buffer.data()) : std::string();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> LastLines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > 300) line = line.substr(0, 300) + "...";
    lines.push_back(line);
  }
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<long>(count));
  return lines;
}

// Runs `body` (which returns the item as JSON text) in a child whose output goes to a log; a child that
// dies or hangs becomes CRASH or HANG with the log's last lines.
QualifiedItem RunIsolatedItem(const QualifiedItem& item, const QualifyConfig& config,
                              const std::function<std::string()>& body) {
  const std::string answer = TempPath("answer");
  const std::string log = TempPath("log");
  QualifiedItem result = item;
  if (answer.empty() || log.empty()) {
    result.verdict = ItemVerdict::kInvalid;
    result.detail = "cannot make a temporary file";
    return result;
  }
  std::fflush(nullptr);
  StatusOr<ChildOutcome> outcome = RunInChild(config.timeout_secs, [&]() {
    // The child's own output (delegate logs) goes to the log, not the tool's terminal.
    if (std::freopen(log.c_str(), "w", stdout) == nullptr || std::freopen(log.c_str(), "a", stderr) == nullptr) {
      return 4;
    }
    const std::string text = body();
    std::ofstream out(answer, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    std::fflush(nullptr);
    return out ? 0 : 4;
  });
  const std::string log_text = ReadText(log);
  const std::string answer_text = ReadText(answer);
  std::remove(log.c_str());
  std::remove(answer.c_str());
  if (!outcome.ok()) {
    result.verdict = ItemVerdict::kInvalid;
    result.detail = outcome.status().message();
    return result;
  }
  const ChildOutcome& o = outcome.value();
  if (o.kind == ChildOutcome::Kind::kSignaled) {
    result.verdict = ItemVerdict::kCrash;
    result.detail = "killed by signal " + DescribeSignal(o.signal);
    result.log_tail = LastLines(log_text, 8);
    return result;
  }
  if (o.kind == ChildOutcome::Kind::kTimedOut) {
    result.verdict = ItemVerdict::kHang;
    result.detail = "timed out after " + std::to_string(o.timeout_secs) + " s";
    result.log_tail = LastLines(log_text, 8);
    return result;
  }
  nlohmann::json parsed = nlohmann::json::parse(answer_text, nullptr, false);
  if (o.exit_code != 0 || parsed.is_discarded()) {
    result.verdict = ItemVerdict::kCrash;
    result.detail = "its process exited with code " + std::to_string(o.exit_code) + " without a result";
    result.log_tail = LastLines(log_text, 8);
    return result;
  }
  QualifiedItem answered = ItemFromJson(parsed);
  answered.reproduce = item.reproduce;
  return answered;
}

std::string ShellQuote(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") ==
          std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// --- Latency (TFLite's Delegate Performance Benchmark criteria) ---

struct LatencySamples {
  std::vector<double> startup_us, inference_us;
};

StatusOr<LatencySamples> MeasureLatency(const std::shared_ptr<const Model>& model,
                                        const std::vector<ProvidedDelegate>* delegates, const QualifyConfig& config) {
  LatencySamples samples;
  std::unique_ptr<Interpreter> kept;
  // One start more than measured: the first pays for cold caches and lazily loaded code.
  for (int run = -1; run < config.startup_runs; ++run) {
    kept.reset();
    const Clock::time_point start = Clock::now();
    InterpreterOptions options;
    options.num_threads = config.num_threads;
    TS_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> made, Interpreter::Create(model, options));
    if (delegates != nullptr) {
      for (const ProvidedDelegate& d : *delegates) {
        Status applied = made->ModifyGraphWithDelegate(d.delegate.get());
        (void)applied;  // a delegate that fails to apply leaves the CPU kernels, as every binary does
      }
    }
    TS_RETURN_IF_ERROR(made->AllocateTensors());
    if (run >= 0) samples.startup_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    kept = std::move(made);
  }
  TS_RETURN_IF_ERROR(kept->Invoke());  // warm-up
  for (int run = 0; run < config.inference_runs; ++run) {
    const Clock::time_point start = Clock::now();
    TS_RETURN_IF_ERROR(kept->Invoke());
    samples.inference_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return samples;
}

nlohmann::json SamplesJson(const LatencySamples& s) {
  return {{"startup_us", s.startup_us}, {"inference_us", s.inference_us}};
}

LatencyResult JudgeLatency(const std::string& model, const LatencySamples& reference, const LatencySamples& test,
                           const QualifyConfig& config) {
  LatencyResult result;
  result.model = model;
  LatencyGateConfig gate;
  gate.max_regression_pct = config.max_regression_pct;
  gate.min_samples = 3;
  std::vector<std::string> verdicts;
  const struct {
    const char* metric;
    const std::vector<double>* ref;
    const std::vector<double>* test;
  } metrics[] = {{"startup_overhead", &reference.startup_us, &test.startup_us},
                 {"average_inference", &reference.inference_us, &test.inference_us}};
  for (const auto& m : metrics) {
    LatencySampleSet a, b;
    a.us = *m.ref;
    b.us = *m.test;
    const LatencyGateResult compared = CompareLatency(a, b, gate);
    LatencyCriterion c;
    c.metric = m.metric;
    c.reference_median_us = compared.baseline_median_us;
    c.test_median_us = compared.current_median_us;
    c.ratio = compared.ratio;
    c.ci_low = compared.ci_low;
    c.ci_high = compared.ci_high;
    c.reference_runs = static_cast<int>(a.us.size());
    c.test_runs = static_cast<int>(b.us.size());
    c.verdict = static_cast<int>(a.us.size()) < gate.min_samples
                    ? "NOISY"
                    : LatencyVerdict(c.ci_low, c.ci_high, config.max_regression_pct);
    verdicts.push_back(c.verdict);
    result.criteria.push_back(c);
  }
  result.verdict = CombineLatencyVerdicts(verdicts);
  return result;
}

}  // namespace

const char* ItemVerdictName(ItemVerdict verdict) {
  switch (verdict) {
    case ItemVerdict::kPass:
      return "PASS";
    case ItemVerdict::kFail:
      return "FAIL";
    case ItemVerdict::kNotDelegated:
      return "NOT_DELEGATED";
    case ItemVerdict::kCrash:
      return "CRASH";
    case ItemVerdict::kHang:
      return "HANG";
    case ItemVerdict::kInvalid:
      return "INVALID";
  }
  return "INVALID";
}

std::string LatencyVerdict(double ci_low, double ci_high, double max_regression_pct) {
  const double limit = 1.0 + max_regression_pct / 100.0;
  if (ci_high <= 1.0) return "PASS";
  if (ci_high <= limit) return "PASS_WITH_WARNING";
  if (ci_low > limit) return "FAIL";
  return "NOISY";
}

std::string CombineLatencyVerdicts(const std::vector<std::string>& verdicts) {
  for (const char* worst : {"FAIL", "NOISY", "PASS_WITH_WARNING"}) {
    if (std::find(verdicts.begin(), verdicts.end(), worst) != verdicts.end()) return worst;
  }
  return "PASS";
}

std::vector<NamedModel> BuiltinQualificationModels() {
  std::vector<NamedModel> models;
  MobileNetLikeOptions options;
  options.input_size = 64;
  options.num_classes = 10;
  models.push_back({"mobilenet_like", MakeMobileNetLike(options)});
  // A residual block: CONV_2D, then ADD and SUB of it with the input and a MUL, as in ResNet-style models;
  // element-wise-only delegates (the sample) take part of it.
  ModelBuilder b;
  const int in = b.AddTensor(kTfLiteFloat32, {1, 8, 8, 4}, "input");
  std::vector<float> weights(4 * 3 * 3 * 4), bias(4, 0.01f);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = 0.05f * static_cast<float>(static_cast<int>(i % 7) - 3);
  const int w = b.AddConstTensor(kTfLiteFloat32, {4, 3, 3, 4}, weights, "weights");
  const int bi = b.AddConstTensor(kTfLiteFloat32, {4}, bias, "bias");
  const int conv = b.AddTensor(kTfLiteFloat32, {1, 8, 8, 4}, "conv");
  const int sum = b.AddTensor(kTfLiteFloat32, {1, 8, 8, 4}, "sum");
  const int diff = b.AddTensor(kTfLiteFloat32, {1, 8, 8, 4}, "diff");
  const int out = b.AddTensor(kTfLiteFloat32, {1, 8, 8, 4}, "output");
  b.AddOperator(kTfLiteBuiltinConv2d, {in, w, bi}, {conv}, fb::BuiltinOptions::Conv2DOptions,
                fb::CreateConv2DOptions(b.fbb(), fb::Padding::SAME, 1, 1, fb::ActivationFunctionType::RELU).Union());
  b.AddOperator(kTfLiteBuiltinAdd, {conv, in}, {sum}, fb::BuiltinOptions::AddOptions,
                fb::CreateAddOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinSub, {sum, conv}, {diff}, fb::BuiltinOptions::SubOptions,
                fb::CreateSubOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinMul, {diff, sum}, {out}, fb::BuiltinOptions::MulOptions,
                fb::CreateMulOptions(b.fbb()).Union());
  b.SetInputs({in});
  b.SetOutputs({out});
  models.push_back({"residual_block", b.Finish()});
  return models;
}

namespace {

// The models to qualify on, read first, so a bad path is an input error before any work.
StatusOr<std::vector<NamedModel>> QualificationModels(const QualifyConfig& config) {
  if (config.model_paths.empty()) return BuiltinQualificationModels();
  std::vector<NamedModel> models;
  for (const std::string& path : config.model_paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return InvalidInputError(path + ": cannot read the model");
    NamedModel m;
    m.name = path.substr(path.rfind('/') + 1);
    m.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    TS_RETURN_IF_ERROR(Model::FromBuffer(m.bytes, path).status());
    models.push_back(std::move(m));
  }
  return models;
}

// Measures one model's latency on the reference kernels and with the delegate (in a child when
// isolated) and judges it; a crash, hang or error becomes the item's ERROR verdict.
void QualifyLatency(const NamedModel& m, const QualifyConfig& config, const DelegateFactory& factory,
                    QualificationReport* report, FILE* progress) {
  LatencyResult result;
  result.model = m.name;
  auto measure = [&]() -> std::string {
    StatusOr<std::shared_ptr<const Model>> model = Model::FromBuffer(m.bytes, m.name);
    if (!model.ok()) return nlohmann::json{{"error", model.status().message()}}.dump();
    StatusOr<LatencySamples> reference = MeasureLatency(model.value(), nullptr, config);
    if (!reference.ok()) return nlohmann::json{{"error", reference.status().message()}}.dump();
    StatusOr<std::vector<ProvidedDelegate>> delegates = factory();
    if (!delegates.ok()) return nlohmann::json{{"error", delegates.status().message()}}.dump();
    StatusOr<LatencySamples> test = MeasureLatency(model.value(), &delegates.value(), config);
    if (!test.ok()) return nlohmann::json{{"error", test.status().message()}}.dump();
    return nlohmann::json{{"reference", SamplesJson(reference.value())}, {"test", SamplesJson(test.value())}}.dump();
  };
  std::string text;
  QualifiedItem probe;
  probe.id = "latency:" + m.name;
  if (config.isolate) {
    // The child answers with its samples in the item's detail.
    QualifiedItem answered = RunIsolatedItem(probe, config, [&]() {
      QualifiedItem carrier = probe;
      carrier.verdict = ItemVerdict::kPass;
      carrier.detail = measure();
      return ItemJson(carrier).dump();
    });
    if (answered.verdict == ItemVerdict::kCrash || answered.verdict == ItemVerdict::kHang) {
      result.verdict = "ERROR";
      result.detail = std::string(ItemVerdictName(answered.verdict)) + ": " + answered.detail;
      if (answered.verdict == ItemVerdict::kCrash) ++report->crashes;
      if (answered.verdict == ItemVerdict::kHang) ++report->hangs;
      report->latency.push_back(result);
      return;
    }
    text = answered.detail;
  } else {
    text = measure();
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || j.contains("error")) {
    result.verdict = "ERROR";
    result.detail = j.is_discarded() ? "no samples" : j["error"].get<std::string>();
    report->latency.push_back(result);
    return;
  }
  LatencySamples reference, test;
  reference.startup_us = j["reference"]["startup_us"].get<std::vector<double>>();
  reference.inference_us = j["reference"]["inference_us"].get<std::vector<double>>();
  test.startup_us = j["test"]["startup_us"].get<std::vector<double>>();
  test.inference_us = j["test"]["inference_us"].get<std::vector<double>>();
  report->latency.push_back(JudgeLatency(m.name, reference, test, config));
  if (progress != nullptr) {
    fmt::print(progress, "latency {}: {}\n", m.name, report->latency.back().verdict);
  }
}

// The report's verdict and summary line from its items.
void SummarizeQualification(QualificationReport* report) {
  int claimed = 0, passed = 0, failed = 0, not_delegated = 0, invalid = 0;
  for (const std::vector<QualifiedItem>* list : {&report->cases, &report->models}) {
    for (const QualifiedItem& item : *list) {
      switch (item.verdict) {
        case ItemVerdict::kPass:
          ++claimed;
          ++passed;
          break;
        case ItemVerdict::kFail:
          ++claimed;
          ++failed;
          break;
        case ItemVerdict::kCrash:
          ++claimed;
          ++failed;
          ++report->crashes;
          break;
        case ItemVerdict::kHang:
          ++claimed;
          ++failed;
          ++report->hangs;
          break;
        case ItemVerdict::kNotDelegated:
          ++not_delegated;
          break;
        case ItemVerdict::kInvalid:
          ++invalid;
          break;
      }
    }
  }
  report->passed = failed == 0 && invalid == 0 && claimed > 0;
  report->summary = std::to_string(report->cases.size()) + " cases and " + std::to_string(report->models.size()) +
                    " models: " + std::to_string(claimed) + " delegated (" + std::to_string(passed) + " passed, " +
                    std::to_string(failed) + " failed, of which " + std::to_string(report->crashes) + " crashed and " +
                    std::to_string(report->hangs) + " hung), " + std::to_string(not_delegated) + " not delegated" +
                    (invalid > 0 ? ", " + std::to_string(invalid) + " invalid" : "");
  if (claimed == 0) report->summary += "; the delegate took nothing, so nothing is qualified";
}

}  // namespace

StatusOr<QualificationReport> RunQualification(const QualifyConfig& config, const DelegateFactory& factory,
                                               FILE* progress) {
  QualificationReport report;
  report.float_tolerance = config.float_tolerance;
  report.max_regression_pct = config.max_regression_pct;
  TS_ASSIGN_OR_RETURN(const std::vector<NamedModel> models, QualificationModels(config));
  const std::vector<ConformanceCase> suite =
      config.conformance || !config.only.empty() ? BuildConformanceSuite() : std::vector<ConformanceCase>();
  if (!config.only.empty()) {
    bool found = false;
    for (const ConformanceCase& c : suite) found = found || c.id() == config.only;
    for (const NamedModel& m : models) found = found || "model:" + m.name == config.only;
    if (!found) return UsageError("--only=" + config.only + ": no case or model has this id");
  }
  const std::string tool =
      "delegate_qualify" + std::string(config.delegate_flags.empty() ? "" : " ") + config.delegate_flags;
  auto run_item = [&](QualifiedItem item, const std::vector<uint8_t>& bytes, bool is_model) {
    item.reproduce = tool + " --only=" + ShellQuote(item.id);
    if (!config.model_paths.empty() && is_model) item.reproduce += " --models=" + ShellQuote(item.variant);
    if (!config.isolate || !config.only.empty()) {
      QualifiedItem done = QualifyItem(item, bytes, is_model, config, factory);
      done.reproduce = item.reproduce;
      return done;
    }
    return RunIsolatedItem(item, config,
                           [&]() { return ItemJson(QualifyItem(item, bytes, is_model, config, factory)).dump(); });
  };
  if (config.conformance || !config.only.empty()) {
    int done = 0;
    for (const ConformanceCase& c : suite) {
      if (!config.only.empty() && c.id() != config.only) continue;
      QualifiedItem item;
      item.id = c.id();
      item.op = c.op;
      item.type = c.type;
      item.variant = c.variant;
      item.version = c.version;
      report.cases.push_back(run_item(item, c.model, false));
      ++done;
      if (progress != nullptr && done % 25 == 0)
        fmt::print(progress, "conformance: {} of {} cases\n", done, suite.size());
    }
  }
  if (config.models || !config.only.empty()) {
    for (const NamedModel& m : models) {
      if (!config.only.empty() && "model:" + m.name != config.only) continue;
      QualifiedItem item;
      item.id = "model:" + m.name;
      item.variant = config.model_paths.empty() ? "(built in)" : config.model_paths[&m - models.data()];
      report.models.push_back(run_item(item, m.bytes, true));
      if (progress != nullptr) {
        fmt::print(progress, "model {}: {}\n", m.name, ItemVerdictName(report.models.back().verdict));
      }
    }
  }
  if (config.latency && config.only.empty()) {
    for (const NamedModel& m : models) QualifyLatency(m, config, factory, &report, progress);
  }
  SummarizeQualification(&report);
  return report;
}

int QualificationExitCode(const QualificationReport& report) { return report.passed ? 0 : 1; }

}  // namespace touchstone
