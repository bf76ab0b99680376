// External delegate plugins: a shared object exporting TFLite's plugin ABI,
//   TfLiteDelegate* tflite_plugin_create_delegate(const char* const* keys, const char* const* values,
//                                                 size_t num_options, void (*report_error)(const char*));
//   void tflite_plugin_destroy_delegate(TfLiteDelegate* delegate);
// is loaded with dlopen and asked for a delegate, with options given as "key1:value1;key2:value2".
#ifndef TOUCHSTONE_DELEGATES_EXTERNAL_EXTERNAL_DELEGATE_H_
#define TOUCHSTONE_DELEGATES_EXTERNAL_EXTERNAL_DELEGATE_H_

#include <string>
#include <utility>
#include <vector>

#include "delegates/external/external_provider_flags.h"
#include "delegates/providers/delegate_provider.h"
#include "runtime/status.h"

namespace touchstone {

using ExternalDelegateOptions = std::vector<std::pair<std::string, std::string>>;

// Splits "k1:v1;k2:v2" into pairs: items at ';', each item at its first ':' (so values may hold ':').
// Empty items (a trailing ';') are skipped; an item without ':', with an empty key, or repeating a key
// is a usage error naming it. (TFLite drops such items silently.)
StatusOr<ExternalDelegateOptions> ParseExternalDelegateOptions(const std::string& text);

// Loads the plugin at `path` and creates its delegate. The returned pointer destroys the delegate
// through the plugin and then unloads it. Errors: kInvalidInput when the file is missing, cannot be
// loaded, or lacks either symbol; kExecution when the plugin returns no delegate (with the messages it
// reported through report_error).
StatusOr<TfLiteDelegatePtr> LoadExternalDelegate(const std::string& path, const ExternalDelegateOptions& options);

// The "EXTERNAL" provider: --external_delegate_path, --external_delegate_options.
DelegateProvider ExternalDelegateProvider();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_EXTERNAL_EXTERNAL_DELEGATE_H_
