// The STABLE_DELEGATE provider's name and flag without the loader (stable_delegate.h): what a build that
// cannot load delegates declares, so that its tools still parse the flag and refuse it by name.
#ifndef TOUCHSTONE_DELEGATES_STABLE_STABLE_PROVIDER_FLAGS_H_
#define TOUCHSTONE_DELEGATES_STABLE_STABLE_PROVIDER_FLAGS_H_

#include "delegates/providers/delegate_provider.h"

namespace touchstone {

// The flag, as TFLite names it.
constexpr char kStableDelegateSettingsFlag[] = "stable_delegate_settings_file";

// Name, description, flags and enabling flag; no create.
DelegateProvider StableProviderDeclaration();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_STABLE_STABLE_PROVIDER_FLAGS_H_
