#include "evaluation/inference_diff.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "evaluation/machine_info.h"
#include "evaluation/sha256.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

// TFLite's constants are floats, handed to a normal_distribution<double>.
constexpr float kGaussianMean = 0.5f;
constexpr float kGaussianStdDev = 1.0 / 3;

// One engine and distribution per C++ type TFLite's template would be instantiated for. float16
// inputs are drawn as float32 and converted, so they share float's.
enum CppType { kFloat, kDouble, kUInt8, kInt8, kInt16, kUInt16, kInt32, kUInt32, kInt64, kUInt64, kBool };

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// static_cast<T>(value) where it is defined; the nearest end of T's range where TFLite's cast would be
// undefined (only reachable at the top of the int32/int64/uint32/uint64 ranges, where float rounds up).
template <typename T>
T Clamped(float value) {
  const double v = value;
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  return static_cast<T>(value);
}

// Six significant digits ({:g}, iostream's default), as TFLite prints its figures.
std::string Num(double v) { return fmt::format("{:g}", v); }

std::string TensorLabel(int tensor, const std::string& name) {
  return "tensor " + std::to_string(tensor) + " '" + name + "'";
}

// Whether a tensor holds host data worth comparing after Invoke.
bool Readable(const TfLiteTensor& t) {
  if (t.delegate != nullptr && t.buffer_handle != kTfLiteNullBufferHandle && t.data_is_stale) return false;
  return t.data.raw != nullptr || t.bytes == 0;
}

// Whether the model keeps state from one invoke to the next: variable tensors (SVDF, LSTM states) or
// resource variables. A shard of its runs must then replay the runs before it to start where a single
// run would be.
bool HoldsState(Interpreter* interpreter) {
  for (size_t g = 0; g < interpreter->subgraphs_size(); ++g) {
    Subgraph* subgraph = interpreter->subgraph(static_cast<int>(g));
    for (size_t t = 0; t < subgraph->tensors_size(); ++t) {
      if (subgraph->tensor(static_cast<int>(t))->is_variable) return true;
    }
    for (size_t n = 0; n < subgraph->nodes_size(); ++n) {
      const std::string& op = subgraph->op_name(static_cast<int>(n));
      if (op == "VAR_HANDLE" || op == "ASSIGN_VARIABLE" || op == "READ_VARIABLE") return true;
    }
  }
  return false;
}

// One tensor being compared across runs.
struct Tracked {
  TensorDiffAccumulator accumulator;
  std::string mismatch;
};

void Compare(const TfLiteTensor& reference, const TfLiteTensor& test, Tracked* tracked) {
  if (!tracked->mismatch.empty()) return;
  if (reference.type != test.type) {
    tracked->mismatch =
        "type " + TypeName(test.type) + " in the test run, " + TypeName(reference.type) + " in the reference";
    return;
  }
  if (!TfLiteIntArrayEqual(reference.dims, test.dims)) {
    tracked->mismatch =
        "shape " + ShapeString(&test) + " in the test run, " + ShapeString(&reference) + " in the reference";
    return;
  }
  Status s = tracked->accumulator.AddRun(reference, test);
  if (!s.ok()) tracked->mismatch = s.message();
}

bool IsQuantized(const TfLiteTensor& t) {
  return (t.type == kTfLiteUInt8 || t.type == kTfLiteInt8 || t.type == kTfLiteInt16) && t.params.scale != 0.0f;
}

void Finish(const Tracked& tracked, const TfLiteTensor& reference, const InferenceDiffConfig& config,
            TensorDiffEntry* entry) {
  entry->name = reference.name != nullptr ? reference.name : "";
  entry->type = TypeName(reference.type);
  entry->shape = ShapeOf(&reference);
  entry->diff = tracked.accumulator.Summary();
  entry->thresholds = config.qualify
                          ? QualifyThresholds(reference.type, entry->diff.quantized || IsQuantized(reference),
                                              config.qualify_float_tolerance)
                          : config.thresholds;
  entry->mismatch = tracked.mismatch;
  entry->breach = !tracked.mismatch.empty() ? tracked.mismatch : DescribeBreach(entry->diff, entry->thresholds);
  entry->state = tracked.accumulator.state();
}

Status CopyInputs(const std::vector<std::vector<uint8_t>>& inputs, Interpreter* interpreter) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    TfLiteTensor* t = interpreter->input_tensor(i);
    if (inputs[i].empty()) continue;
    if (t->data.raw == nullptr || t->bytes != inputs[i].size()) {
      return ExecutionError(std::string("input '") + (t->name ? t->name : "") + "' has no room for its " +
                            std::to_string(inputs[i].size()) + " bytes");
    }
    std::memcpy(t->data.raw, inputs[i].data(), inputs[i].size());
  }
  return Status::Ok();
}

Status InvokeTimed(Interpreter* interpreter, int invocations, const char* which, LatencyStats* latency) {
  for (int k = 0; k < invocations; ++k) {
    const int64_t start = NowMicros();
    Status s = interpreter->Invoke();
    if (!s.ok()) return s.WithContext(which);
    latency->Add(NowMicros() - start);
  }
  return Status::Ok();
}

// The layer-wise plan: the tensors to compare, in the test interpreter's execution order.
std::vector<LayerDiffEntry> PlanLayers(Interpreter* test, Interpreter* reference, int* inside_partitions) {
  std::vector<LayerDiffEntry> layers;
  *inside_partitions = 0;
  Subgraph* ts = test->primary();
  const size_t reference_tensors = reference->tensors_size();
  std::set<int> seen;
  auto add = [&](int step, int node, int tensor, bool delegated, int delegate_node) {
    if (tensor < 0 || static_cast<size_t>(tensor) >= reference_tensors || !seen.insert(tensor).second) return;
    LayerDiffEntry e;
    e.step = step;
    e.node = node;
    e.op = ts->op_name(node);
    e.delegated = delegated;
    e.delegate_node = delegate_node;
    if (delegated) e.delegate_name = ts->op_name(delegate_node);
    e.tensor = tensor;
    layers.push_back(e);
  };
  const std::vector<int>& plan = ts->execution_plan();
  for (size_t step = 0; step < plan.size(); ++step) {
    const int n = plan[step];
    const TfLiteNode& node = ts->node(n);
    if (node.delegate == nullptr || node.builtin_data == nullptr) {
      for (int k = 0; k < node.outputs->size; ++k) add(static_cast<int>(step), n, node.outputs->data[k], false, -1);
      continue;
    }
    // A delegate kernel: its partition's outputs, each under the original op that writes it.
    const auto* params = static_cast<const TfLiteDelegateParams*>(node.builtin_data);
    std::set<int> boundary(params->output_tensors->data, params->output_tensors->data + params->output_tensors->size);
    for (int i = 0; i < params->nodes_to_replace->size; ++i) {
      const int original = params->nodes_to_replace->data[i];
      const TfLiteNode& inner = ts->node(original);
      for (int k = 0; k < inner.outputs->size; ++k) {
        const int t = inner.outputs->data[k];
        if (boundary.count(t) != 0) {
          add(static_cast<int>(step), original, t, true, n);
        } else if (t >= 0) {
          ++*inside_partitions;
        }
      }
    }
  }
  return layers;
}

// The inputs of the op behind layers[index], and what is known of each.
std::vector<DivergenceInput> DescribeInputs(const std::vector<LayerDiffEntry>& layers, int index, Interpreter* test) {
  const LayerDiffEntry& layer = layers[index];
  Subgraph* ts = test->primary();
  const TfLiteNode& node = ts->node(layer.node);
  std::set<int> partition_outputs, partition_inputs;
  if (layer.delegated) {
    const auto* params = static_cast<const TfLiteDelegateParams*>(ts->node(layer.delegate_node).builtin_data);
    partition_outputs.insert(params->output_tensors->data, params->output_tensors->data + params->output_tensors->size);
    partition_inputs.insert(params->input_tensors->data, params->input_tensors->data + params->input_tensors->size);
  }
  const std::vector<int>& graph_inputs = test->inputs();
  std::vector<DivergenceInput> inputs;
  for (int k = 0; k < node.inputs->size; ++k) {
    const int t = node.inputs->data[k];
    if (t < 0) continue;
    DivergenceInput in;
    in.tensor = t;
    const TfLiteTensor* tensor = ts->tensor(t);
    in.name = tensor->name != nullptr ? tensor->name : "";
    auto compared = std::find_if(layers.begin(), layers.end(), [t](const LayerDiffEntry& e) { return e.tensor == t; });
    if (compared != layers.end()) {
      in.kind = "compared";
      in.diff = compared->diff;
    } else if (std::find(graph_inputs.begin(), graph_inputs.end(), t) != graph_inputs.end()) {
      in.kind = "graph input";
    } else if (tensor->allocation_type == kTfLiteMmapRo || tensor->allocation_type == kTfLitePersistentRo) {
      in.kind = "constant";
    } else if (tensor->is_variable || tensor->allocation_type == kTfLiteArenaRwPersistent) {
      in.kind = "variable";
    } else if (layer.delegated && partition_inputs.count(t) == 0 && partition_outputs.count(t) == 0) {
      in.kind = "inside the delegated partition";
    } else {
      in.kind = "not compared";
    }
    inputs.push_back(in);
  }
  return inputs;
}

std::string DivergenceLine(const InferenceDiffResult& r) {
  const LayerDiffEntry& l = r.layers[r.first_divergence];
  std::string text = fmt::format("op {} ({}", l.node, l.op);
  if (l.delegated) text += fmt::format(", in {} kernel node {}", l.delegate_name, l.delegate_node);
  text += ") output " + TensorLabel(l.tensor, l.name) + ": ";
  if (r.divergence_is_breach) return text + l.breach;
  return text + "avg_error=" + Num(l.diff.avg_error) + ", max_abs_error=" + Num(l.diff.max_abs_error);
}

std::string DetailLine(const std::string& label, const TensorDiffEntry& e) {
  std::string out = fmt::format("{} '{}' {} {}: ", label, e.name, e.type, ShapeString(e.shape));
  if (!e.mismatch.empty()) return out + "not compared: " + e.mismatch;
  const TensorDiffSummary& d = e.diff;
  auto to_out = std::back_inserter(out);
  fmt::format_to(to_out, "max_abs_error={}", Num(d.max_abs_error));
  if (d.max_abs_error_index >= 0) {
    fmt::format_to(to_out, " at element {} of run {} (reference {}, test {})", d.max_abs_error_index,
                   d.max_abs_error_run, Num(d.reference_at_max), Num(d.test_at_max));
  }
  fmt::format_to(to_out, ", mean_relative_error={}, cosine_similarity={}, elements_differing={} of {}",
                 Num(d.mean_relative_error), Num(d.cosine_similarity), d.elements_differing, d.elements * d.runs);
  if (d.nonfinite_mismatches > 0) fmt::format_to(to_out, ", nonfinite_mismatches={}", d.nonfinite_mismatches);
  if (d.compared_bytewise) out += ", compared by bytes";
  if (d.quantized) {
    fmt::format_to(
        to_out, ", dequantized: avg_error={} max_abs_error={} (scale {}, zero_point {}), steps: 0={} 1={} 2={} >2={}",
        Num(d.avg_error_dequantized), Num(d.max_abs_error_dequantized), Num(d.scale), d.zero_point, d.step_histogram[0],
        d.step_histogram[1], d.step_histogram[2], d.step_histogram[3]);
  }
  return out;
}

nlohmann::ordered_json DiffJson(const TensorDiffEntry& e) {
  nlohmann::ordered_json j;
  j["tensor"] = e.tensor;
  j["name"] = e.name;
  j["type"] = e.type;
  j["shape"] = e.shape;
  if (!e.mismatch.empty()) {
    j["mismatch"] = e.mismatch;
  } else {
    const TensorDiffSummary& d = e.diff;
    j["runs"] = d.runs;
    j["avg_error"] = d.avg_error;
    j["std_dev"] = d.std_dev;
    j["max_abs_error"] = d.max_abs_error;
    j["max_abs_error_at"] = d.max_abs_error_index < 0 ? nlohmann::ordered_json(nullptr)
                                                      : nlohmann::ordered_json{{"run", d.max_abs_error_run},
                                                                               {"element", d.max_abs_error_index},
                                                                               {"reference", d.reference_at_max},
                                                                               {"test", d.test_at_max}};
    j["mean_relative_error"] = d.mean_relative_error;
    j["max_relative_error"] = JsonNumber(d.max_relative_error);
    j["cosine_similarity"] = d.cosine_similarity;
    j["elements"] = d.elements;
    j["elements_differing"] = d.elements_differing;
    j["nonfinite_mismatches"] = d.nonfinite_mismatches;
    j["compared_bytewise"] = d.compared_bytewise;
    // Every element's error by power of two (report_view draws it).
    std::vector<int> log2;
    std::vector<int64_t> counts;
    for (const auto& b : d.error_log2_histogram) {
      log2.push_back(b.first);
      counts.push_back(b.second);
    }
    j["error_histogram"] = {{"zero", d.zero_errors}, {"log2", log2}, {"count", counts}};
    if (d.quantized) {
      j["quantized"] = {{"scale", d.scale},
                        {"zero_point", d.zero_point},
                        {"avg_error_dequantized", d.avg_error_dequantized},
                        {"max_abs_error_dequantized", d.max_abs_error_dequantized},
                        {"step_histogram",
                         {{"0", d.step_histogram[0]},
                          {"1", d.step_histogram[1]},
                          {"2", d.step_histogram[2]},
                          {">2", d.step_histogram[3]}}}};
    } else {
      j["quantized"] = nullptr;
    }
  }
  j["breach"] = e.breach.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.breach);
  return j;
}

// An accumulator's state as a shard report holds it; doubles that may be infinite or NaN as StateNumber.
nlohmann::ordered_json StateJson(const TensorDiffAccumulator::State& s) {
  auto numbers = [](const std::vector<double>& values) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (double v : values) list.push_back(StateNumber(v));
    return list;
  };
  nlohmann::ordered_json j;
  j["first_run"] = s.first_run;
  j["run_means"] = numbers(s.run_means);
  j["run_relative"] = numbers(s.run_relative);
  j["run_cosine"] = numbers(s.run_cosine);
  j["max_relative"] = StateNumber(s.max_relative);
  j["max_abs"] = StateNumber(s.max_abs);
  j["quantized"] = s.quantized;
  j["scale"] = StateNumber(s.scale);
  j["zero_point"] = s.zero_point;
  j["histogram"] = s.histogram;
  j["max_run"] = s.max_run;
  j["max_index"] = s.max_index;
  j["reference_at_max"] = StateNumber(s.reference_at_max);
  j["test_at_max"] = StateNumber(s.test_at_max);
  j["elements"] = s.elements;
  j["differing"] = s.differing;
  j["nonfinite"] = s.nonfinite;
  j["bytewise"] = s.bytewise;
  std::vector<int> log2;
  std::vector<int64_t> counts;
  for (size_t b = 0; b < s.error_log2.size(); ++b) {
    if (s.error_log2[b] == 0) continue;
    log2.push_back(static_cast<int>(b) + kErrorLog2Min);
    counts.push_back(s.error_log2[b]);
  }
  j["error_log2"] = log2;
  j["error_log2_count"] = counts;
  j["zeros"] = s.zeros;
  return j;
}

bool ReadState(const nlohmann::ordered_json& j, TensorDiffAccumulator::State* s) {
  if (!j.is_object()) return false;
  auto integer = [&](const char* key, int64_t* v) {
    if (!j.contains(key) || !j[key].is_number_integer()) return false;
    *v = j[key].get<int64_t>();
    return true;
  };
  auto number = [&](const char* key, double* v) { return j.contains(key) && ReadStateNumber(j[key], v); };
  auto numbers = [&](const char* key, std::vector<double>* values) {
    if (!j.contains(key) || !j[key].is_array()) return false;
    for (const nlohmann::ordered_json& v : j[key]) {
      double d = 0;
      if (!ReadStateNumber(v, &d)) return false;
      values->push_back(d);
    }
    return true;
  };
  int64_t zero_point = 0;
  bool ok = integer("first_run", &s->first_run) && numbers("run_means", &s->run_means) &&
            numbers("run_relative", &s->run_relative) && numbers("run_cosine", &s->run_cosine) &&
            s->run_means.size() == s->run_relative.size() && s->run_means.size() == s->run_cosine.size() &&
            number("max_relative", &s->max_relative) && number("max_abs", &s->max_abs) && number("scale", &s->scale) &&
            integer("zero_point", &zero_point) && integer("max_run", &s->max_run) &&
            integer("max_index", &s->max_index) && number("reference_at_max", &s->reference_at_max) &&
            number("test_at_max", &s->test_at_max) && integer("elements", &s->elements) &&
            integer("differing", &s->differing) && integer("nonfinite", &s->nonfinite) && j.contains("quantized") &&
            j["quantized"].is_boolean() && j.contains("bytewise") && j["bytewise"].is_boolean() &&
            j.contains("histogram") && j["histogram"].is_array() && j["histogram"].size() == 4;
  if (!ok) return false;
  for (size_t b = 0; b < 4; ++b) {
    if (!j["histogram"][b].is_number_integer()) return false;
    s->histogram[b] = j["histogram"][b].get<int64_t>();
  }
  if (!integer("zeros", &s->zeros) || !j.contains("error_log2") || !j["error_log2"].is_array() ||
      !j.contains("error_log2_count") || !j["error_log2_count"].is_array() ||
      j["error_log2"].size() != j["error_log2_count"].size()) {
    return false;
  }
  for (size_t b = 0; b < j["error_log2"].size(); ++b) {
    const nlohmann::ordered_json& e = j["error_log2"][b];
    const nlohmann::ordered_json& n = j["error_log2_count"][b];
    if (!e.is_number_integer() || !n.is_number_integer()) return false;
    const int64_t exponent = e.get<int64_t>();
    if (exponent < kErrorLog2Min || exponent > kErrorLog2Max) return false;
    s->error_log2[static_cast<size_t>(exponent - kErrorLog2Min)] = n.get<int64_t>();
  }
  s->zero_point = static_cast<int32_t>(zero_point);
  s->quantized = j["quantized"].get<bool>();
  s->bytewise = j["bytewise"].get<bool>();
  return true;
}

DiffThresholds ThresholdsFrom(const nlohmann::ordered_json& j) {
  DiffThresholds t;
  auto get = [&](const char* key, double off) {
    return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : off;
  };
  t.max_avg_error = get("max_avg_error", -1.0);
  t.max_abs_error = get("max_abs_error", -1.0);
  t.min_cosine = get("min_cosine", -1.0);
  t.max_relative_error = get("max_relative_error", -1.0);
  t.qualify = j.is_object() && j.value("source", std::string()) == "qualify";
  return t;
}

// The first diverging op, the verdict and the failure line, from finished outputs and layers;
// `inputs_of(layer)` names the inputs of a layer's op.
void Conclude(InferenceDiffResult* result, const std::function<std::vector<DivergenceInput>(int)>& inputs_of) {
  // The first diverging op: the first tensor beyond a threshold (or differing in shape or type); with no
  // threshold, the first that differs at all (information, not a failure).
  for (size_t l = 0; l < result->layers.size() && result->first_divergence < 0; ++l) {
    const LayerDiffEntry& e = result->layers[l];
    if (!e.breach.empty()) {
      result->first_divergence = static_cast<int>(l);
      result->divergence_is_breach = true;
    }
  }
  if (result->first_divergence < 0 && !result->checked) {
    for (size_t l = 0; l < result->layers.size() && result->first_divergence < 0; ++l) {
      if (result->layers[l].diff.elements_differing > 0) result->first_divergence = static_cast<int>(l);
    }
  }
  if (result->first_divergence >= 0) result->divergence_inputs = inputs_of(result->first_divergence);
  if (result->divergence_is_breach) {
    result->passed = false;
    result->failure = DivergenceLine(*result) + " (the first diverging op in execution order)";
  } else {
    for (const OutputDiffEntry& e : result->outputs) {
      if (e.breach.empty()) continue;
      result->passed = false;
      result->failure =
          "OutputDiff[" + std::to_string(e.index) + "] " + TensorLabel(e.tensor, e.name) + ": " + e.breach;
      break;
    }
  }
}

nlohmann::ordered_json ThresholdsJson(const DiffThresholds& t) {
  auto on = [](double value, bool enabled) {
    return enabled ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
  };
  return {{"max_avg_error", on(t.max_avg_error, t.max_avg_error >= 0)},
          {"max_abs_error", on(t.max_abs_error, t.max_abs_error >= 0)},
          {"min_cosine", on(t.min_cosine, t.min_cosine > -1.0)},
          {"max_relative_error", on(t.max_relative_error, t.max_relative_error >= 0)},
          {"source", t.qualify ? "qualify" : "flags"}};
}

}  // namespace

GaussianInputGenerator::Source* GaussianInputGenerator::SourceFor(int cpp_type) {
  std::unique_ptr<Source>& source = sources_[cpp_type];
  if (source == nullptr) {
    source.reset(new Source{std::default_random_engine(seed_),
                            std::normal_distribution<double>(kGaussianMean, kGaussianStdDev)});
  }
  return source.get();
}

double GaussianInputGenerator::Next(Source* source) {
  double value = source->distribution(source->engine);
  while (value < 0 || value >= 1) value = source->distribution(source->engine);
  return value;
}

Status GaussianInputGenerator::Fill(TfLiteType type, int64_t count, std::vector<uint8_t>* bytes) {
  // TFLite: rand_float = min + (max - min) * static_cast<float>(rand_n), min and max floats; then
  // static_cast<T>(rand_float).
  auto fill = [&](auto tag, int cpp_type, float min, float max) {
    using T = decltype(tag);
    Source* source = SourceFor(cpp_type);
    bytes->resize(static_cast<size_t>(count) * sizeof(T));
    for (int64_t i = 0; i < count; ++i) {
      const float value = min + (max - min) * static_cast<float>(Next(source));
      const T v = Clamped<T>(value);
      std::memcpy(bytes->data() + i * sizeof(T), &v, sizeof(T));
    }
  };
  switch (type) {
    case kTfLiteFloat32:
      fill(float(), kFloat, -1.0f, 1.0f);
      break;
    case kTfLiteFloat64:
      fill(double(), kDouble, -1.0f, 1.0f);
      break;
    case kTfLiteFloat16: {
      std::vector<uint8_t> floats;
      std::swap(floats, *bytes);
      TS_RETURN_IF_ERROR(Fill(kTfLiteFloat32, count, &floats));
      bytes->resize(static_cast<size_t>(count) * 2);
      for (int64_t i = 0; i < count; ++i) {
        float f;
        std::memcpy(&f, floats.data() + i * 4, 4);
        const uint16_t h = float16::FloatToHalf(f);
        std::memcpy(bytes->data() + i * 2, &h, 2);
      }
      break;
    }
    case kTfLiteUInt8:
      fill(uint8_t(), kUInt8, 0.0f, 255.0f);
      break;
    case kTfLiteInt8:
      fill(int8_t(), kInt8, -128.0f, 127.0f);
      break;
    case kTfLiteInt16:
      fill(int16_t(), kInt16, -32768.0f, 32767.0f);
      break;
    case kTfLiteUInt16:
      fill(uint16_t(), kUInt16, 0.0f, 65535.0f);
      break;
    case kTfLiteInt32:
      fill(int32_t(), kInt32, static_cast<float>(std::numeric_limits<int32_t>::min()),
           static_cast<float>(std::numeric_limits<int32_t>::max()));
      break;
    case kTfLiteUInt32:
      fill(uint32_t(), kUInt32, 0.0f, static_cast<float>(std::numeric_limits<uint32_t>::max()));
      break;
    case kTfLiteInt64:
      fill(int64_t(), kInt64, static_cast<float>(std::numeric_limits<int64_t>::min()),
           static_cast<float>(std::numeric_limits<int64_t>::max()));
      break;
    case kTfLiteUInt64:
      fill(uint64_t(), kUInt64, 0.0f, static_cast<float>(std::numeric_limits<uint64_t>::max()));
      break;
    case kTfLiteBool: {
      // Not in TFLite: [0, 2) truncated, so false and true are equally likely.
      fill(uint8_t(), kBool, 0.0f, 2.0f);
      for (uint8_t& b : *bytes) b = b >= 1 ? 1 : 0;
      break;
    }
    default:
      return InvalidInputError("type " + TypeName(type) + " cannot be made random");
  }
  return Status::Ok();
}

std::string DescribeBreach(const TensorDiffSummary& d, const DiffThresholds& t) {
  // "--max_abs_error=1", or "1 (--qualify's default)".
  auto limit = [&](const char* flag, double value) {
    return t.qualify ? Num(value) + " (--qualify's default)" : std::string("--") + flag + "=" + Num(value);
  };
  // Written so that NaN figures breach too.
  if (t.max_avg_error >= 0 && !(d.avg_error <= t.max_avg_error)) {
    return "avg_error=" + Num(d.avg_error) + " > " + limit("max_avg_error", t.max_avg_error);
  }
  if (t.max_abs_error >= 0 && !(d.max_abs_error <= t.max_abs_error)) {
    return "max_abs_error=" + Num(d.max_abs_error) + " > " + limit("max_abs_error", t.max_abs_error);
  }
  if (t.max_relative_error >= 0 && !(d.max_relative_error <= t.max_relative_error)) {
    return "max_relative_error=" + Num(d.max_relative_error) + " > " +
           limit("qualify_float_tolerance", t.max_relative_error);
  }
  if (t.min_cosine > -1.0 && !(d.cosine_similarity >= t.min_cosine)) {
    return "cosine_similarity=" + Num(d.cosine_similarity) + " < " + limit("min_cosine", t.min_cosine);
  }
  return "";
}

DiffThresholds QualifyThresholds(TfLiteType type, bool quantized, double float_tolerance) {
  DiffThresholds t;
  t.qualify = true;
  switch (type) {
    case kTfLiteFloat32:
    case kTfLiteFloat16:
    case kTfLiteFloat64:
    case kTfLiteComplex64:
    case kTfLiteComplex128:
      t.max_relative_error = float_tolerance;
      break;
    default:
      t.max_abs_error = quantized ? 1.0 : 0.0;
      break;
  }
  return t;
}

std::string DescribeThresholds(const DiffThresholds& t) {
  std::vector<std::string> parts;
  if (t.max_relative_error >= 0) parts.push_back("max |diff| <= " + Num(t.max_relative_error) + " x max |reference|");
  if (t.max_abs_error == 0.0) {
    parts.push_back("exact");
  } else if (t.max_abs_error >= 0) {
    parts.push_back("max |diff| <= " + Num(t.max_abs_error) + (t.qualify ? " step" : ""));
  }
  if (t.max_avg_error >= 0) parts.push_back("avg_error <= " + Num(t.max_avg_error));
  if (t.min_cosine > -1.0) parts.push_back("cosine >= " + Num(t.min_cosine));
  if (parts.empty()) return "none";
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  return text;
}

namespace {

// Inputs: fixed where given (names and sizes checked), random otherwise. Sets fixed[i] for the inputs
// given by file and describes every input in the result and its report.
Status PlanInputs(const InferenceDiffConfig& config, Interpreter* ref,
                  std::vector<const InferenceDiffConfig::FixedInput*>* fixed_out, InferenceDiffResult* result_out) {
  InferenceDiffResult& result = *result_out;
  for (const auto& fixed : config.fixed_inputs) {
    bool found = false;
    for (size_t i = 0; i < ref->inputs().size(); ++i) {
      const TfLiteTensor* t = ref->input_tensor(i);
      if (t->name == nullptr || fixed.first != t->name) continue;
      found = true;
      if (fixed.second.bytes.size() != t->bytes) {
        return InvalidInputError(fixed.second.source + ": has " + std::to_string(fixed.second.bytes.size()) +
                                 " bytes but input '" + fixed.first + "' (" + TypeName(t->type) + " " + ShapeString(t) +
                                 ") needs " + std::to_string(t->bytes));
      }
    }
    if (!found) {
      return UsageError("--input_layer_value_files: the model has no input named '" + fixed.first + "'");
    }
  }
  const size_t num_inputs = ref->inputs().size();
  std::vector<const InferenceDiffConfig::FixedInput*>& fixed = *fixed_out;
  fixed.assign(num_inputs, nullptr);
  for (size_t i = 0; i < num_inputs; ++i) {
    const TfLiteTensor* t = ref->input_tensor(i);
    auto it = t->name != nullptr ? config.fixed_inputs.find(t->name) : config.fixed_inputs.end();
    InputInfo info;
    info.name = t->name != nullptr ? t->name : "";
    info.type = TypeName(t->type);
    info.shape = ShapeOf(t);
    info.source = "random";
    if (it != config.fixed_inputs.end()) {
      fixed[i] = &it->second;
      info.source = it->second.source;
    } else {
      if (!IsNumericType(t->type) || t->type == kTfLiteComplex64 || t->type == kTfLiteComplex128) {
        return InvalidInputError(std::string("input '") + (t->name ? t->name : "") + "' has type " + TypeName(t->type) +
                                 ", which random inputs cannot fill: give its bytes with " +
                                 "--input_layer_value_files");
      }
    }
    result.inputs.push_back(info);
    ReportedInput reported{info.name, TfLiteTypeGetName(t->type), info.shape, "random"};
    if (fixed[i] != nullptr) {
      reported.source = "file sha256 " + Sha256Hex(fixed[i]->bytes.data(), fixed[i]->bytes.size()).substr(0, 12);
    }
    result.envelope.config.inputs.push_back(reported);
  }

  return Status::Ok();
}

// One run's inputs: the next random values of every input not given by file; the files' bytes where
// `load_fixed` (they are copied once, and stay).
Status DrawInputs(Interpreter* ref, const std::vector<const InferenceDiffConfig::FixedInput*>& fixed, bool load_fixed,
                  GaussianInputGenerator* generator, std::vector<std::vector<uint8_t>>* inputs) {
  for (size_t i = 0; i < fixed.size(); ++i) {
    const TfLiteTensor* t = ref->input_tensor(i);
    if (fixed[i] != nullptr) {
      if (load_fixed) (*inputs)[i] = fixed[i]->bytes;
      continue;
    }
    Status s = generator->Fill(t->type, tflite::NumElements(t), &(*inputs)[i]);
    if (!s.ok()) return s.WithContext(std::string("input '") + (t->name ? t->name : "") + "'");
  }
  return Status::Ok();
}

// What the result and its report say of the run's configuration.
void RecordConfiguration(const Model& model, const InferenceDiffConfig& config, const ShardInfo& part,
                         int inside_partitions, InferenceDiffResult* result_out) {
  InferenceDiffResult& result = *result_out;
  result.model = model.name();
  ReportEnvelope& envelope = result.envelope;
  envelope.start_time = UtcTimestamp();
  envelope.machine = ReadMachineInfo();
  envelope.model.path = model.name();
  envelope.model.size_bytes = static_cast<int64_t>(model.file_bytes());
  envelope.model.sha256 = Sha256Hex(model.file_data(), model.file_bytes());
  envelope.config.num_threads = config.test_num_threads;
  envelope.config.kernels = config.test_kernel_set == KernelSet::kReference ? "reference" : "optimized";
  for (const DelegateOutcome& d : result.delegates) {
    ReportedDelegate reported;
    reported.provider = d.provider;
    reported.applied = d.applied;
    reported.delegate_kernels = d.delegate_kernels;
    reported.fully_delegated = d.fully_delegated;
    reported.error = d.error;
    envelope.config.delegates.push_back(reported);
  }
  // What else makes two runs' figures comparable: the same inputs (runs, seed) and invocations.
  envelope.config.settings = {{"num_runs", std::to_string(config.num_runs)},
                              {"seed", std::to_string(config.seed)},
                              {"invocations_per_run", std::to_string(config.invocations_per_run)}};
  if (part.present()) envelope.shard = part;
  result.num_runs = config.num_runs;
  result.invocations_per_run = config.invocations_per_run;
  result.seed = config.seed;
  result.test_kernels = config.test_kernel_set == KernelSet::kReference ? "reference" : "optimized";
  result.test_num_threads = config.test_num_threads;
  result.thresholds = config.thresholds;
  result.qualify = config.qualify;
  result.qualify_float_tolerance = config.qualify ? config.qualify_float_tolerance : 0.0;
  result.checked = config.qualify || config.thresholds.any();
  result.layerwise = config.layerwise;
  result.tensors_inside_partitions = inside_partitions;
}

}  // namespace

StatusOr<InferenceDiffResult> RunInferenceDiff(const std::shared_ptr<const Model>& model,
                                               const InferenceDiffConfig& config,
                                               const std::vector<ProvidedDelegate>& delegates) {
  if (config.num_runs < 1) return UsageError("--num_runs must be at least 1");
  if (config.invocations_per_run < 1) return UsageError("invocations per run must be at least 1");
  if (config.test_num_threads < 1) return UsageError("--num_interpreter_threads must be at least 1");

  InterpreterOptions reference_options;
  reference_options.kernel_set = KernelSet::kReference;
  reference_options.num_threads = 1;
  reference_options.preserve_all_tensors = config.layerwise;
  reference_options.max_tensor_bytes = config.max_tensor_bytes;
  reference_options.allow_newer_op_versions = config.allow_newer_op_versions;
  TS_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> reference, Interpreter::Create(model, reference_options));
  {
    Status s = reference->AllocateTensors();
    if (!s.ok()) return s.WithContext("reference interpreter");
  }
  Interpreter* ref = reference.get();

  InterpreterOptions test_options;
  test_options.kernel_set = config.test_kernel_set;
  test_options.num_threads = config.test_num_threads;
  test_options.preserve_all_tensors = config.layerwise;
  test_options.max_tensor_bytes = config.max_tensor_bytes;
  test_options.allow_newer_op_versions = config.allow_newer_op_versions;
  InterpreterFactory make_test = [&]() { return Interpreter::Create(model, test_options); };
  ApplyDelegatesOptions apply_options;
  apply_options.require_full_delegation = config.require_full_delegation;
  InferenceDiffResult result;
  TS_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> test_made,
                      BuildInterpreterWithDelegates(make_test, delegates, apply_options, &result.delegates));
  Interpreter* test = test_made.get();

  const size_t num_inputs = ref->inputs().size();
  std::vector<const InferenceDiffConfig::FixedInput*> fixed;
  TS_RETURN_IF_ERROR(PlanInputs(config, ref, &fixed, &result));

  const std::vector<int>& outputs = ref->outputs();
  std::vector<Tracked> output_tracks(outputs.size());
  int inside_partitions = 0;
  std::vector<LayerDiffEntry> layers;
  if (config.layerwise) layers = PlanLayers(test, ref, &inside_partitions);
  std::vector<Tracked> layer_tracks(layers.size());

  // A shard runs its part of the runs; the generator first goes through the runs before it, drawing what
  // a single run would have drawn for them (TFLite's sequence carries from run to run).
  const ShardInfo part = ShardPart(config.shard, config.num_runs, "runs");
  for (Tracked& t : output_tracks) t.accumulator.set_first_run(part.first);
  for (Tracked& t : layer_tracks) t.accumulator.set_first_run(part.first);
  GaussianInputGenerator generator(config.seed);
  std::vector<std::vector<uint8_t>> inputs(num_inputs);
  // A model that keeps state between invokes replays those runs through both interpreters, unmeasured.
  const bool replay = part.first > 0 && (HoldsState(ref) || HoldsState(test));
  for (int64_t run = 0; run < part.first; ++run) {
    TS_RETURN_IF_ERROR(DrawInputs(ref, fixed, replay && run == 0, &generator, &inputs));
    if (!replay) continue;
    LatencyStats unmeasured;
    TS_RETURN_IF_ERROR(CopyInputs(inputs, test).WithContext("test interpreter"));
    TS_RETURN_IF_ERROR(InvokeTimed(test, config.invocations_per_run, "test interpreter", &unmeasured));
    TS_RETURN_IF_ERROR(CopyInputs(inputs, ref).WithContext("reference interpreter"));
    TS_RETURN_IF_ERROR(InvokeTimed(ref, config.invocations_per_run, "reference interpreter", &unmeasured));
  }
  result.replayed_runs = replay ? static_cast<int>(part.first) : 0;
  for (int64_t run = part.first; run < part.end; ++run) {
    TS_RETURN_IF_ERROR(DrawInputs(ref, fixed, run == part.first && !replay, &generator, &inputs));
    // TFLite runs the test interpreter first, then the reference.
    TS_RETURN_IF_ERROR(CopyInputs(inputs, test).WithContext("test interpreter"));
    TS_RETURN_IF_ERROR(InvokeTimed(test, config.invocations_per_run, "test interpreter", &result.test_latency));
    TS_RETURN_IF_ERROR(CopyInputs(inputs, ref).WithContext("reference interpreter"));
    TS_RETURN_IF_ERROR(
        InvokeTimed(ref, config.invocations_per_run, "reference interpreter", &result.reference_latency));
    for (size_t o = 0; o < outputs.size(); ++o) {
      Compare(*ref->output_tensor(o), *test->output_tensor(o), &output_tracks[o]);
    }
    for (size_t l = 0; l < layers.size(); ++l) {
      const TfLiteTensor& r = *ref->tensor(layers[l].tensor);
      const TfLiteTensor& t = *test->tensor(layers[l].tensor);
      if (Readable(r) && Readable(t)) Compare(r, t, &layer_tracks[l]);
    }
  }

  RecordConfiguration(*model, config, part, inside_partitions, &result);
  for (size_t o = 0; o < outputs.size(); ++o) {
    OutputDiffEntry e;
    e.index = static_cast<int>(o);
    e.tensor = outputs[o];
    Finish(output_tracks[o], *ref->output_tensor(o), config, &e);
    result.outputs.push_back(e);
  }
  for (size_t l = 0; l < layers.size(); ++l) {
    Finish(layer_tracks[l], *ref->tensor(layers[l].tensor), config, &layers[l]);
  }
  result.layers = std::move(layers);

  Conclude(&result, [&](int layer) { return DescribeInputs(result.layers, layer, test); });
  if (part.present()) {
    for (size_t l = 0; l < result.layers.size(); ++l) {
      result.layer_inputs.push_back(DescribeInputs(result.layers, static_cast<int>(l), test));
    }
  }
  return result;
}

std::string FormatInferenceDiff(const InferenceDiffResult& r) {
  std::string out;
  auto to_out = std::back_inserter(out);
  if (r.envelope.shard.present()) {
    out += DescribeShard(r.envelope.shard);
    if (r.replayed_runs > 0) {
      fmt::format_to(to_out, "; the model keeps state between invokes: the {} runs before were replayed unmeasured",
                     r.replayed_runs);
    }
    out += "\n";
  } else if (r.envelope.merged.present()) {
    fmt::format_to(to_out, "Merged from {} shards\n", r.envelope.merged.shards);
  }
  fmt::format_to(to_out, "Reference: reference kernels, 1 thread, no delegate. Test: {} kernels, {} {}", r.test_kernels,
                 r.test_num_threads, r.test_num_threads == 1 ? "thread" : "threads");
  int applied = 0;
  for (const DelegateOutcome& d : r.delegates) applied += d.applied ? 1 : 0;
  if (applied == 0) out += ", no delegate";
  for (const DelegateOutcome& d : r.delegates) {
    if (d.applied) fmt::format_to(to_out, ", {} delegate ({} kernels)", d.provider, d.delegate_kernels);
  }
  out += ". Inputs: ";
  bool any_random = false;
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    fmt::format_to(to_out, "{}'{}' {}", i ? ", " : "", r.inputs[i].name, r.inputs[i].source);
    any_random = any_random || r.inputs[i].source == "random";
  }
  if (r.inputs.empty()) out += "none";
  if (any_random) fmt::format_to(to_out, " (seed {})", r.seed);
  out += ".\n";
  for (const DelegateOutcome& d : r.delegates) {
    if (d.applied) out += DescribeOutcome(d) + "\n";
  }
  // TFLite's lines: the latencies as it streams a double ({:g}), its standard deviations truncated.
  fmt::format_to(to_out, "Num evaluation runs: {}\n", r.num_runs);
  fmt::format_to(to_out, "Reference run latency: avg={:g}(us), std_dev={}(us)\n", r.reference_latency.mean_us(),
                 static_cast<int64_t>(r.reference_latency.stddev_us()));
  fmt::format_to(to_out, "Test run latency: avg={:g}(us), std_dev={}(us)\n", r.test_latency.mean_us(),
                 static_cast<int64_t>(r.test_latency.stddev_us()));
  for (const OutputDiffEntry& e : r.outputs) {
    if (!e.mismatch.empty()) {
      fmt::format_to(to_out, "OutputDiff[{}]: not compared: {}\n", e.index, e.mismatch);
    } else {
      fmt::format_to(to_out, "OutputDiff[{}]: avg_error={}, std_dev={}\n", e.index, Num(e.diff.avg_error),
                     Num(e.diff.std_dev));
    }
  }
  // Beyond TFLite.
  for (const OutputDiffEntry& e : r.outputs) out += DetailLine(fmt::format("OutputDiff[{}]", e.index), e) + "\n";
  if (r.layerwise) {
    for (size_t l = 0; l < r.layers.size(); ++l) {
      const LayerDiffEntry& e = r.layers[l];
      fmt::format_to(to_out, "Layer[{}]: op {} {}", l, e.node, e.op);
      if (e.delegated) fmt::format_to(to_out, " ({} kernel node {})", e.delegate_name, e.delegate_node);
      fmt::format_to(to_out, " -> {} {} {}: ", TensorLabel(e.tensor, e.name), e.type, ShapeString(e.shape));
      if (!e.mismatch.empty()) {
        out += "not compared: " + e.mismatch;
      } else if (e.diff.runs == 0) {
        out += "not compared: no host data after Invoke";
      } else {
        fmt::format_to(to_out, "avg_error={}, max_abs_error={}, cosine_similarity={}", Num(e.diff.avg_error),
                       Num(e.diff.max_abs_error), Num(e.diff.cosine_similarity));
      }
      out += "\n";
    }
    fmt::format_to(to_out, "Layerwise: {} tensors compared in execution order", r.layers.size());
    if (r.tensors_inside_partitions > 0) {
      fmt::format_to(to_out, "; {} more stay inside delegated partitions (not materialised)",
                     r.tensors_inside_partitions);
    }
    out += "\n";
    if (r.first_divergence < 0) {
      out += r.checked ? "No tensor exceeds a threshold.\n" : "No tensor differs.\n";
    } else {
      out += (r.divergence_is_breach ? "First diverging op: " : "First op that differs: ") + DivergenceLine(r) + "\n";
      for (const DivergenceInput& in : r.divergence_inputs) {
        out += "  input " + TensorLabel(in.tensor, in.name) + ": ";
        if (in.kind == "compared") {
          fmt::format_to(to_out, "avg_error={}, max_abs_error={}", Num(in.diff.avg_error), Num(in.diff.max_abs_error));
        } else {
          out += in.kind;
        }
        out += "\n";
      }
    }
  }
  if (r.qualify) {
    for (const OutputDiffEntry& e : r.outputs) {
      fmt::format_to(to_out, "Qualify threshold OutputDiff[{}] '{}' {}: {}\n", e.index, e.name, e.type,
                     DescribeThresholds(e.thresholds));
    }
  }
  if (!r.checked) {
    out += "verdict: none (no thresholds given)\n";
  } else {
    out += (r.passed ? "PASS" : "FAIL: " + r.failure) + "\n";
  }
  if (r.gate.requested) {
    for (const std::string& line : FormatErrorGate(r.gate.errors)) out += line + "\n";
    out += FormatGateVerdict(r.gate.errors.verdict, r.gate.config_change) + "\n";
  }
  return out;
}

std::string InferenceDiffJson(const InferenceDiffResult& r) {
  nlohmann::ordered_json j = EnvelopeJson(r.envelope);
  j["num_runs"] = r.num_runs;
  j["invocations_per_run"] = r.invocations_per_run;
  j["seed"] = r.seed;
  const bool shard = r.envelope.shard.present();
  j["reference"] = {
      {"kernels", "reference"}, {"num_threads", 1}, {"latency", ShardLatencyJson(r.reference_latency, shard)}};
  j["test"] = {{"latency", ShardLatencyJson(r.test_latency, shard)}};
  j["thresholds"] = ThresholdsJson(r.thresholds);
  j["qualify"] = r.qualify ? nlohmann::ordered_json({{"float_tolerance", r.qualify_float_tolerance}})
                           : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  for (const OutputDiffEntry& e : r.outputs) {
    nlohmann::ordered_json o;
    o["index"] = e.index;
    const nlohmann::ordered_json diff = DiffJson(e);  // (a named object: items() would outlive a temporary)
    for (auto& item : diff.items()) o[item.key()] = item.value();
    o["thresholds"] = ThresholdsJson(e.thresholds);
    if (shard) o["shard_state"] = StateJson(e.state);
    outputs.push_back(o);
  }
  j["outputs"] = outputs;
  if (r.layerwise) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerDiffEntry& e : r.layers) {
      nlohmann::ordered_json l;
      l["step"] = e.step;
      l["node"] = e.node;
      l["op"] = e.op;
      l["delegate"] = e.delegated ? nlohmann::ordered_json({{"node", e.delegate_node}, {"name", e.delegate_name}})
                                  : nlohmann::ordered_json(nullptr);
      const nlohmann::ordered_json diff = DiffJson(e);
      for (auto& item : diff.items()) l[item.key()] = item.value();
      if (shard) {
        l["thresholds"] = ThresholdsJson(e.thresholds);
        l["shard_state"] = StateJson(e.state);
        nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
        const size_t index = layers.size();
        if (index < r.layer_inputs.size()) {
          for (const DivergenceInput& in : r.layer_inputs[index]) {
            inputs.push_back({{"tensor", in.tensor}, {"name", in.name}, {"kind", in.kind}});
          }
        }
        l["inputs"] = inputs;
      }
      layers.push_back(l);
    }
    nlohmann::ordered_json first = nullptr;
    if (r.first_divergence >= 0) {
      nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
      for (const DivergenceInput& in : r.divergence_inputs) {
        nlohmann::ordered_json i = {{"tensor", in.tensor}, {"name", in.name}, {"kind", in.kind}};
        if (in.kind == "compared") {
          i["avg_error"] = in.diff.avg_error;
          i["max_abs_error"] = in.diff.max_abs_error;
          i["cosine_similarity"] = in.diff.cosine_similarity;
        }
        inputs.push_back(i);
      }
      first = {{"layer", r.first_divergence},
               {"breach", r.divergence_is_breach},
               {"node", r.layers[r.first_divergence].node},
               {"op", r.layers[r.first_divergence].op},
               {"tensor", r.layers[r.first_divergence].tensor},
               {"inputs", inputs}};
    }
    j["layerwise"] = {
        {"tensors", layers}, {"tensors_inside_partitions", r.tensors_inside_partitions}, {"first_divergence", first}};
  } else {
    j["layerwise"] = nullptr;
  }
  j["verdict"] = !r.checked ? "NONE" : (r.passed ? "PASS" : "FAIL");
  j["failure"] = r.passed ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.failure);
  if (r.gate.requested) {
    nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
    for (const ErrorGateResult::Line& l : r.gate.errors.outputs) {
      outputs.push_back({{"index", l.current.index},
                         {"name", l.current.name},
                         {"verdict", GateVerdictName(l.verdict)},
                         {"baseline_max_abs_error", JsonNumber(l.baseline.max_abs_error)},
                         {"max_abs_error", JsonNumber(l.current.max_abs_error)},
                         {"baseline_avg_error", JsonNumber(l.baseline.avg_error)},
                         {"avg_error", JsonNumber(l.current.avg_error)},
                         {"what", l.what}});
    }
    j["gate"] = {{"baseline", r.gate.baseline_path},
                 {"config_change", r.gate.config_change},
                 {"verdict", GateVerdictName(r.gate.errors.verdict)},
                 {"exit_code", GateExitCode(r.gate.errors.verdict)},
                 {"max_error_increase_pct", r.gate.errors.max_error_increase_pct},
                 {"outputs", outputs}};
  } else {
    j["gate"] = nullptr;
  }
  return j.dump(2) + "\n";
}

int InferenceDiffExitCode(const InferenceDiffResult& r) {
  if (r.checked && !r.passed) return 1;
  return r.gate.requested ? GateExitCode(r.gate.errors.verdict) : 0;
}

std::vector<OutputErrors> OutputErrorsOf(const InferenceDiffResult& r) {
  std::vector<OutputErrors> errors;
  for (const OutputDiffEntry& e : r.outputs) {
    errors.push_back({e.index, e.name, e.mismatch.empty(), e.diff.avg_error, e.diff.max_abs_error});
  }
  return errors;
}

StatusOr<InferenceDiffBaseline> ParseInferenceDiffJson(const std::string& text, const std::string& source) {
  TS_ASSIGN_OR_RETURN(ParsedReport parsed,
                      ParseReport(text, source, "touchstone.inference_diff.report", 2, "--output_file_path"));
  const nlohmann::json& j = parsed.json;
  const ReportEnvelope& envelope = parsed.envelope;
  InferenceDiffBaseline baseline;
  baseline.envelope = envelope;
  if (!j.contains("outputs") || !j["outputs"].is_array())
    return InvalidInputError(source + ": has no \"outputs\" list");
  for (const nlohmann::json& o : j["outputs"]) {
    if (!o.is_object() || !o.contains("index") || !o["index"].is_number_integer()) {
      return InvalidInputError(source + ": an output without an index");
    }
    OutputErrors e;
    e.index = o["index"].get<int>();
    e.name = o.value("name", std::string());
    e.compared = !o.contains("mismatch");
    // null figures were not numbers (NaN or infinite): a NaN the gate treats as such.
    auto figure = [&](const char* key) {
      return o.contains(key) && o[key].is_number() ? o[key].get<double>() : std::nan("");
    };
    e.avg_error = figure("avg_error");
    e.max_abs_error = figure("max_abs_error");
    baseline.outputs.push_back(e);
  }
  return baseline;
}

namespace {

// One output's or layer's entry of every shard, appended run by run into one entry.
Status MergeEntry(const std::vector<ShardReport>& shards, const std::vector<const nlohmann::ordered_json*>& entries,
                  TensorDiffEntry* merged) {
  const nlohmann::ordered_json& first = *entries.front();
  merged->tensor = first.value("tensor", -1);
  merged->name = first.value("name", std::string());
  merged->type = first.value("type", std::string());
  merged->thresholds = ThresholdsFrom(first.value("thresholds", nlohmann::ordered_json()));
  TensorDiffAccumulator accumulator;
  const nlohmann::ordered_json* shape = &first["shape"];
  for (size_t k = 0; k < entries.size(); ++k) {
    const nlohmann::ordered_json& e = *entries[k];
    TensorDiffAccumulator::State state;
    if (!e.contains("shard_state") || !ReadState(e["shard_state"], &state)) {
      return InvalidInputError(shards[k].path + ": tensor " + std::to_string(merged->tensor) +
                               " has no complete shard_state (not a shard report's entry)");
    }
    if (e.value("tensor", -1) != merged->tensor) {
      return InvalidInputError(shards[k].path + ": its entries list other tensors than " + shards.front().path + "'s");
    }
    if (!merged->mismatch.empty()) continue;  // a single run compares no more after a mismatch
    accumulator.Append(state);
    if (!state.run_means.empty()) shape = &e["shape"];
    if (e.contains("mismatch") && e["mismatch"].is_string()) merged->mismatch = e["mismatch"].get<std::string>();
  }
  if (shape->is_array()) {
    for (const nlohmann::ordered_json& d : *shape) merged->shape.push_back(d.is_number_integer() ? d.get<int>() : 0);
  }
  merged->state = accumulator.state();
  merged->diff = accumulator.Summary();
  merged->breach = !merged->mismatch.empty() ? merged->mismatch : DescribeBreach(merged->diff, merged->thresholds);
  return Status::Ok();
}

// The entries at `key` (outputs, or layerwise.tensors) of every shard, by position.
StatusOr<std::vector<std::vector<const nlohmann::ordered_json*>>> EntriesByPosition(
    const std::vector<ShardReport>& shards, const nlohmann::ordered_json::json_pointer& at) {
  std::vector<std::vector<const nlohmann::ordered_json*>> by_position;
  for (const ShardReport& s : shards) {
    if (!s.json.contains(at) || !s.json[at].is_array()) {
      return InvalidInputError(s.path + ": has no " + at.to_string().substr(1) + " list");
    }
    const nlohmann::ordered_json& list = s.json[at];
    if (by_position.empty()) by_position.resize(list.size());
    if (list.size() != by_position.size()) {
      return InvalidInputError(s.path + ": " + std::to_string(list.size()) + " entries in " + at.to_string().substr(1) +
                               ", " + std::to_string(by_position.size()) + " in " + shards.front().path);
    }
    for (size_t i = 0; i < list.size(); ++i) by_position[i].push_back(&list[i]);
  }
  return by_position;
}

}  // namespace

StatusOr<InferenceDiffResult> MergeInferenceDiffShards(const std::vector<ShardReport>& shards) {
  if (shards.empty()) return UsageError("no shard reports to merge");
  const nlohmann::ordered_json& first = shards.front().json;
  InferenceDiffResult r;
  r.envelope = MergedEnvelope(shards);
  const RunConfiguration& c = r.envelope.config;
  if (!first.value("num_runs", nlohmann::ordered_json()).is_number_integer() ||
      !first.value("invocations_per_run", nlohmann::ordered_json()).is_number_integer() ||
      !first.value("seed", nlohmann::ordered_json()).is_number_integer()) {
    return InvalidInputError(shards.front().path + ": has no num_runs, invocations_per_run and seed");
  }
  r.num_runs = first["num_runs"].get<int>();
  r.invocations_per_run = first["invocations_per_run"].get<int>();
  r.seed = first["seed"].get<uint32_t>();
  r.model = r.envelope.model.path;
  for (const ReportedInput& in : c.inputs) {
    std::string type = in.type;
    for (char& ch : type) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    r.inputs.push_back({in.name, type, in.shape, in.source});
  }
  r.test_kernels = c.kernels;
  r.test_num_threads = c.num_threads;
  for (const ReportedDelegate& d : c.delegates) {
    r.delegates.push_back({d.provider, d.applied, d.delegate_kernels, d.fully_delegated, d.error});
  }
  TS_ASSIGN_OR_RETURN(r.reference_latency, MergedLatency(shards, "/reference/latency"));
  TS_ASSIGN_OR_RETURN(r.test_latency, MergedLatency(shards, "/test/latency"));
  r.thresholds = ThresholdsFrom(first.value("thresholds", nlohmann::ordered_json()));
  const nlohmann::ordered_json qualify = first.value("qualify", nlohmann::ordered_json());
  r.qualify = qualify.is_object();
  r.qualify_float_tolerance = r.qualify ? qualify.value("float_tolerance", 0.0) : 0.0;
  r.checked = r.qualify || r.thresholds.any();

  TS_ASSIGN_OR_RETURN(std::vector<std::vector<const nlohmann::ordered_json*>> outputs,
                      EntriesByPosition(shards, nlohmann::ordered_json::json_pointer("/outputs")));
  for (const std::vector<const nlohmann::ordered_json*>& entries : outputs) {
    OutputDiffEntry e;
    e.index = entries.front()->value("index", 0);
    TS_RETURN_IF_ERROR(MergeEntry(shards, entries, &e));
    r.outputs.push_back(e);
  }
  r.layerwise = first.contains("layerwise") && first["layerwise"].is_object();
  if (r.layerwise) {
    TS_ASSIGN_OR_RETURN(std::vector<std::vector<const nlohmann::ordered_json*>> layers,
                        EntriesByPosition(shards, nlohmann::ordered_json::json_pointer("/layerwise/tensors")));
    for (const std::vector<const nlohmann::ordered_json*>& entries : layers) {
      const nlohmann::ordered_json& l = *entries.front();
      LayerDiffEntry e;
      e.step = l.value("step", 0);
      e.node = l.value("node", -1);
      e.op = l.value("op", std::string());
      if (l.contains("delegate") && l["delegate"].is_object()) {
        e.delegated = true;
        e.delegate_node = l["delegate"].value("node", -1);
        e.delegate_name = l["delegate"].value("name", std::string());
      }
      TS_RETURN_IF_ERROR(MergeEntry(shards, entries, &e));
      std::vector<DivergenceInput> inputs;
      for (const nlohmann::ordered_json& in : l.value("inputs", nlohmann::ordered_json::array())) {
        DivergenceInput d;
        d.tensor = in.value("tensor", -1);
        d.name = in.value("name", std::string());
        d.kind = in.value("kind", std::string());
        inputs.push_back(d);
      }
      r.layer_inputs.push_back(inputs);
      r.layers.push_back(e);
    }
    r.tensors_inside_partitions = first["layerwise"].value("tensors_inside_partitions", 0);
  }
  Conclude(&r, [&](int layer) {
    std::vector<DivergenceInput> inputs = r.layer_inputs[static_cast<size_t>(layer)];
    for (DivergenceInput& in : inputs) {
      if (in.kind != "compared") continue;
      for (const LayerDiffEntry& e : r.layers) {
        if (e.tensor == in.tensor) in.diff = e.diff;
      }
    }
    return inputs;
  });
  r.layer_inputs.clear();  // a merged report is a whole run's
  return r;
}

}  // namespace touchstone
