// The sample delegate (float32 ADD and SUB, RELU-family activations, broadcasting) built as a TFLite
// stable delegate: a shared object exporting TFL_TheStableDelegate, written as a vendor writes one
// against TFLite 2.14.1's headers. It uses only the opaque API (compiled into this .so, as TFLite's
// build compiles it into each stable delegate) and an opaque delegate builder, never the classic
// structs' fields, so it exercises exactly the host contract of
// shared/reference/tflite-2.14.1-stable-delegate-abi.md (sections 3.2-3.4). It ignores the settings.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "delegates/sample/elementwise.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/c_api_opaque.h"
#include "runtime/c/stable_delegate.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

constexpr char kName[] = "touchstone_sample_stable_delegate";
constexpr char kVersion[] = "1.0.0";

std::vector<int> ShapeOf(const TfLiteOpaqueTensor* tensor) {
  std::vector<int> shape;
  const int rank = TfLiteOpaqueTensorNumDims(tensor);
  for (int d = 0; d < rank; ++d) shape.push_back(TfLiteOpaqueTensorDim(tensor, d));
  return shape;
}

TfLiteFusedActivation ActivationOf(int builtin_code, const void* builtin_data) {
  if (builtin_data == nullptr) return kTfLiteActNone;
  if (builtin_code == kTfLiteBuiltinAdd) return static_cast<const TfLiteAddParams*>(builtin_data)->activation;
  return static_cast<const TfLiteSubParams*>(builtin_data)->activation;
}

bool IsSupported(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node, const TfLiteRegistrationExternal* reg) {
  const int code = TfLiteRegistrationExternalGetBuiltInCode(reg);
  if (code != kTfLiteBuiltinAdd && code != kTfLiteBuiltinSub) return false;
  if (TfLiteOpaqueNodeNumberOfInputs(node) != 2 || TfLiteOpaqueNodeNumberOfOutputs(node) != 1) return false;
  const TfLiteOpaqueTensor* tensors[3] = {TfLiteOpaqueNodeGetInput(context, node, 0),
                                          TfLiteOpaqueNodeGetInput(context, node, 1),
                                          TfLiteOpaqueNodeGetOutput(context, node, 0)};
  for (const TfLiteOpaqueTensor* t : tensors) {
    if (t == nullptr || TfLiteOpaqueTensorType(t) != kTfLiteFloat32) return false;
  }
  float lo, hi;
  return tflite::FusedActivationRange(ActivationOf(code, TfLiteOpaqueNodeGetBuiltinData(node)), &lo, &hi);
}

// One ADD or SUB; tensors that stay inside the partition get no host storage, so they live in slots.
struct Op {
  bool add = true;
  int tensors[3] = {-1, -1, -1};  // input1, input2, output
  int slots[3] = {-1, -1, -1};    // -1: a host tensor
  float lo = 0, hi = 0;
};

class Kernel {
 public:
  TfLiteStatus Init(TfLiteOpaqueContext* context, const TfLiteOpaqueDelegateParams* params) {
    std::vector<int> boundary(params->output_tensors->data,
                              params->output_tensors->data + params->output_tensors->size);
    std::vector<int> internal;
    for (int i = 0; i < params->nodes_to_replace->size; ++i) {
      TfLiteOpaqueNode* node = nullptr;
      TfLiteRegistrationExternal* reg = nullptr;
      if (TfLiteOpaqueContextGetNodeAndRegistration(context, params->nodes_to_replace->data[i], &node, &reg) !=
          kTfLiteOk) {
        return kTfLiteError;
      }
      Op op;
      const int code = TfLiteRegistrationExternalGetBuiltInCode(reg);
      op.add = code == kTfLiteBuiltinAdd;
      tflite::FusedActivationRange(ActivationOf(code, TfLiteOpaqueNodeGetBuiltinData(node)), &op.lo, &op.hi);
      const int* inputs = nullptr;
      const int* outputs = nullptr;
      int num_inputs = 0, num_outputs = 0;
      TfLiteOpaqueNodeInputs(node, &inputs, &num_inputs);
      TfLiteOpaqueNodeOutputs(node, &outputs, &num_outputs);
      op.tensors[0] = inputs[0];
      op.tensors[1] = inputs[1];
      op.tensors[2] = outputs[0];
      for (int k = 0; k < 2; ++k) {
        auto it = std::find(internal.begin(), internal.end(), op.tensors[k]);
        if (it != internal.end()) op.slots[k] = static_cast<int>(it - internal.begin());
      }
      if (std::find(boundary.begin(), boundary.end(), op.tensors[2]) == boundary.end()) {
        op.slots[2] = static_cast<int>(internal.size());
        internal.push_back(op.tensors[2]);
      }
      ops_.push_back(op);
    }
    buffers_.resize(internal.size());
    shapes_.resize(internal.size());
    return kTfLiteOk;
  }

  TfLiteStatus Prepare(TfLiteOpaqueContext* context) {
    for (const Op& op : ops_) {
      std::vector<int> shape;
      if (!BroadcastShape(Shape(context, op, 0), Shape(context, op, 1), &shape)) {
        TfLiteOpaqueContextReportError(context, "%s: inputs of tensor %d do not broadcast", kName, op.tensors[2]);
        return kTfLiteError;
      }
      if (op.slots[2] >= 0) {
        shapes_[op.slots[2]] = shape;
        buffers_[op.slots[2]].assign(static_cast<size_t>(ElementCount(shape)), 0.0f);
        continue;
      }
      TfLiteOpaqueTensor* out = TfLiteOpaqueContextGetOpaqueTensor(context, op.tensors[2]);
      if (ShapeOf(out) != shape) {
        TfLiteIntArray* dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
        std::copy(shape.begin(), shape.end(), dims->data);
        if (TfLiteOpaqueContextResizeTensor(context, out, dims) != kTfLiteOk) return kTfLiteError;
      }
    }
    return kTfLiteOk;
  }

  TfLiteStatus Invoke(TfLiteOpaqueContext* context) {
    for (const Op& op : ops_) {
      const std::vector<int> out_shape = Shape(context, op, 2);
      if (ElementCount(out_shape) == 0) continue;
      const float* a = Data(context, op, 0);
      const float* b = Data(context, op, 1);
      float* out = Data(context, op, 2);
      if (a == nullptr || b == nullptr || out == nullptr) {
        TfLiteOpaqueContextReportError(context, "%s: a tensor of op writing %d has no data", kName, op.tensors[2]);
        return kTfLiteError;
      }
      ComputeElementwise(op.add, op.lo, op.hi, 0.0f, Shape(context, op, 0), a, Shape(context, op, 1), b, out_shape,
                         out);
    }
    return kTfLiteOk;
  }

 private:
  std::vector<int> Shape(TfLiteOpaqueContext* context, const Op& op, int k) const {
    if (op.slots[k] >= 0) return shapes_[op.slots[k]];
    return ShapeOf(TfLiteOpaqueContextGetOpaqueTensor(context, op.tensors[k]));
  }
  float* Data(TfLiteOpaqueContext* context, const Op& op, int k) {
    if (op.slots[k] >= 0) return buffers_[op.slots[k]].data();
    return static_cast<float*>(TfLiteOpaqueTensorData(TfLiteOpaqueContextGetOpaqueTensor(context, op.tensors[k])));
  }

  std::vector<Op> ops_;
  std::vector<std::vector<float>> buffers_;
  std::vector<std::vector<int>> shapes_;
};

void* KernelInit(TfLiteOpaqueContext* context, const char* buffer, size_t) {
  const auto* params = reinterpret_cast<const TfLiteOpaqueDelegateParams*>(buffer);
  if (params == nullptr || params->delegate == nullptr) return nullptr;
  auto kernel = std::make_unique<Kernel>();
  if (kernel->Init(context, params) != kTfLiteOk) return nullptr;
  return kernel.release();
}

void KernelFree(TfLiteOpaqueContext*, void* data) { delete static_cast<Kernel*>(data); }

TfLiteStatus KernelPrepare(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node) {
  auto* kernel = static_cast<Kernel*>(TfLiteOpaqueNodeGetUserData(node));
  if (kernel == nullptr) {
    TfLiteOpaqueContextReportError(context, "%s: kernel was not initialized", kName);
    return kTfLiteError;
  }
  return kernel->Prepare(context);
}

TfLiteStatus KernelInvoke(TfLiteOpaqueContext* context, TfLiteOpaqueNode* node) {
  auto* kernel = static_cast<Kernel*>(TfLiteOpaqueNodeGetUserData(node));
  return kernel != nullptr ? kernel->Invoke(context) : kTfLiteError;
}

TfLiteStatus DelegatePrepare(TfLiteOpaqueContext* context, TfLiteOpaqueDelegate* delegate, void*) {
  TfLiteIntArray* plan = nullptr;
  if (TfLiteOpaqueContextGetExecutionPlan(context, &plan) != kTfLiteOk) return kTfLiteError;
  std::vector<int> supported;
  for (int i = 0; i < plan->size; ++i) {
    TfLiteOpaqueNode* node = nullptr;
    TfLiteRegistrationExternal* reg = nullptr;
    if (TfLiteOpaqueContextGetNodeAndRegistration(context, plan->data[i], &node, &reg) != kTfLiteOk) continue;
    if (IsSupported(context, node, reg)) supported.push_back(plan->data[i]);
  }
  TfLiteRegistrationExternal* kernel = TfLiteRegistrationExternalCreate(kTfLiteBuiltinDelegate, kName, 1);
  TfLiteRegistrationExternalSetInit(kernel, KernelInit);
  TfLiteRegistrationExternalSetFree(kernel, KernelFree);
  TfLiteRegistrationExternalSetPrepare(kernel, KernelPrepare);
  TfLiteRegistrationExternalSetInvoke(kernel, KernelInvoke);
  TfLiteIntArray* nodes = TfLiteIntArrayCreate(static_cast<int>(supported.size()));
  std::copy(supported.begin(), supported.end(), nodes->data);
  // The host owns `kernel` from here on, even when nothing is replaced.
  const TfLiteStatus status =
      TfLiteOpaqueContextReplaceNodeSubsetsWithDelegateKernels(context, kernel, nodes, delegate);
  TfLiteIntArrayFree(nodes);
  return status;
}

TfLiteDelegate* PluginCreate(const void*) {
  TfLiteOpaqueDelegateBuilder builder{};
  builder.Prepare = DelegatePrepare;
  return TfLiteOpaqueDelegateCreate(&builder);
}

void PluginDestroy(TfLiteDelegate* delegate) { TfLiteOpaqueDelegateDelete(delegate); }

int PluginErrno(TfLiteDelegate*) { return 0; }

const TfLiteOpaqueDelegatePlugin kPlugin = {PluginCreate, PluginDestroy, PluginErrno};

}  // namespace
}  // namespace touchstone

extern "C" __attribute__((visibility("default"))) const TfLiteStableDelegate TFL_TheStableDelegate = {
    TFL_STABLE_DELEGATE_ABI_VERSION, touchstone::kName, touchstone::kVersion, &touchstone::kPlugin};
