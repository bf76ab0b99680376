#include "delegates/stable/stable_provider_flags.h"

namespace touchstone {

DelegateProvider StableProviderDeclaration() {
  return DeclareProvider(
      "STABLE_DELEGATE", "a TFLite stable delegate (TFL_TheStableDelegate), named by a TFLiteSettings JSON file",
      {ProviderFlag::String(kStableDelegateSettingsFlag, "",
                            "TFLiteSettings JSON whose stable_delegate_loader_settings.delegate_path names the "
                            "delegate's shared object")},
      kStableDelegateSettingsFlag);
}

}  // namespace touchstone
