#include "delegates/sample/sample_delegate.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "delegates/api/simple_delegate.h"
#include "delegates/sample/elementwise.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/profiler.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

// One ADD or SUB of the partition, by tensor index. Tensors written and read only inside the partition
// get no storage from the interpreter (its arena plans the graph it runs, where the partition is one
// node): the kernel keeps those in buffers of its own, numbered by `*_slot` (-1: an interpreter tensor).
struct ElementwiseOp {
  int node_index = -1;  // in the original graph
  int builtin_code = 0;
  int input1 = -1;
  int input2 = -1;
  int output = -1;
  int input1_slot = -1;
  int input2_slot = -1;
  int output_slot = -1;
  TfLiteFusedActivation activation = kTfLiteActNone;
};

bool IsSupportedActivation(TfLiteFusedActivation activation) {
  return activation == kTfLiteActNone || activation == kTfLiteActRelu || activation == kTfLiteActReluN1To1 ||
         activation == kTfLiteActRelu6;
}

TfLiteFusedActivation ActivationOf(int builtin_code, const void* builtin_data) {
  if (builtin_data == nullptr) return kTfLiteActNone;
  if (builtin_code == kTfLiteBuiltinAdd) return static_cast<const TfLiteAddParams*>(builtin_data)->activation;
  return static_cast<const TfLiteSubParams*>(builtin_data)->activation;
}

// A genuine segmentation fault (a store through a null pointer the compiler cannot see is null). The
// default action is restored first, so a sanitizer's handler does not turn the death into exit(1).
[[noreturn]] void CrashNow() {
  std::signal(SIGSEGV, SIG_DFL);
  volatile uintptr_t address = 0;
  *reinterpret_cast<volatile int*>(address) = 1;
  std::abort();  // not reached
}

class SampleDelegateKernel : public tflite::SimpleDelegateKernelInterface {
 public:
  explicit SampleDelegateKernel(const SampleDelegateOptions& options) : options_(options) {}

  TfLiteStatus Init(TfLiteContext* context, const TfLiteDelegateParams* params) override {
    if (options_.error_during_init) {
      TF_LITE_KERNEL_LOG(context, "%s: failing in Init (error_during_init=true)", kSampleDelegateName);
      return kTfLiteError;
    }
    const std::vector<int> boundary(params->output_tensors->data,
                                    params->output_tensors->data + params->output_tensors->size);
    std::vector<std::pair<int, int>> internal;  // (tensor, slot)
    auto slot_of = [&internal](int tensor) {
      for (const auto& entry : internal) {
        if (entry.first == tensor) return entry.second;
      }
      return -1;
    };
    for (int i = 0; i < params->nodes_to_replace->size; ++i) {
      TfLiteNode* node = nullptr;
      TfLiteRegistration* registration = nullptr;
      TF_LITE_ENSURE_STATUS(
          context->GetNodeAndRegistration(context, params->nodes_to_replace->data[i], &node, &registration));
      ElementwiseOp op;
      op.node_index = params->nodes_to_replace->data[i];
      op.builtin_code = registration->builtin_code;
      op.input1 = node->inputs->data[0];
      op.input2 = node->inputs->data[1];
      op.output = node->outputs->data[0];
      op.activation = ActivationOf(op.builtin_code, node->builtin_data);
      op.input1_slot = slot_of(op.input1);
      op.input2_slot = slot_of(op.input2);
      if (std::find(boundary.begin(), boundary.end(), op.output) == boundary.end()) {
        op.output_slot = static_cast<int>(internal.size());
        internal.emplace_back(op.output, op.output_slot);
      }
      ops_.push_back(op);
    }
    buffers_.resize(internal.size());
    shapes_.resize(internal.size());
    return kTfLiteOk;
  }

  TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node) override {
    if (options_.error_during_prepare) {
      TF_LITE_KERNEL_LOG(context, "%s: failing in Prepare (error_during_prepare=true)", kSampleDelegateName);
      return kTfLiteError;
    }
    // In plan order, so shapes flow from one op to the next inside the partition.
    for (const ElementwiseOp& op : ops_) {
      for (int t : {op.input1, op.input2, op.output}) {
        TF_LITE_ENSURE_TYPES_EQ(context, context->tensors[t].type, kTfLiteFloat32);
      }
      std::vector<int> shape;
      if (!BroadcastShape(ShapeOf(context, op.input1, op.input1_slot), ShapeOf(context, op.input2, op.input2_slot),
                          &shape)) {
        TF_LITE_KERNEL_LOG(context, "%s: inputs of tensor %d do not broadcast (or rank above %d)", kSampleDelegateName,
                           op.output, kSampleMaxRank);
        return kTfLiteError;
      }
      if (op.output_slot >= 0) {
        shapes_[op.output_slot] = shape;
        buffers_[op.output_slot].assign(static_cast<size_t>(ElementCount(shape)), 0.0f);
        continue;
      }
      TfLiteTensor* out = &context->tensors[op.output];
      if (touchstone::ShapeOf(out) != shape) {
        TfLiteIntArray* dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
        std::copy(shape.begin(), shape.end(), dims->data);
        TF_LITE_ENSURE_STATUS(context->ResizeTensor(context, out, dims));
      }
    }
    return kTfLiteOk;
  }

  TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node) override {
    if (options_.error_during_invoke) {
      TF_LITE_KERNEL_LOG(context, "%s: failing in Eval (error_during_invoke=true)", kSampleDelegateName);
      return kTfLiteError;
    }
    if (options_.crash_during_invoke) CrashNow();
    if (options_.hang_during_invoke) {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    // Each op is reported to a profiler, when one is installed, as TFLite's delegates do: tag the op
    // name, metadata the op's node index in the original graph.
    auto* profiler = static_cast<tflite::Profiler*>(context->profiler);
    for (const ElementwiseOp& op : ops_) {
      TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE(profiler, op.builtin_code == kTfLiteBuiltinAdd ? "ADD" : "SUB",
                                              op.node_index);
      TF_LITE_ENSURE_STATUS(Compute(context, op));
    }
    return kTfLiteOk;
  }

 private:
  std::vector<int> ShapeOf(TfLiteContext* context, int tensor, int slot) const {
    return slot >= 0 ? shapes_[slot] : touchstone::ShapeOf(&context->tensors[tensor]);
  }
  float* DataOf(TfLiteContext* context, int tensor, int slot) {
    return slot >= 0 ? buffers_[slot].data() : tflite::GetTensorData<float>(&context->tensors[tensor]);
  }

  TfLiteStatus Compute(TfLiteContext* context, const ElementwiseOp& op) {
    const std::vector<int> sa_shape = ShapeOf(context, op.input1, op.input1_slot);
    const std::vector<int> sb_shape = ShapeOf(context, op.input2, op.input2_slot);
    const std::vector<int> out_shape = ShapeOf(context, op.output, op.output_slot);
    if (ElementCount(out_shape) == 0) return kTfLiteOk;
    const float* pa = DataOf(context, op.input1, op.input1_slot);
    const float* pb = DataOf(context, op.input2, op.input2_slot);
    float* po = DataOf(context, op.output, op.output_slot);
    if (pa == nullptr || pb == nullptr || po == nullptr) {
      TF_LITE_KERNEL_LOG(context, "%s: tensor %d, %d or %d has no data", kSampleDelegateName, op.input1, op.input2,
                         op.output);
      return kTfLiteError;
    }
    float lo = 0, hi = 0;
    tflite::CalculateActivationRange(op.activation, &lo, &hi);
    // A deliberately wrong delegate (options.perturb): a bias on this op's results.
    const float bias = options_.perturb_node < 0 || options_.perturb_node == op.node_index ? options_.perturb : 0.0f;
    ComputeElementwise(op.builtin_code == kTfLiteBuiltinAdd, lo, hi, bias, sa_shape, pa, sb_shape, pb, out_shape, po);
    return kTfLiteOk;
  }

  const SampleDelegateOptions options_;
  std::vector<ElementwiseOp> ops_;
  // Storage and shapes of the partition's internal tensors, by slot.
  std::vector<std::vector<float>> buffers_;
  std::vector<std::vector<int>> shapes_;
};

class SampleDelegate : public tflite::SimpleDelegateInterface {
 public:
  explicit SampleDelegate(const SampleDelegateOptions& options) : options_(options) {}

  bool IsNodeSupportedByDelegate(const TfLiteRegistration* registration, const TfLiteNode* node,
                                 TfLiteContext* context) const override {
    if (registration->builtin_code != kTfLiteBuiltinAdd && registration->builtin_code != kTfLiteBuiltinSub) {
      return false;
    }
    if (node->inputs->size != 2 || node->outputs->size != 1) return false;
    for (int t : {node->inputs->data[0], node->inputs->data[1], node->outputs->data[0]}) {
      if (t < 0 || context->tensors[t].type != kTfLiteFloat32) return false;
    }
    return IsSupportedActivation(ActivationOf(registration->builtin_code, node->builtin_data));
  }

  TfLiteStatus Initialize(TfLiteContext* context) override { return kTfLiteOk; }

  const char* Name() const override { return kSampleDelegateName; }

  std::unique_ptr<tflite::SimpleDelegateKernelInterface> CreateDelegateKernelInterface() override {
    return std::make_unique<SampleDelegateKernel>(options_);
  }

  Options DelegateOptions() const override {
    Options options;
    options.max_delegated_partitions = options_.max_delegated_partitions;
    options.min_nodes_per_partition = options_.min_nodes_per_partition;
    return options;
  }

 private:
  const SampleDelegateOptions options_;
};

bool ParseBool(const std::string& text, bool* value) {
  if (text == "true" || text == "1") {
    *value = true;
  } else if (text == "false" || text == "0") {
    *value = false;
  } else {
    return false;
  }
  return true;
}

bool ParseFloat(const std::string& text, float* value) {
  float v = 0.0f;
  if (!absl::SimpleAtof(text, &v) || !std::isfinite(v)) return false;
  *value = v;
  return true;
}

bool ParseInt(const std::string& text, int* value) {
  int v = 0;
  if (!absl::SimpleAtoi(text, &v) || v < -(1 << 30) || v > (1 << 30)) return false;
  *value = v;
  return true;
}

}  // namespace

TfLiteDelegate* TfLiteSampleDelegateCreate(const SampleDelegateOptions* options) {
  return tflite::TfLiteDelegateFactory::CreateSimpleDelegate(
      std::make_unique<SampleDelegate>(options != nullptr ? *options : SampleDelegateOptions()));
}

void TfLiteSampleDelegateDelete(TfLiteDelegate* delegate) {
  tflite::TfLiteDelegateFactory::DeleteSimpleDelegate(delegate);
}

bool ParseSampleDelegateOptions(const char* const* keys, const char* const* values, size_t num_options,
                                SampleDelegateOptions* options, std::string* error) {
  for (size_t i = 0; i < num_options; ++i) {
    const std::string key = keys[i] != nullptr ? keys[i] : "";
    const std::string value = values[i] != nullptr ? values[i] : "";
    bool ok = true;
    if (key == "error_during_init") {
      ok = ParseBool(value, &options->error_during_init);
    } else if (key == "error_during_prepare") {
      ok = ParseBool(value, &options->error_during_prepare);
    } else if (key == "error_during_invoke") {
      ok = ParseBool(value, &options->error_during_invoke);
    } else if (key == "crash_during_invoke") {
      ok = ParseBool(value, &options->crash_during_invoke);
    } else if (key == "hang_during_invoke") {
      ok = ParseBool(value, &options->hang_during_invoke);
    } else if (key == "max_delegated_partitions") {
      ok = ParseInt(value, &options->max_delegated_partitions);
    } else if (key == "min_nodes_per_partition") {
      ok = ParseInt(value, &options->min_nodes_per_partition);
    } else if (key == "perturb") {
      ok = ParseFloat(value, &options->perturb);
    } else if (key == "perturb_node") {
      ok = ParseInt(value, &options->perturb_node) && options->perturb_node >= -1;
    } else {
      *error = "unknown option '" + key +
               "' (known: error_during_init, error_during_prepare, error_during_invoke, crash_during_invoke, "
               "hang_during_invoke, "
               "max_delegated_partitions, min_nodes_per_partition, perturb, perturb_node)";
      return false;
    }
    if (!ok) {
      *error = "option '" + key + "': bad value '" + value + "'";
      return false;
    }
  }
  return true;
}

}  // namespace touchstone
