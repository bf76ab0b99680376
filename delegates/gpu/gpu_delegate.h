// Touchstone's GPU delegate: TFLite's GPU delegate, on Vulkan compute (docs/gpu.md).
//
// It takes the nodes it supports (gpu_ops.h: op, types, shapes, options) and runs each partition as a
// sequence of compute dispatches over device buffers: a command buffer recorded once per Prepare and
// submitted per Eval. Tensors stay on the device inside a partition; partition inputs are copied in
// (converted to float16, or dequantized, on the CPU) at each Eval; partition outputs stay on the
// device behind a buffer handle and are copied out when something on the CPU reads them
// (CopyFromBufferHandle, which the interpreter calls before CPU kernels and for graph outputs), or
// handed straight to the next GPU partition.
//
// Vulkan comes from the loader at run time; with no loader or device the delegate's Prepare fails
// with one line saying so, and the interpreter keeps the CPU kernels.
#ifndef TOUCHSTONE_DELEGATES_GPU_GPU_DELEGATE_H_
#define TOUCHSTONE_DELEGATES_GPU_GPU_DELEGATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/c/common.h"

namespace touchstone {

struct GpuDelegateOptions {
  // TFLite's --gpu_precision_loss_allowed: float16 storage and arithmetic where the device has them
  // (sums accumulate in float32 either way); false: float32 throughout.
  bool precision_loss_allowed = true;
  // TFLite's --gpu_experimental_enable_quant: take quantized models (weights dequantized once,
  // quantized inputs and outputs converted at the partition boundaries, activations kept on their
  // quantization grids).
  bool enable_quant = true;
  // TFLite's --gpu_inference_for_sustained_speed: accepted; Vulkan has no such hint.
  bool sustained_speed = false;
  // Vulkan device index (vkEnumeratePhysicalDevices order); -1: the first discrete GPU, else the
  // first integrated one, else any other (a CPU device such as lavapipe).
  int device_index = -1;
  // Record per-dispatch GPU timestamps (GpuDelegateLastProfile), where the device has them.
  bool enable_op_profiling = false;
  // SimpleDelegateInterface::Options: <= 0 means no limit.
  int max_delegated_partitions = 0;
  int min_nodes_per_partition = 0;
};

// Name() of the delegate, also the custom_name of its kernel nodes (TFLite's GPU delegate's).
constexpr char kGpuDelegateName[] = "TfLiteGpuDelegateV2";

// Null options mean the defaults. Vulkan is opened when the delegate is first applied. Free with
// TfLiteGpuDelegateDelete after every interpreter using it.
TfLiteDelegate* TfLiteGpuDelegateCreate(const GpuDelegateOptions* options);
void TfLiteGpuDelegateDelete(TfLiteDelegate* delegate);

// The Vulkan device in use ("llvmpipe (LLVM 15.0.6, 256 bits), CPU, Vulkan device 0"), empty before
// the delegate was applied or when Vulkan could not start.
std::string GpuDelegateDeviceDescription(TfLiteDelegate* delegate);
// Whether the kernels compute in float16 (precision loss allowed and the device has float16).
bool GpuDelegateUsesFloat16(TfLiteDelegate* delegate);

// One dispatch of the last Eval of a partition, timed by GPU timestamps.
struct GpuOpTiming {
  int node_index = -1;  // the original node it came from
  std::string op_name;  // "CONV_2D", ...
  double gpu_microseconds = 0.0;
};
// Every partition's dispatches of their last Eval, in execution order (enable_op_profiling, and a
// device with timestamps; otherwise empty).
std::vector<GpuOpTiming> GpuDelegateLastProfile(TfLiteDelegate* delegate);

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_GPU_GPU_DELEGATE_H_
