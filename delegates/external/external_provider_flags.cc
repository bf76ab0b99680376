#include "delegates/external/external_provider_flags.h"

namespace touchstone {

DelegateProvider ExternalProviderDeclaration() {
  return DeclareProvider(
      "EXTERNAL", "a delegate plugin loaded from a shared object, TFLite's external delegate ABI",
      {ProviderFlag::String("external_delegate_path", "",
                            "shared object of an external delegate plugin (tflite_plugin_create_delegate)"),
       ProviderFlag::String("external_delegate_options", "", "options for the plugin: 'key1:value1;key2:value2'")},
      "external_delegate_path");
}

}  // namespace touchstone
