// The registry of delegate providers: the one list every binary, --help and the docs read.
#ifndef TOUCHSTONE_DELEGATES_PROVIDERS_REGISTRY_H_
#define TOUCHSTONE_DELEGATES_PROVIDERS_REGISTRY_H_

#include <vector>

#include "delegates/providers/delegate_provider.h"

namespace touchstone {

// Every registered provider, in registration order (the order of --help).
const std::vector<DelegateProvider>& RegisteredDelegateProviders();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_PROVIDERS_REGISTRY_H_
