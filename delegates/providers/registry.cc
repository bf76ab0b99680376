#include "delegates/providers/registry.h"

#include "delegates/providers/common_provider.h"
#include "delegates/sample/sample_provider.h"

#if defined(TOUCHSTONE_STATIC_BUILD)
#include "delegates/external/external_provider_flags.h"
#include "delegates/gpu/gpu_provider_flags.h"
#include "delegates/stable/stable_provider_flags.h"
#include "delegates/xnnpack/xnnpack_provider_flags.h"
#else
#include "delegates/external/external_delegate.h"
#include "delegates/gpu/gpu_provider.h"
#include "delegates/stable/stable_delegate.h"
#include "delegates/xnnpack/xnnpack_provider.h"
#endif

namespace touchstone {

const std::vector<DelegateProvider>& RegisteredDelegateProviders() {
  // One line per provider. A new delegate adds its line here (and its library to :registry's deps).
#if defined(TOUCHSTONE_STATIC_BUILD)
  // A fully static binary (--config=aarch64_static) loads no shared object: these delegates keep
  // their flags, and refuse them by name (docs/arm64.md).
  static const std::vector<DelegateProvider>* const providers = new std::vector<DelegateProvider>{
      CommonDelegateProvider(),
      UnavailableProvider(ExternalProviderDeclaration(),
                          "a static binary cannot load plugins; use the dynamic build, --config=aarch64"),
      UnavailableProvider(StableProviderDeclaration(),
                          "a static binary cannot load delegates; use the dynamic build, --config=aarch64"),
      SampleDelegateProvider(),
      UnavailableProvider(GpuProviderDeclaration(),
                          "a static binary cannot load the Vulkan loader; use the dynamic build, --config=aarch64"),
      UnavailableProvider(XnnpackProviderDeclaration(),
                          "Debian ships XNNPACK as a shared library only; the CPU kernels run instead, or use "
                          "the dynamic build, --config=aarch64"),
  };
#else
  static const std::vector<DelegateProvider>* const providers = new std::vector<DelegateProvider>{
      CommonDelegateProvider(), ExternalDelegateProvider(), StableDelegateProvider(),
      SampleDelegateProvider(), GpuDelegateProvider(),      XnnpackDelegateProvider(),
  };
#endif
  return *providers;
}

}  // namespace touchstone
