#include "delegates/gpu/gpu_provider.h"

#include <cstdio>
#include <string>

#include "delegates/gpu/gpu_delegate.h"
#include "delegates/providers/common_provider.h"

namespace touchstone {

DelegateProvider GpuDelegateProvider() {
  DelegateProvider provider;
  provider.name = "GPU";
  provider.description = "Touchstone's GPU delegate on Vulkan compute (lavapipe where there is no GPU)";
  provider.flags = {
      ProviderFlag::Bool("use_gpu", false, "apply the GPU delegate (Vulkan compute)"),
      ProviderFlag::Bool("gpu_precision_loss_allowed", true,
                         "compute in float16 where the device supports it (false: float32)"),
      ProviderFlag::Bool("gpu_experimental_enable_quant", true,
                         "run quantized models on the GPU (weights dequantized, activations kept on their "
                         "quantization grids)"),
      ProviderFlag::Bool("gpu_inference_for_sustained_speed", false,
                         "accepted for TFLite compatibility; Vulkan has no such hint"),
      ProviderFlag::String("gpu_backend", "",
                           "vulkan (the only backend; TFLite's cl and gl are accepted with a warning)"),
      ProviderFlag::Int("gpu_device_index", -1,
                        "Vulkan device to use, in enumeration order (-1: the first discrete GPU, else "
                        "integrated, else any such as lavapipe)"),
  };
  provider.enabling_flag = "use_gpu";
  provider.reduced_precision = [](const ProviderParams& params) { return params.GetBool("gpu_precision_loss_allowed"); };
  provider.create = [](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    if (!params.GetBool("use_gpu")) return TfLiteDelegatePtr(nullptr, [](TfLiteDelegate*) {});
    const std::string backend = params.GetString("gpu_backend");
    if (backend == "cl" || backend == "gl") {
      std::fprintf(stderr,
                   "WARNING: --gpu_backend=%s: Touchstone's GPU delegate runs on Vulkan only; using vulkan.\n",
                   backend.c_str());
    } else if (!backend.empty() && backend != "vulkan") {
      return UsageError("--gpu_backend=" + backend + ": unknown backend (vulkan; cl and gl are TFLite's)");
    }
    const int device_index = params.GetInt("gpu_device_index");
    if (device_index < -1) {
      return UsageError("--gpu_device_index=" + std::to_string(device_index) + ": must be -1 (automatic) or >= 0");
    }
    GpuDelegateOptions options;
    options.precision_loss_allowed = params.GetBool("gpu_precision_loss_allowed");
    options.enable_quant = params.GetBool("gpu_experimental_enable_quant");
    options.sustained_speed = params.GetBool("gpu_inference_for_sustained_speed");
    options.device_index = device_index;
    // The tool's op-profiling flag, where a tool declares it for providers.
    options.enable_op_profiling = params.GetBool("enable_op_profiling");
    options.max_delegated_partitions = params.GetInt(kMaxDelegatedPartitionsFlag);
    options.min_nodes_per_partition = params.GetInt(kMinNodesPerPartitionFlag);
    return TfLiteDelegatePtr(TfLiteGpuDelegateCreate(&options), TfLiteGpuDelegateDelete);
  };
  return provider;
}

}  // namespace touchstone
