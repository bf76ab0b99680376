#include "delegates/external/external_provider_flags.h"

namespace touchstone {

DelegateProvider ExternalProviderDeclaration() {
  DelegateProvider provider;
  provider.name = "EXTERNAL";
  provider.description = "a delegate plugin loaded from a shared object, TFLite's external delegate ABI";
  provider.flags = {
      ProviderFlag::String("external_delegate_path", "",
                           "shared object of an external delegate plugin (tflite_plugin_create_delegate)"),
      ProviderFlag::String("external_delegate_options", "", "options for the plugin: 'key1:value1;key2:value2'"),
  };
  provider.enabling_flag = "external_delegate_path";
  return provider;
}

}  // namespace touchstone
