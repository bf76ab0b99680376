// The sample delegate as an external delegate plugin (TFLite's plugin ABI): load it with
// --external_delegate_path=.../libsample_delegate_plugin.so and pass options with
// --external_delegate_options='error_during_prepare:true;min_nodes_per_partition:2'.
#include <cstddef>
#include <string>

#include "delegates/sample/sample_delegate.h"
#include "runtime/c/common.h"

extern "C" {

__attribute__((visibility("default"))) TfLiteDelegate* tflite_plugin_create_delegate(
    const char* const* options_keys, const char* const* options_values, size_t num_options,
    void (*report_error)(const char*)) {
  touchstone::SampleDelegateOptions options;
  std::string error;
  if (!touchstone::ParseSampleDelegateOptions(options_keys, options_values, num_options, &options, &error)) {
    if (report_error != nullptr) report_error((std::string("sample delegate plugin: ") + error).c_str());
    return nullptr;
  }
  return touchstone::TfLiteSampleDelegateCreate(&options);
}

__attribute__((visibility("default"))) void tflite_plugin_destroy_delegate(TfLiteDelegate* delegate) {
  touchstone::TfLiteSampleDelegateDelete(delegate);
}

}  // extern "C"
