#include "delegates/stable/stable_provider_flags.h"

namespace touchstone {

DelegateProvider StableProviderDeclaration() {
  DelegateProvider provider;
  provider.name = "STABLE_DELEGATE";
  provider.description = "a TFLite stable delegate (TFL_TheStableDelegate), named by a TFLiteSettings JSON file";
  provider.flags = {
      ProviderFlag::String(kStableDelegateSettingsFlag, "",
                           "TFLiteSettings JSON whose stable_delegate_loader_settings.delegate_path names the "
                           "delegate's shared object"),
  };
  provider.enabling_flag = kStableDelegateSettingsFlag;
  return provider;
}

}  // namespace touchstone
