#include "delegates/providers/delegate_provider.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "runtime/logging.h"

namespace touchstone {

namespace {

ProviderFlag Flag(std::string name, ProviderFlag::Type type, std::string help) {
  ProviderFlag f;
  f.name = std::move(name);
  f.type = type;
  f.help = std::move(help);
  return f;
}

}  // namespace

ProviderFlag ProviderFlag::Bool(std::string name, bool default_value, std::string help) {
  ProviderFlag f = Flag(std::move(name), Type::kBool, std::move(help));
  f.default_bool = default_value;
  return f;
}

ProviderFlag ProviderFlag::Int(std::string name, int32_t default_value, std::string help) {
  ProviderFlag f = Flag(std::move(name), Type::kInt, std::move(help));
  f.default_int = default_value;
  return f;
}

ProviderFlag ProviderFlag::Float(std::string name, float default_value, std::string help) {
  ProviderFlag f = Flag(std::move(name), Type::kFloat, std::move(help));
  f.default_float = default_value;
  return f;
}

ProviderFlag ProviderFlag::String(std::string name, std::string default_value, std::string help) {
  ProviderFlag f = Flag(std::move(name), Type::kString, std::move(help));
  f.default_string = std::move(default_value);
  return f;
}

ProviderFlag ProviderFlag::AtLeast(double bound) const {
  ProviderFlag f = *this;
  f.min = bound;
  return f;
}

ProviderFlag ProviderFlag::AtMost(double bound) const {
  ProviderFlag f = *this;
  f.max = bound;
  return f;
}

ProviderFlag ProviderFlag::OneOf(std::vector<std::string> values) const {
  ProviderFlag f = *this;
  f.choices = std::move(values);
  return f;
}

void ProviderParams::Declare(const ProviderFlag& flag) {
  if (values_.count(flag.name) != 0) return;
  Value v;
  v.type = flag.type;
  v.b = flag.default_bool;
  v.i = flag.default_int;
  v.f = flag.default_float;
  v.s = flag.default_string;
  values_[flag.name] = v;
}

bool ProviderParams::GetBool(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.type == ProviderFlag::Type::kBool && it->second.b;
}

int32_t ProviderParams::GetInt(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.type == ProviderFlag::Type::kInt ? it->second.i : 0;
}

float ProviderParams::GetFloat(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.type == ProviderFlag::Type::kFloat ? it->second.f : 0.0f;
}

std::string ProviderParams::GetString(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.type == ProviderFlag::Type::kString ? it->second.s : "";
}

int ProviderParams::Position(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() ? it->second.position : 0;
}

ProviderParams::Value* ProviderParams::Mutable(const std::string& name) {
  auto it = values_.find(name);
  return it != values_.end() ? &it->second : nullptr;
}

void ProviderParams::SetBool(const std::string& name, bool v, int position) {
  if (Value* value = Mutable(name)) {
    value->b = v;
    value->position = position;
  }
}

void ProviderParams::SetInt(const std::string& name, int32_t v, int position) {
  if (Value* value = Mutable(name)) {
    value->i = v;
    value->position = position;
  }
}

void ProviderParams::SetString(const std::string& name, const std::string& v, int position) {
  if (Value* value = Mutable(name)) {
    value->s = v;
    value->position = position;
  }
}

ProviderParams DefaultParams(const std::vector<DelegateProvider>& providers) {
  ProviderParams params;
  for (const DelegateProvider& provider : providers) {
    for (const ProviderFlag& flag : provider.flags) params.Declare(flag);
  }
  return params;
}

namespace {

bool EnabledByBool(const DelegateProvider& provider) {
  if (provider.enabling_flag.empty()) return false;
  for (const ProviderFlag& flag : provider.flags) {
    if (flag.name == provider.enabling_flag) return flag.type == ProviderFlag::Type::kBool;
  }
  return false;
}

}  // namespace

const DelegateProvider* FindProviderByDelegateName(const std::vector<DelegateProvider>& providers,
                                                   const std::string& name) {
  for (const DelegateProvider& provider : providers) {
    if (EnabledByBool(provider) && absl::EqualsIgnoreCase(provider.name, name)) return &provider;
  }
  return nullptr;
}

std::vector<std::string> DelegateNames(const std::vector<DelegateProvider>& providers) {
  std::vector<std::string> names;
  for (const DelegateProvider& provider : providers) {
    if (EnabledByBool(provider)) names.push_back(absl::AsciiStrToLower(provider.name));
  }
  return names;
}

Status EnableDelegateByName(const std::vector<DelegateProvider>& providers, const std::string& name, int position,
                            ProviderParams* params) {
  const DelegateProvider* provider = FindProviderByDelegateName(providers, name);
  if (provider == nullptr) {
    std::string known;
    for (const std::string& n : DelegateNames(providers)) known += (known.empty() ? "" : ", ") + n;
    return UsageError("--delegate=" + name + ": no such delegate in this build (available: " +
                      (known.empty() ? "none" : known) + "; a plugin is loaded with --external_delegate_path)");
  }
  ProviderParams::Value* value = params->Mutable(provider->enabling_flag);
  if (value == nullptr)
    return UsageError("--delegate=" + name + ": its flag --" + provider->enabling_flag + " is not declared");
  const int earlier = value->b && value->position > 0 ? std::min(value->position, position) : position;
  value->b = true;
  value->position = earlier;
  return Status::Ok();
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

DelegateProvider DeclareProvider(std::string name, std::string description, std::vector<ProviderFlag> flags,
                                 std::string enabling_flag) {
  DelegateProvider provider;
  provider.name = std::move(name);
  provider.description = std::move(description);
  provider.flags = std::move(flags);
  provider.enabling_flag = std::move(enabling_flag);
  return provider;
}

DelegateProvider UnavailableProvider(DelegateProvider declaration, const std::string& reason) {
  DelegateProvider provider = std::move(declaration);
  provider.description += " (not in this build: " + reason + ")";
  provider.reduced_precision = nullptr;
  const std::string enabling = provider.enabling_flag;
  std::vector<std::string> others;
  for (const ProviderFlag& flag : provider.flags) {
    if (flag.name != enabling) others.push_back(flag.name);
  }
  const std::string name = provider.name;
  provider.create = [enabling, others, name, reason](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    TfLiteDelegatePtr none(nullptr, [](TfLiteDelegate*) {});
    if (!enabling.empty() && params.Position(enabling) > 0) {
      const bool turned_on = params.GetBool(enabling) || !params.GetString(enabling).empty();
      if (turned_on)
        return UsageError("--" + enabling + ": the " + name + " delegate is not in this build (" + reason + ")");
    }
    for (const std::string& flag : others) {
      if (params.Position(flag) > 0) {
        LogWarning("--{}: ignored, the {} delegate is not in this build", flag, name);
      }
    }
    return none;
  };
  return provider;
}

void DeclareCpuKernels(bool use_reference_kernels, ProviderParams* params) {
  params->Declare(ProviderFlag::Bool(kUseReferenceKernelsParam, false, "the tool's --use_reference_kernels"));
  params->SetBool(kUseReferenceKernelsParam, use_reference_kernels);
}

StatusOr<std::vector<ProvidedDelegate>> CreateDelegates(const std::vector<DelegateProvider>& providers,
                                                        const ProviderParams& params) {
  std::vector<ProvidedDelegate> created;
  for (const DelegateProvider& provider : providers) {
    if (!provider.create) continue;
    TS_ASSIGN_OR_RETURN(TfLiteDelegatePtr delegate, provider.create(params));
    if (delegate == nullptr) continue;
    ProvidedDelegate entry;
    entry.provider = provider.name;
    entry.delegate = std::move(delegate);
    entry.position = provider.enabling_flag.empty() ? 0 : params.Position(provider.enabling_flag);
    created.push_back(std::move(entry));
  }
  // Delegates applied by default (position 0) go after the ones the command line names.
  auto rank = [](const ProvidedDelegate& d) { return d.position > 0 ? d.position : INT_MAX; };
  std::stable_sort(created.begin(), created.end(),
                   [&](const ProvidedDelegate& a, const ProvidedDelegate& b) { return rank(a) < rank(b); });
  return StatusOr<std::vector<ProvidedDelegate>>(std::move(created));
}

}  // namespace touchstone
