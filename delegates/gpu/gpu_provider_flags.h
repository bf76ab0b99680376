// The GPU provider's name and flags without the delegate (gpu_provider.h): what a build without the
// Vulkan delegate declares, so that its tools still parse the flags and refuse them by name.
#ifndef TOUCHSTONE_DELEGATES_GPU_GPU_PROVIDER_FLAGS_H_
#define TOUCHSTONE_DELEGATES_GPU_GPU_PROVIDER_FLAGS_H_

#include "delegates/providers/delegate_provider.h"

namespace touchstone {

// Name, description, flags and enabling flag; no create.
DelegateProvider GpuProviderDeclaration();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_GPU_GPU_PROVIDER_FLAGS_H_
