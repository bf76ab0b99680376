// The "GPU" delegate provider: TFLite's GPU flags (--use_gpu, --gpu_precision_loss_allowed,
// --gpu_experimental_enable_quant, --gpu_inference_for_sustained_speed, --gpu_backend) plus
// --gpu_device_index, and the common --max_delegated_partitions / --min_nodes_per_partition.
#ifndef TOUCHSTONE_DELEGATES_GPU_GPU_PROVIDER_H_
#define TOUCHSTONE_DELEGATES_GPU_GPU_PROVIDER_H_

#include "delegates/gpu/gpu_provider_flags.h"
#include "delegates/providers/delegate_provider.h"

namespace touchstone {

DelegateProvider GpuDelegateProvider();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_GPU_GPU_PROVIDER_H_
