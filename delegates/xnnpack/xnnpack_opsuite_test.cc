// The XNNPACK delegate on every case of ../shared/opsuite, against the reference kernels on the same
// model and inputs. The delegated run goes the way benchmark_model goes: interpreter, input shapes,
// the delegate, then tensors allocated. Float32 outputs must agree within 1e-4 of the largest
// magnitude in the reference output (a float output DEQUANTIZE makes from an 8-bit tensor: within
// kQuantizedSteps of that tensor's steps); quantized outputs within kQuantizedSteps steps
// (docs/xnnpack.md).
// Cases TFLite refuses must still be refused with the delegate on. Prints a table per op: cases run,
// cases where XNNPACK took nodes, the largest differences seen.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tests/common/op_case.h"
#include "tests/common/shared_dir.h"
#include "tests/common/tensor_compare.h"

namespace touchstone {
namespace {

using nlohmann::json;

constexpr double kFloatTolerance = 1e-4;
constexpr int kQuantizedSteps = 1;

struct Outcome {
  Status status;
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<TfLiteType> types;
  // Per output: the scale of the quantized tensor a DEQUANTIZE turned into it, else 0.
  std::vector<float> dequantized_from;
  int delegated_nodes = 0;  // delegate kernel nodes in the primary subgraph
  std::string refusal;      // why the delegate leaves the first node it leaves
};

Outcome RunCase(const std::string& dir, const json& meta, TfLiteDelegate* delegate) {
  Outcome out;
  auto model = Model::FromFile(dir + "/model.tflite");
  if (!model.ok()) {
    out.status = model.status();
    return out;
  }
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  options.max_tensor_bytes = uint64_t{1} << 30;
  options.max_loop_iterations = 100000;
  auto created = Interpreter::Create(model.value(), options);
  if (!created.ok()) {
    out.status = created.status();
    return out;
  }
  Interpreter* interpreter = created.value().get();
  const json& inputs = meta["inputs"];
  if (inputs.size() != interpreter->inputs().size()) {
    out.status = InvalidInputError("input count differs from meta.json");
    return out;
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    out.status = interpreter->ResizeInputTensor(interpreter->inputs()[k], inputs[k]["shape"].get<std::vector<int>>());
    if (!out.status.ok()) return out;
  }
  if (delegate != nullptr) {
    Subgraph* primary = interpreter->primary();
    for (int n : primary->execution_plan()) {
      std::string why;
      if (!XnnpackSupportsNode(primary->context(), n, TfLiteXNNPackDelegateOptionsDefault().flags, &why)) {
        out.refusal = primary->op_name(n) + ": " + why;
        break;
      }
    }
    ::testing::internal::CaptureStderr();
    out.status = interpreter->ModifyGraphWithDelegate(delegate);
    ::testing::internal::GetCapturedStderr();
    if (!out.status.ok()) return out;
    for (int n : interpreter->primary()->execution_plan()) {
      if (interpreter->primary()->node(n).delegate == delegate) ++out.delegated_nodes;
    }
  }
  out.status = interpreter->AllocateTensors();
  if (!out.status.ok()) return out;
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<uint8_t> bytes;
    testing::ReadFileBytes(dir + "/" + inputs[k]["file"].get<std::string>(), &bytes);
    TfLiteTensor* t = interpreter->input_tensor(k);
    if (bytes.size() != t->bytes) {
      out.status = InvalidInputError("input file size differs from the tensor's");
      return out;
    }
    if (!bytes.empty()) std::memcpy(t->data.raw, bytes.data(), bytes.size());
  }
  out.status = interpreter->Invoke();
  if (!out.status.ok()) return out;
  for (size_t k = 0; k < interpreter->outputs().size(); ++k) {
    const TfLiteTensor* t = interpreter->output_tensor(k);
    out.types.push_back(t->type);
    float from = 0.0f;
    Subgraph* primary = interpreter->primary();
    for (size_t n = 0; n < primary->nodes_size(); ++n) {
      const TfLiteNode& node = primary->node(static_cast<int>(n));
      if (primary->registration(static_cast<int>(n)).builtin_code != kTfLiteBuiltinDequantize) continue;
      if (node.outputs->size == 1 && node.outputs->data[0] == interpreter->outputs()[k]) {
        from = primary->tensor(node.inputs->data[0])->params.scale;
      }
    }
    out.dequantized_from.push_back(from);
    const uint8_t* data = reinterpret_cast<const uint8_t*>(t->data.raw);
    out.outputs.emplace_back(data, data + t->bytes);
  }
  return out;
}

double MaxAbs(const std::vector<uint8_t>& floats) {
  double m = 0.0;
  const float* f = reinterpret_cast<const float*>(floats.data());
  for (size_t i = 0; i < floats.size() / 4; ++i) {
    if (std::isfinite(f[i])) m = std::max(m, std::fabs(static_cast<double>(f[i])));
  }
  return m;
}

TEST(XnnpackOpSuiteTest, DelegatedCasesAgreeWithTheReference) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string root = shared + "/opsuite";
  TfLiteXNNPackDelegateOptions options = TfLiteXNNPackDelegateOptionsDefault();
  ::testing::internal::CaptureStderr();
  TfLiteDelegate* delegate = TfLiteXNNPackDelegateCreate(&options);
  ::testing::internal::GetCapturedStderr();
  ASSERT_NE(delegate, nullptr);

  struct Row {
    int cases = 0, delegated = 0;
    double float_diff = 0.0;
    int steps = 0;
  };
  std::map<std::string, Row> rows;
  std::vector<std::string> problems;
  int total = 0, delegated_cases = 0;
  for (const testing::SuiteCase& suite_case : testing::ReadSuiteCases(root)) {
    const std::string &label = suite_case.label, &dir = suite_case.dir, &op = suite_case.op;
    const json& meta = suite_case.meta;
    ++total;
    const Outcome ref = RunCase(dir, meta, nullptr);
    const Outcome got = RunCase(dir, meta, delegate);
    if (!ref.status.ok()) {
      // Refused by the reference (as by TFLite): the delegate must not make it run.
      if (got.status.ok() && got.delegated_nodes > 0) problems.push_back(label + ": the delegate runs a refused case");
      continue;
    }
    Row& row = rows[op];
    ++row.cases;
    if (!got.status.ok()) {
      problems.push_back(label + ": with the delegate: " + got.status.message());
      continue;
    }
    if (got.delegated_nodes > 0) {
      ++row.delegated;
      ++delegated_cases;
    }
    if (!got.refusal.empty()) std::printf("  kept on the interpreter: %-48s %s\n", label.c_str(), got.refusal.c_str());
    for (size_t k = 0; k < ref.outputs.size() && k < got.outputs.size(); ++k) {
      const double diff =
          testing::DelegateDeviation(ref.types[k], got.outputs[k].data(), got.outputs[k].size(), ref.outputs[k]);
      const bool quantized = ref.types[k] == kTfLiteInt8 || ref.types[k] == kTfLiteUInt8;
      if (ref.types[k] == kTfLiteFloat32) row.float_diff = std::max(row.float_diff, diff);
      if (quantized) row.steps = std::max(row.steps, static_cast<int>(diff));
      // A float output dequantized from an 8-bit tensor: the steps allowed there, in its units.
      double float_tolerance = kFloatTolerance;
      if (ref.dequantized_from[k] > 0.0f) {
        float_tolerance =
            std::max(float_tolerance, MaxAbs(ref.outputs[k]) > 0.0
                                          ? kQuantizedSteps * ref.dequantized_from[k] * 1.001 / MaxAbs(ref.outputs[k])
                                          : 0.0);
      }
      const bool within = ref.types[k] == kTfLiteFloat32 ? diff <= float_tolerance
                          : quantized                    ? diff <= kQuantizedSteps
                                                         : diff == 0.0;
      if (!within) {
        char text[64];
        std::snprintf(text, sizeof(text), "%.3g", diff);
        problems.push_back(label + ": output " + std::to_string(k) + " differs by " + text);
      }
    }
  }
  std::printf("%-28s %6s %9s %12s %6s\n", "op", "cases", "delegated", "float rel", "steps");
  for (const auto& entry : rows) {
    if (entry.second.delegated == 0) continue;
    std::printf("%-28s %6d %9d %12.3g %6d\n", entry.first.c_str(), entry.second.cases, entry.second.delegated,
                entry.second.float_diff, entry.second.steps);
  }
  std::printf("XNNPACK op suite: %d cases, %d with nodes delegated, %zu problems\n", total, delegated_cases,
              problems.size());
  for (const std::string& p : problems) std::printf("  PROBLEM %s\n", p.c_str());
  testing::ReportCases("xnnpack_opsuite", total, total);
  TfLiteXNNPackDelegateDelete(delegate);
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
}

}  // namespace
}  // namespace touchstone
