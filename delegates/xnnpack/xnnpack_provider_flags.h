// The XNNPACK provider's name and flags without the delegate (xnnpack_provider.h documents them): what
// a build without XNNPACK declares, so that its tools still parse the flags and refuse them by name.
#ifndef TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_PROVIDER_FLAGS_H_
#define TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_PROVIDER_FLAGS_H_

#include "delegates/providers/delegate_provider.h"

namespace touchstone {

constexpr char kUseXnnpackFlag[] = "use_xnnpack";
constexpr char kXnnpackForceFp16Flag[] = "xnnpack_force_fp16";
constexpr char kXnnpackWeightCacheFlag[] = "xnnpack_weight_cache_file_path";
constexpr char kXnnpack8BitFlag[] = "xnnpack_8bit";
constexpr char kXnnpackFp32Flag[] = "xnnpack_fp32";
// The tool's --use_reference_kernels, as tools hand it to providers (a bool parameter of this name).
constexpr char kXnnpackReferenceKernelsParam[] = "use_reference_kernels";

// Name, description, flags and enabling flag; no create.
DelegateProvider XnnpackProviderDeclaration();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_PROVIDER_FLAGS_H_
