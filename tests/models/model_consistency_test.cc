// Whole models without golden files: every model of ../shared/models runs on seeded random inputs
// with the reference kernels, the optimized kernels (1 and 2 threads) and the optimized kernels
// under XNNPACK, and the runs must agree: the same outcome (all run, or all are refused at the same
// stage), integer and bool outputs byte for byte, float32 outputs within 1e-4 of the reference
// output's largest magnitude (they sum in another order). On models with 8-bit or 16-bit tensors
// XNNPACK takes the float operators only: its 8-bit requantization rounds ties its own way, a step
// per op that grows through a network (docs/xnnpack.md), so those runs could not be compared
// exactly. Models with the hybrid (float activations, int8 weights) and recurrent (LSTM, SVDF)
// paths run on more seeds.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/model.h"
#include "tests/common/shared_dir.h"
#include "tests/common/tensor_compare.h"

namespace touchstone {
namespace {

// Float32 outputs: within this fraction of the reference output's largest magnitude. Models with
// hybrid nodes get a wider bound: a float input that differs in its last bit (an upstream op summing
// in another order) can move one of the values a hybrid op quantizes on the fly by a whole step
// (kws_ref_model_float32: 1e-3 at the output).
constexpr double kFloatBound = 1e-4;
constexpr double kHybridFloatBound = 1e-2;

std::vector<std::string> SharedModels() {
  std::vector<std::string> models;
  const std::string shared = testing::SharedDir();
  if (!shared.empty()) testing::ListModelFiles(shared + "/models", &models);
  std::sort(models.begin(), models.end());
  return models;
}

// Fills an input as ../shared/golden makes its inputs: float32 uniform in [-1, 1), int32 and int64
// in [0, 100), bool 0 or 1, the other integer types over their whole range.
void FillInput(TfLiteTensor* t, std::mt19937* rng) {
  const int64_t n = tflite::NumElements(t);
  auto fill = [&](auto* data, auto dist) {
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<std::remove_pointer_t<decltype(data)>>(dist(*rng));
  };
  switch (t->type) {
    case kTfLiteFloat32:
      fill(t->data.f, std::uniform_real_distribution<float>(-1.f, 1.f));
      break;
    case kTfLiteInt32:
      fill(t->data.i32, std::uniform_int_distribution<int32_t>(0, 99));
      break;
    case kTfLiteInt64:
      fill(t->data.i64, std::uniform_int_distribution<int64_t>(0, 99));
      break;
    case kTfLiteBool:
      fill(t->data.uint8, std::uniform_int_distribution<int>(0, 1));
      break;
    case kTfLiteUInt8:
      fill(t->data.uint8, std::uniform_int_distribution<int>(0, 255));
      break;
    case kTfLiteInt8:
      fill(t->data.int8, std::uniform_int_distribution<int>(-128, 127));
      break;
    case kTfLiteInt16:
      fill(t->data.i16, std::uniform_int_distribution<int>(-32768, 32767));
      break;
    default:
      if (t->data.raw != nullptr) std::memset(t->data.raw, 0, t->bytes);
      break;
  }
}

struct ModelRun {
  std::string stage = "ran";  // or "load", "prepare", "invoke"
  std::string error;
  std::vector<TfLiteType> types;
  std::vector<std::vector<int>> shapes;
  std::vector<std::vector<uint8_t>> outputs;
};

ModelRun RunModel(const std::string& path, KernelSet kernels, int threads, const TfLiteXNNPackDelegateOptions* xnnpack,
                  unsigned seed) {
  ModelRun run;
  auto model = Model::FromFile(path);
  if (!model.ok()) {
    run.stage = "load";
    run.error = model.status().message();
    return run;
  }
  InterpreterOptions options;
  options.kernel_set = kernels;
  options.num_threads = threads;
  options.max_tensor_bytes = uint64_t{256} << 20;  // conv_huge_im2col asks for far more
  options.max_loop_iterations = 100000;
  auto created = Interpreter::Create(model.value(), options);
  if (!created.ok()) {
    run.stage = "load";
    run.error = created.status().message();
    return run;
  }
  Interpreter* interpreter = created.value().get();
  std::unique_ptr<TfLiteDelegate, void (*)(TfLiteDelegate*)> delegate(nullptr, TfLiteXNNPackDelegateDelete);
  ::testing::internal::CaptureStderr();
  Status status;
  if (xnnpack != nullptr) {
    delegate.reset(TfLiteXNNPackDelegateCreate(xnnpack));
    if (delegate != nullptr) status = interpreter->ModifyGraphWithDelegate(delegate.get());
  }
  if (status.ok()) status = interpreter->AllocateTensors();
  if (!status.ok()) {
    ::testing::internal::GetCapturedStderr();
    run.stage = "prepare";
    run.error = status.message();
    return run;
  }
  std::mt19937 rng(seed);
  for (size_t i = 0; i < interpreter->inputs().size(); ++i) FillInput(interpreter->input_tensor(i), &rng);
  status = interpreter->Invoke();
  ::testing::internal::GetCapturedStderr();
  if (!status.ok()) {
    run.stage = "invoke";
    run.error = status.message();
    return run;
  }
  for (size_t k = 0; k < interpreter->outputs().size(); ++k) {
    const TfLiteTensor* t = interpreter->output_tensor(k);
    run.types.push_back(t->type);
    run.shapes.emplace_back(t->dims->data, t->dims->data + t->dims->size);
    const uint8_t* data = reinterpret_cast<const uint8_t*>(t->data.raw);
    run.outputs.emplace_back(data, data + (data != nullptr ? t->bytes : 0));
  }
  return run;
}

// What the model holds: nodes that take the hybrid or recurrent paths, and 8-bit tensors.
struct ModelTraits {
  bool hybrid = false;
  bool hybrid_or_recurrent = false;
  bool quantized = false;
};

ModelTraits TraitsOf(const std::string& path) {
  ModelTraits traits;
  auto model = Model::FromFile(path);
  if (!model.ok()) return traits;
  for (const fb::SubGraph* subgraph : *model.value()->fb()->subgraphs()) {
    const auto* tensors = subgraph->tensors();
    auto type_of = [&](int32_t index) {
      TfLiteType type = kTfLiteNoType;
      if (index >= 0 && tensors != nullptr && index < static_cast<int32_t>(tensors->size())) {
        ConvertTensorType(tensors->Get(index)->type(), &type);
      }
      return type;
    };
    if (tensors != nullptr) {
      for (int32_t i = 0; i < static_cast<int32_t>(tensors->size()); ++i) {
        const TfLiteType type = type_of(i);
        if (type == kTfLiteInt8 || type == kTfLiteUInt8 || type == kTfLiteInt16) traits.quantized = true;
      }
    }
    if (subgraph->operators() == nullptr) continue;
    for (const fb::Operator* op : *subgraph->operators()) {
      const int code = model.value()->BuiltinCode(op->opcode_index());
      const auto* inputs = op->inputs();
      const bool hybrid = inputs != nullptr && inputs->size() >= 2 && type_of(inputs->Get(0)) == kTfLiteFloat32 &&
                          (type_of(inputs->Get(1)) == kTfLiteInt8 || type_of(inputs->Get(1)) == kTfLiteUInt8);
      switch (code) {
        case kTfLiteBuiltinLstm:
        case kTfLiteBuiltinUnidirectionalSequenceLstm:
        case kTfLiteBuiltinSvdf:
          traits.hybrid_or_recurrent = true;
          break;
        case kTfLiteBuiltinConv2d:
        case kTfLiteBuiltinDepthwiseConv2d:
        case kTfLiteBuiltinFullyConnected:
        case kTfLiteBuiltinBatchMatmul:
        case kTfLiteBuiltinEmbeddingLookup:
          if (hybrid) traits.hybrid = traits.hybrid_or_recurrent = true;
          break;
        default:
          break;
      }
    }
  }
  return traits;
}

// Why `got` does not agree with `reference`; empty when it does.
std::string Compare(const ModelRun& reference, const ModelRun& got, double float_bound) {
  if (reference.stage != got.stage) {
    return "the reference " + (reference.stage == "ran" ? std::string("ran") : "was refused at " + reference.stage) +
           ", this run " + (got.stage == "ran" ? std::string("ran") : "was refused at " + got.stage + ": " + got.error);
  }
  if (reference.stage != "ran") return "";
  if (reference.outputs.size() != got.outputs.size()) return "the output counts differ";
  for (size_t k = 0; k < reference.outputs.size(); ++k) {
    if (reference.types[k] != got.types[k] || reference.shapes[k] != got.shapes[k] ||
        reference.outputs[k].size() != got.outputs[k].size()) {
      return "output " + std::to_string(k) + " differs in type, shape or size";
    }
    const std::vector<uint8_t>& want = reference.outputs[k];
    const std::vector<uint8_t>& have = got.outputs[k];
    if (reference.types[k] != kTfLiteFloat32) {
      if (want != have)
        return "output " + std::to_string(k) + " (" + TfLiteTypeGetName(reference.types[k]) + ") differs";
      continue;
    }
    const float* w = reinterpret_cast<const float*>(want.data());
    const float* h = reinterpret_cast<const float*>(have.data());
    const size_t n = want.size() / sizeof(float);
    double magnitude = 0.0;
    for (size_t i = 0; i < n; ++i) {
      if (std::isfinite(w[i])) magnitude = std::max(magnitude, std::fabs(static_cast<double>(w[i])));
    }
    for (size_t i = 0; i < n; ++i) {
      const bool same_special = (std::isnan(w[i]) && std::isnan(h[i])) || (std::isinf(w[i]) && w[i] == h[i]);
      if (same_special) continue;
      const double diff = std::fabs(static_cast<double>(h[i]) - w[i]);
      if (!(diff <= float_bound * magnitude)) {
        char text[160];
        std::snprintf(text, sizeof(text), "output %zu element %zu is %.9g, the reference's %.9g (bound %.3g)", k, i,
                      h[i], w[i], float_bound * magnitude);
        return text;
      }
    }
  }
  return "";
}

class ModelConsistencyTest : public ::testing::TestWithParam<std::string> {};

int& ModelsChecked() {
  static int checked = 0;
  return checked;
}

class PrintCount : public ::testing::Environment {
 public:
  void TearDown() override { testing::ReportCases("model_consistency", ModelsChecked(), ModelsChecked()); }
};
::testing::Environment* const kPrintCount = ::testing::AddGlobalTestEnvironment(new PrintCount);

TEST_P(ModelConsistencyTest, KernelSetsAndXnnpackAgree) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string path = GetParam();
  ASSERT_NE(path, "NO_SHARED_MODELS") << "no models under " << shared << "/models";
  const ModelTraits traits = TraitsOf(path);
  TfLiteXNNPackDelegateOptions xnnpack = TfLiteXNNPackDelegateOptionsDefault();
  // Only the float operators of a quantized model go to XNNPACK (see the top of the file).
  if (traits.quantized) xnnpack.flags = 0;
  const std::vector<unsigned> seeds =
      traits.hybrid_or_recurrent ? std::vector<unsigned>{1, 2, 3, 4} : std::vector<unsigned>{1};
  std::string outcome;
  for (unsigned seed : seeds) {
    const ModelRun reference = RunModel(path, KernelSet::kReference, 1, nullptr, seed);
    outcome = reference.stage == "ran" ? "ran" : "refused at " + reference.stage;
    const struct {
      const char* label;
      ModelRun run;
    } others[] = {
        {"optimized, 1 thread", RunModel(path, KernelSet::kOptimized, 1, nullptr, seed)},
        {"optimized, 2 threads", RunModel(path, KernelSet::kOptimized, 2, nullptr, seed)},
        {"XNNPACK", RunModel(path, KernelSet::kOptimized, 1, &xnnpack, seed)},
    };
    for (const auto& other : others) {
      const std::string why = Compare(reference, other.run, traits.hybrid ? kHybridFloatBound : kFloatBound);
      EXPECT_TRUE(why.empty()) << path << " (seed " << seed << ", " << other.label << "): " << why;
    }
  }
  ++ModelsChecked();
  std::printf("%-90s %s, %zu seed(s)%s\n", path.substr(shared.size() + 1).c_str(), outcome.c_str(), seeds.size(),
              traits.quantized ? ", XNNPACK on float ops" : "");
}

std::vector<std::string> ModelParams() {
  std::vector<std::string> models = SharedModels();
  if (models.empty()) models.push_back("NO_SHARED_MODELS");
  return models;
}

INSTANTIATE_TEST_SUITE_P(SharedModels, ModelConsistencyTest, ::testing::ValuesIn(ModelParams()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = std::to_string(info.index) + "_";
                           const size_t slash = info.param.find_last_of('/');
                           for (char c : info.param.substr(slash == std::string::npos ? 0 : slash + 1)) {
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace touchstone
