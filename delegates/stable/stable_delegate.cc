#include "delegates/stable/stable_delegate.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "delegates/stable/tflite_settings_generated.h"
#include "flatbuffers/idl.h"

namespace touchstone {
namespace {

constexpr char kSchemaText[] =
#include "delegates/stable/tflite_settings_schema.inc"
    ;

}  // namespace

const void* TfliteSettings::table() const { return flatbuffers::GetRoot<tflite::TFLiteSettings>(buffer.data()); }

StatusOr<TfliteSettings> ParseTfliteSettingsJson(const std::string& json, const std::string& where) {
  flatbuffers::Parser parser;
  if (!parser.Parse(kSchemaText) || !parser.SetRootType("TFLiteSettings")) {
    return InvalidInputError("TFLiteSettings schema does not parse: " + OneLine(parser.error_));
  }
  if (!parser.Parse(json.c_str())) {
    return InvalidInputError(where + ": not a TFLiteSettings JSON: " + OneLine(parser.error_));
  }
  TfliteSettings settings;
  settings.buffer.assign(parser.builder_.GetBufferPointer(),
                         parser.builder_.GetBufferPointer() + parser.builder_.GetSize());
  const auto* root = flatbuffers::GetRoot<tflite::TFLiteSettings>(settings.buffer.data());
  if (root->stable_delegate_loader_settings() != nullptr &&
      root->stable_delegate_loader_settings()->delegate_path() != nullptr) {
    settings.delegate_path = root->stable_delegate_loader_settings()->delegate_path()->str();
  }
  return settings;
}

StatusOr<TfliteSettings> ReadTfliteSettingsFile(const std::string& path) {
  const std::string where = std::string("--") + kStableDelegateSettingsFlag + "=" + path;
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInputError(where + ": cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return InvalidInputError(where + ": cannot read the file");
  return ParseTfliteSettingsJson(text.str(), where);
}

StatusOr<TfLiteDelegatePtr> LoadStableDelegate(const TfliteSettings& settings, const std::string& where,
                                               StableDelegateInfo* info) {
  if (settings.delegate_path.empty()) {
    return InvalidInputError(where + ": stable_delegate_loader_settings.delegate_path is missing");
  }
  const std::string& path = settings.delegate_path;
  // As TFLite's loader: the delegate may look for files beside itself through this variable.
  const size_t slash = path.rfind('/');
  setenv("TFLITE_STABLE_DELEGATE_LIBRARY_PATH", slash == std::string::npos ? "" : path.substr(0, slash).c_str(), 1);
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return ExecutionError(where + ": delegate_path " + path +
                          " does not load: " + OneLine(why != nullptr ? why : "unknown error"));
  }
  const auto* stable = static_cast<const TfLiteStableDelegate*>(dlsym(handle, TFL_STABLE_DELEGATE_SYMBOL));
  if (stable == nullptr) {
    dlclose(handle);
    return ExecutionError(where + ": " + path + " is not a stable delegate (it does not export " +
                          TFL_STABLE_DELEGATE_SYMBOL + ")");
  }
  const std::string abi = stable->delegate_abi_version != nullptr ? stable->delegate_abi_version : "";
  if (info != nullptr) {
    info->abi_version = abi;
    info->name = stable->delegate_name != nullptr ? stable->delegate_name : "";
    info->version = stable->delegate_version != nullptr ? stable->delegate_version : "";
  }
  if (abi != TFL_STABLE_DELEGATE_ABI_VERSION) {
    dlclose(handle);
    return ExecutionError(where + ": " + path + " has stable delegate ABI version '" + abi +
                          "'; Touchstone supports " TFL_STABLE_DELEGATE_ABI_VERSION " only");
  }
  const TfLiteOpaqueDelegatePlugin* plugin = stable->delegate_plugin;
  if (plugin == nullptr || plugin->create == nullptr || plugin->destroy == nullptr) {
    dlclose(handle);
    return ExecutionError(where + ": " + path + ": TFL_TheStableDelegate has no plugin (create, destroy)");
  }
  // The plugin may read the table without a NULL check (TFLite's XNNPACK does): always pass one, and
  // keep it alive as long as the delegate.
  auto kept = std::make_shared<TfliteSettings>(settings);
  TfLiteDelegate* delegate = plugin->create(kept->table());
  if (delegate == nullptr) {
    return ExecutionError(where + ": " + path + " (" + (info != nullptr ? info->name : std::string()) +
                          ") created no delegate");
  }
  // The object stays loaded (TFLite never closes it): a delegate's threads or static destructors may
  // outlive destroy().
  TfLiteOpaqueDelegatePluginDestroyFunc* destroy = plugin->destroy;
  return TfLiteDelegatePtr(delegate, [destroy, kept](TfLiteDelegate* d) { destroy(d); });
}

DelegateProvider StableDelegateProvider() {
  DelegateProvider provider = StableProviderDeclaration();
  provider.create = [](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    const std::string path = params.GetString(kStableDelegateSettingsFlag);
    if (path.empty()) return TfLiteDelegatePtr(nullptr, [](TfLiteDelegate*) {});
    TS_ASSIGN_OR_RETURN(TfliteSettings settings, ReadTfliteSettingsFile(path));
    return LoadStableDelegate(settings, std::string("--") + kStableDelegateSettingsFlag + "=" + path, nullptr);
  };
  return provider;
}

}  // namespace touchstone
