#include "delegates/external/external_delegate.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <mutex>
#include <set>

#include "runtime/logging.h"

namespace touchstone {
namespace {

using CreateFn = TfLiteDelegate* (*)(const char* const*, const char* const*, size_t, void (*)(const char*));
using DestroyFn = void (*)(TfLiteDelegate*);

constexpr char kCreateSymbol[] = "tflite_plugin_create_delegate";
constexpr char kDestroySymbol[] = "tflite_plugin_destroy_delegate";

// report_error carries no context pointer: messages reported while a plugin creates its delegate are
// collected here (under the lock) and put into the error; later ones are printed as warnings.
std::mutex g_report_mutex;
std::string* g_report_sink = nullptr;

void ReportError(const char* message) {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  const std::string text = message != nullptr ? message : "";
  if (g_report_sink != nullptr) {
    if (!g_report_sink->empty()) *g_report_sink += "; ";
    *g_report_sink += text;
  } else {
    LogWarning("external delegate reported: {}", text);
  }
}

}  // namespace

StatusOr<ExternalDelegateOptions> ParseExternalDelegateOptions(const std::string& text) {
  ExternalDelegateOptions options;
  std::set<std::string> keys;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string::npos) {
      return UsageError("--external_delegate_options: item '" + item + "' is not key:value");
    }
    const std::string key = item.substr(0, colon);
    if (key.empty()) return UsageError("--external_delegate_options: item '" + item + "' has an empty key");
    if (!keys.insert(key).second) {
      return UsageError("--external_delegate_options: key '" + key + "' is given twice");
    }
    options.emplace_back(key, item.substr(colon + 1));
  }
  return options;
}

StatusOr<TfLiteDelegatePtr> LoadExternalDelegate(const std::string& path, const ExternalDelegateOptions& options) {
  const std::string where = "--external_delegate_path=" + path;
  if (path.find('/') != std::string::npos) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return InvalidInputError(where + ": no such file");
    if (!S_ISREG(st.st_mode)) return InvalidInputError(where + ": not a regular file");
  }
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return InvalidInputError(where + ": cannot load: " + OneLine(why != nullptr ? why : "unknown error"));
  }
  auto create = reinterpret_cast<CreateFn>(dlsym(handle, kCreateSymbol));
  auto destroy = reinterpret_cast<DestroyFn>(dlsym(handle, kDestroySymbol));
  if (create == nullptr || destroy == nullptr) {
    dlclose(handle);
    return InvalidInputError(where + ": not a TFLite delegate plugin (it does not export " +
                             (create == nullptr ? kCreateSymbol : kDestroySymbol) + ")");
  }
  std::vector<const char*> keys, values;
  for (const auto& option : options) {
    keys.push_back(option.first.c_str());
    values.push_back(option.second.c_str());
  }
  std::string reported;
  TfLiteDelegate* delegate = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_report_mutex);
    g_report_sink = &reported;
  }
  delegate = create(keys.data(), values.data(), keys.size(), ReportError);
  {
    std::lock_guard<std::mutex> lock(g_report_mutex);
    g_report_sink = nullptr;
  }
  if (delegate == nullptr) {
    dlclose(handle);
    std::string message = where + ": the plugin created no delegate";
    if (!reported.empty()) message += ": " + OneLine(reported);
    return ExecutionError(message);
  }
  if (!reported.empty()) LogWarning("external delegate reported: {}", OneLine(reported));
  return TfLiteDelegatePtr(delegate, [handle, destroy](TfLiteDelegate* d) {
    destroy(d);
    dlclose(handle);
  });
}

DelegateProvider ExternalDelegateProvider() {
  DelegateProvider provider = ExternalProviderDeclaration();
  provider.create = [](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    const std::string path = params.GetString("external_delegate_path");
    const std::string text = params.GetString("external_delegate_options");
    TS_ASSIGN_OR_RETURN(ExternalDelegateOptions options, ParseExternalDelegateOptions(text));
    if (path.empty()) {
      if (!text.empty()) return UsageError("--external_delegate_options needs --external_delegate_path");
      return TfLiteDelegatePtr(nullptr, [](TfLiteDelegate*) {});
    }
    return LoadExternalDelegate(path, options);
  };
  return provider;
}

}  // namespace touchstone
