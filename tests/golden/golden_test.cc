// The golden harness: every model of ../shared/golden is run with the reference kernels on the
// inputs TensorFlow Lite was given, and its outputs are compared with TFLite's (golden/README.md):
// float within 1e-5 of the output's largest magnitude, integers exactly (tier 3: one int8 step).
// The quantized models also run with the optimized kernel set, on every microkernel set the CPU
// has, whose outputs must be byte-identical to the reference's.
// Tiers 1-3 must match; tier-4 models must run (their outputs are information only). Anything that
// does not run says why ("not yet: ..."), never skipped silently.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/model.h"
#include "tests/common/shared_dir.h"
#include "tests/common/tensor_compare.h"

namespace touchstone {
namespace {

using nlohmann::json;

struct CaseResult {
  std::string folder;
  int tier = 0;
  bool matched = false;
  std::string detail;  // why not, or the worst relative error
};

int FindByName(Interpreter* interpreter, const std::vector<int>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (name == interpreter->tensor(tensors[i])->name) return static_cast<int>(i);
  }
  return -1;
}

// Loads a golden folder's model into an interpreter with `options` and runs it on the folder's
// inputs. Null, with the reason in *detail, where it does not get that far.
std::unique_ptr<Interpreter> RunOnGoldenInputs(const std::string& shared, const std::string& folder,
                                               const InterpreterOptions& options, json* meta_out, std::string* detail) {
  const std::string dir = shared + "/golden/" + folder;
  std::ifstream meta_file(dir + "/meta.json");
  if (!meta_file) {
    *detail = "meta.json missing";
    return nullptr;
  }
  json meta = json::parse(meta_file);
  const std::string model_dir = folder.substr(0, folder.find('/'));
  const std::string model_path = shared + "/models/" + model_dir + "/" + meta["model"].get<std::string>();

  auto model = Model::FromFile(model_path);
  if (!model.ok()) {
    *detail = "not yet: " + model.status().message();
    return nullptr;
  }
  auto created = Interpreter::Create(model.value(), options);
  if (!created.ok()) {
    *detail = "not yet: " + created.status().message();
    return nullptr;
  }
  std::unique_ptr<Interpreter> owned = std::move(created.value());
  Interpreter* interpreter = owned.get();
  const json& inputs = meta["inputs"];
  std::vector<int> input_positions;
  for (size_t k = 0; k < inputs.size(); ++k) {
    int position = FindByName(interpreter, interpreter->inputs(), inputs[k]["name"]);
    if (position < 0) position = static_cast<int>(k);
    if (position >= static_cast<int>(interpreter->inputs().size())) {
      *detail = "input '" + inputs[k]["name"].get<std::string>() + "' not found";
      return nullptr;
    }
    input_positions.push_back(position);
    Status resized =
        interpreter->ResizeInputTensor(interpreter->inputs()[position], inputs[k]["shape"].get<std::vector<int>>());
    if (!resized.ok()) {
      *detail = "not yet: " + resized.message();
      return nullptr;
    }
  }
  Status allocated = interpreter->AllocateTensors();
  if (!allocated.ok()) {
    *detail = "not yet: " + allocated.message();
    return nullptr;
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<uint8_t> bytes;
    testing::ReadFileBytes(dir + "/" + inputs[k]["file"].get<std::string>(), &bytes);
    TfLiteTensor* t = interpreter->input_tensor(input_positions[k]);
    if (bytes.size() != t->bytes) {
      *detail = "input " + std::to_string(k) + " has " + std::to_string(bytes.size()) + " bytes, tensor needs " +
                std::to_string(t->bytes);
      return nullptr;
    }
    if (!bytes.empty()) std::memcpy(t->data.raw, bytes.data(), bytes.size());
  }
  Status invoked = interpreter->Invoke();
  if (!invoked.ok()) {
    *detail = "not yet: " + invoked.message();
    return nullptr;
  }
  if (meta_out != nullptr) *meta_out = meta;
  return owned;
}

CaseResult RunCase(const std::string& shared, const std::string& folder, int tier) {
  CaseResult result{folder, tier, false, ""};
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  options.num_threads = 1;
  json meta;
  std::unique_ptr<Interpreter> owned = RunOnGoldenInputs(shared, folder, options, &meta, &result.detail);
  if (owned == nullptr) return result;
  Interpreter* interpreter = owned.get();
  const std::string dir = shared + "/golden/" + folder;
  const json& outputs = meta["outputs"];
  double worst_relative = 0.0;
  testing::FloatTolerance tolerance;
  if (tier == 3) {
    tolerance.atol = 0.00390625;  // one int8 step of the dequantized output (golden/README.md)
  } else {
    tolerance.atol_of_max = 1e-5;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    int position = FindByName(interpreter, interpreter->outputs(), outputs[k]["name"]);
    if (position < 0) position = static_cast<int>(k);
    if (position >= static_cast<int>(interpreter->outputs().size())) {
      result.detail = "output '" + outputs[k]["name"].get<std::string>() + "' not found";
      return result;
    }
    std::vector<uint8_t> expected;
    testing::ReadFileBytes(dir + "/" + outputs[k]["file"].get<std::string>(), &expected);
    const testing::CompareResult compared = testing::CompareTensor(
        interpreter->output_tensor(position), outputs[k]["shape"].get<std::vector<int>>(), expected, tolerance);
    if (compared.max_magnitude > 0) {
      worst_relative = std::max(worst_relative, compared.max_abs_diff / compared.max_magnitude);
    }
    if (!compared.match) {
      result.detail = "output " + std::to_string(k) + ": " + compared.detail;
      return result;
    }
  }
  result.matched = true;
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "max rel err %.2e", worst_relative);
  result.detail = buffer;
  return result;
}

// A model whose optimized run must be byte-identical to the reference run: it has quantized
// convolutions or fully connected layers, and no float op the optimized set computes in another
// order (those agree to a tolerance only).
bool IsQuantizedModel(Interpreter* interpreter) {
  const Subgraph* graph = interpreter->primary();
  bool quantized = false;
  for (size_t i = 0; i < graph->nodes_size(); ++i) {
    const TfLiteNode& node = graph->node(static_cast<int>(i));
    if (node.inputs == nullptr || node.inputs->size == 0 || node.inputs->data[0] < 0) continue;
    const TfLiteType type = interpreter->tensor(node.inputs->data[0])->type;
    switch (graph->registration(static_cast<int>(i)).builtin_code) {
      case kTfLiteBuiltinConv2d:
      case kTfLiteBuiltinDepthwiseConv2d:
      case kTfLiteBuiltinFullyConnected:
        if (type == kTfLiteUInt8 || type == kTfLiteInt8) quantized = true;
        if (type == kTfLiteFloat32) return false;
        break;
      case kTfLiteBuiltinBatchMatmul:
      case kTfLiteBuiltinSoftmax:
        if (type == kTfLiteFloat32) return false;
        break;
      default:
        break;
    }
  }
  return quantized;
}

// Runs `folder` on the optimized kernels (the microkernel set in force) with `threads` threads and
// checks each output against the reference run's: byte for byte, or with `float_tolerance` given,
// float32 outputs within it (CompareTensor; other types still byte for byte). Returns the largest
// difference seen relative to the output's largest magnitude.
double ExpectOptimizedAgrees(const std::string& shared, const std::string& folder, Interpreter* reference, int threads,
                             const testing::FloatTolerance* float_tolerance, const std::string& label) {
  InterpreterOptions options;
  options.kernel_set = KernelSet::kOptimized;
  options.num_threads = threads;
  std::string detail;
  std::unique_ptr<Interpreter> optimized_run = RunOnGoldenInputs(shared, folder, options, nullptr, &detail);
  EXPECT_NE(optimized_run, nullptr) << label << ": " << detail;
  if (optimized_run == nullptr) return 0.0;
  double worst_relative = 0.0;
  for (size_t k = 0; k < reference->outputs().size(); ++k) {
    const TfLiteTensor* expected = reference->output_tensor(k);
    const TfLiteTensor* actual = optimized_run->output_tensor(k);
    if (float_tolerance == nullptr || expected->type != kTfLiteFloat32) {
      EXPECT_EQ(expected->bytes, actual->bytes) << label << " output " << k;
      EXPECT_TRUE(expected->bytes == actual->bytes &&
                  std::memcmp(expected->data.raw, actual->data.raw, expected->bytes) == 0)
          << label << " output " << k << " differs from the reference";
      continue;
    }
    const std::vector<int> shape(expected->dims->data, expected->dims->data + expected->dims->size);
    const std::vector<uint8_t> bytes(expected->data.uint8, expected->data.uint8 + expected->bytes);
    const testing::CompareResult compared = testing::CompareTensor(actual, shape, bytes, *float_tolerance);
    // CompareTensor names the expected side "TFLite": here it is the reference kernels' output.
    EXPECT_TRUE(compared.match) << label << " output " << k << " against the reference kernels: " << compared.detail;
    if (compared.max_magnitude > 0) {
      worst_relative = std::max(worst_relative, compared.max_abs_diff / compared.max_magnitude);
    }
  }
  return worst_relative;
}

// The golden folders whose reference run succeeds and whose model is (or is not) quantized, with
// that reference run.
template <typename F>
int ForEachReferenceRun(const std::string& shared, bool quantized, F&& fn) {
  std::ifstream tiers_file(shared + "/golden/tiers.json");
  EXPECT_TRUE(tiers_file) << "golden/tiers.json missing";
  if (!tiers_file) return 0;
  json tiers = json::parse(tiers_file);
  int compared = 0;
  for (auto it = tiers.begin(); it != tiers.end(); ++it) {
    const std::string folder = it.key();
    InterpreterOptions reference_options;
    reference_options.kernel_set = KernelSet::kReference;
    std::string detail;
    std::unique_ptr<Interpreter> reference = RunOnGoldenInputs(shared, folder, reference_options, nullptr, &detail);
    if (reference == nullptr || IsQuantizedModel(reference.get()) != quantized) continue;
    ++compared;
    fn(folder, reference.get());
  }
  return compared;
}

TEST(GoldenTest, OptimizedKernelsMatchTheReferenceBytewiseOnQuantizedModels) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::vector<std::string> sets = optimized::AvailableKernelSets();
  const int compared = ForEachReferenceRun(shared, true, [&](const std::string& folder, Interpreter* reference) {
    for (const std::string& set : sets) {
      ASSERT_TRUE(optimized::SelectKernelSet(set));
      // The widest set with 1 and 2 threads, the others with 2.
      for (int threads : {1, 2}) {
        if (threads == 1 && set != sets.front()) continue;
        ExpectOptimizedAgrees(shared, folder, reference, threads, nullptr,
                              folder + " (" + set + ", " + std::to_string(threads) + " threads)");
      }
    }
    optimized::SelectKernelSet(sets.front());
    std::printf("optimized == reference, byte for byte: %s\n", folder.c_str());
  });
  EXPECT_GT(compared, 0) << "no quantized golden model ran";
}

// Float models on the optimized kernels (the widest microkernel set, 1 and 2 threads): float32
// outputs within 1e-4 of the largest magnitude of the reference's output (they sum in another
// order), every other output byte for byte. The reference itself is checked against TFLite's
// outputs above.
TEST(GoldenTest, OptimizedKernelsAgreeWithTheReferenceOnFloatModels) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  testing::FloatTolerance tolerance;
  tolerance.atol_of_max = 1e-4;
  const int compared = ForEachReferenceRun(shared, false, [&](const std::string& folder, Interpreter* reference) {
    double worst = 0.0;
    for (int threads : {1, 2}) {
      worst = std::max(worst, ExpectOptimizedAgrees(shared, folder, reference, threads, &tolerance,
                                                    folder + " (" + std::to_string(threads) + " threads)"));
    }
    std::printf("optimized ~ reference: %s, max rel diff %.2e\n", folder.c_str(), worst);
  });
  EXPECT_GT(compared, 0) << "no float golden model ran";
}

TEST(GoldenTest, EveryFolderMatchesOrSaysWhyNot) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  std::ifstream tiers_file(shared + "/golden/tiers.json");
  ASSERT_TRUE(tiers_file) << "golden/tiers.json missing";
  json tiers = json::parse(tiers_file);
  std::vector<CaseResult> results;
  for (auto it = tiers.begin(); it != tiers.end(); ++it) {
    results.push_back(RunCase(shared, it.key(), it.value()["tier"].get<int>()));
  }
  std::map<int, std::pair<int, int>> per_tier;  // tier -> (matched, total)
  std::printf("%-5s %-62s %s\n", "tier", "golden folder", "result");
  for (const CaseResult& r : results) {
    std::printf("%-5d %-62s %s%s\n", r.tier, r.folder.c_str(), r.matched ? "MATCH " : "", r.detail.c_str());
    per_tier[r.tier].second++;
    if (r.matched) per_tier[r.tier].first++;
    // Tiers 1-3 must match (golden/README.md); tier 4 must run, its outputs are information only.
    if (r.tier <= 3) {
      EXPECT_TRUE(r.matched) << r.folder << ": " << r.detail;
    } else {
      EXPECT_EQ(r.detail.find("not yet"), std::string::npos) << r.folder << ": " << r.detail;
    }
  }
  for (const auto& entry : per_tier) {
    std::printf("tier %d: %d of %d matched\n", entry.first, entry.second.first, entry.second.second);
  }
  testing::ReportCases("golden", static_cast<int>(results.size()), static_cast<int>(tiers.size()));
}

}  // namespace
}  // namespace touchstone
