// TFLite stable delegates: a shared object exporting TFL_TheStableDelegate (TFLite 2.12 and later),
// configured by a TFLiteSettings JSON file whose stable_delegate_loader_settings.delegate_path names the
// object. Loaded as TFLite 2.14.1's stable_delegate_provider does (--stable_delegate_settings_file),
// with two differences: a delegate that does not load is an error, not a silent CPU run, and an ABI
// version other than "1.0.0" is refused.
#ifndef TOUCHSTONE_DELEGATES_STABLE_STABLE_DELEGATE_H_
#define TOUCHSTONE_DELEGATES_STABLE_STABLE_DELEGATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "delegates/providers/delegate_provider.h"
#include "delegates/stable/stable_provider_flags.h"
#include "runtime/c/stable_delegate.h"
#include "runtime/status.h"

namespace touchstone {

// A TFLiteSettings flatbuffer parsed from JSON, and what Touchstone reads of it.
struct TfliteSettings {
  std::vector<uint8_t> buffer;  // the whole flatbuffer
  std::string delegate_path;    // stable_delegate_loader_settings.delegate_path ("" when absent)
  // The TFLiteSettings table inside `buffer`, as a plugin's create() takes it.
  const void* table() const;
};

// Parses TFLiteSettings JSON with the flatbuffers JSON parser and TFLite's field ids (enum values by
// name or number; unknown fields refused). `where` names the source in errors. kInvalidInput on a
// parse error, with the parser's line.
StatusOr<TfliteSettings> ParseTfliteSettingsJson(const std::string& json, const std::string& where);
// Reads and parses a settings file. kInvalidInput when unreadable or invalid.
StatusOr<TfliteSettings> ReadTfliteSettingsFile(const std::string& path);

// What a stable delegate's shared object says of itself.
struct StableDelegateInfo {
  std::string abi_version;
  std::string name;
  std::string version;
};

// Loads the delegate the settings name and creates it with the settings table. The returned pointer
// destroys it through the plugin (the settings stay alive with it; the object stays loaded, as in
// TFLite). Errors: kInvalidInput for settings without a delegate_path; kExecution for an object that
// does not load, lacks TFL_TheStableDelegate or its plugin, has another ABI version, or creates no
// delegate. `info` (may be null) is filled once the symbol is found.
StatusOr<TfLiteDelegatePtr> LoadStableDelegate(const TfliteSettings& settings, const std::string& where,
                                               StableDelegateInfo* info);

// The "STABLE_DELEGATE" provider: --stable_delegate_settings_file.
DelegateProvider StableDelegateProvider();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_STABLE_STABLE_DELEGATE_H_
