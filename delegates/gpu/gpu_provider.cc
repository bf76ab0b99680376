#include "delegates/gpu/gpu_provider.h"

#include <string>

#include "delegates/gpu/gpu_delegate.h"
#include "delegates/providers/common_provider.h"
#include "runtime/logging.h"

namespace touchstone {

DelegateProvider GpuDelegateProvider() {
  DelegateProvider provider = GpuProviderDeclaration();
  provider.reduced_precision = [](const ProviderParams& params) {
    return params.GetBool("gpu_precision_loss_allowed");
  };
  provider.create = [](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    if (!params.GetBool("use_gpu")) return TfLiteDelegatePtr(nullptr, [](TfLiteDelegate*) {});
    // The flags' declared limits (gpu_provider_flags.cc) keep the backend to "", vulkan, cl or gl and the
    // device index at -1 (automatic) or above.
    const std::string backend = params.GetString("gpu_backend");
    if (backend == "cl" || backend == "gl") {
      LogWarning("--gpu_backend={}: Touchstone's GPU delegate runs on Vulkan only; using vulkan.", backend);
    }
    const int device_index = params.GetInt("gpu_device_index");
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
