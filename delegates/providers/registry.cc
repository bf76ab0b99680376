#include "delegates/providers/registry.h"

#include "delegates/external/external_delegate.h"
#include "delegates/gpu/gpu_provider.h"
#include "delegates/providers/common_provider.h"
#include "delegates/sample/sample_provider.h"
#include "delegates/stable/stable_delegate.h"
#include "delegates/xnnpack/xnnpack_provider.h"

namespace touchstone {

const std::vector<DelegateProvider>& RegisteredDelegateProviders() {
  // One line per provider. A new delegate adds its line here (and its library to :registry's deps).
  static const std::vector<DelegateProvider>* const providers = new std::vector<DelegateProvider>{
      CommonDelegateProvider(),
      ExternalDelegateProvider(),
      StableDelegateProvider(),
      SampleDelegateProvider(),
      GpuDelegateProvider(),
      XnnpackDelegateProvider(),
  };
  return *providers;
}

}  // namespace touchstone
