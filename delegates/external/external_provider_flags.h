// The EXTERNAL provider's name and flags without the plugin loader (external_delegate.h): what a build
// that cannot load plugins declares, so that its tools still parse the flags and refuse them by name.
#ifndef TOUCHSTONE_DELEGATES_EXTERNAL_EXTERNAL_PROVIDER_FLAGS_H_
#define TOUCHSTONE_DELEGATES_EXTERNAL_EXTERNAL_PROVIDER_FLAGS_H_

#include "delegates/providers/delegate_provider.h"

namespace touchstone {

// Name, description, flags and enabling flag; no create.
DelegateProvider ExternalProviderDeclaration();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_EXTERNAL_EXTERNAL_PROVIDER_FLAGS_H_
