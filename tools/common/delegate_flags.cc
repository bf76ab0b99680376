#include "tools/common/delegate_flags.h"

#include <utility>

#include <fmt/format.h>

namespace touchstone {
namespace {

constexpr char kExternalPathFlag[] = "external_delegate_path";

std::string ProviderLabel(const std::string& provider, const ProviderParams& params) {
  if (provider != "EXTERNAL") return provider;
  const std::string path = params.GetString(kExternalPathFlag);
  if (path.empty()) return provider;
  const size_t slash = path.find_last_of('/');
  return provider + " (" + (slash == std::string::npos ? path : path.substr(slash + 1)) + ")";
}

// A provider flag's declared bounds, on its table entry.
void Bound(const ProviderFlag& flag, FlagTable::Limits limits) {
  if (flag.min.has_value()) limits.AtLeast(*flag.min);
  if (flag.max.has_value()) limits.AtMost(*flag.max);
}

}  // namespace

DelegateFlagGroup::DelegateFlagGroup(const std::vector<DelegateProvider>& providers)
    : providers_(providers), params_(DefaultParams(providers)) {}

void DelegateFlagGroup::AddTo(FlagTable* table) {
  for (const DelegateProvider& provider : providers_) {
    if (provider.flags.empty()) continue;
    table->AddGroup("Delegate provider " + provider.name + " (" + provider.description + ")");
    for (const ProviderFlag& flag : provider.flags) {
      ProviderParams::Value* value = params_.Mutable(flag.name);
      switch (flag.type) {
        case ProviderFlag::Type::kBool:
          table->AddBool(flag.name, &value->b, flag.help);
          break;
        case ProviderFlag::Type::kInt:
          Bound(flag, table->AddInt(flag.name, &value->i, flag.help));
          break;
        case ProviderFlag::Type::kFloat:
          Bound(flag, table->AddFloat(flag.name, &value->f, flag.help));
          break;
        case ProviderFlag::Type::kString: {
          FlagTable::Limits limits = table->AddString(flag.name, &value->s, flag.help);
          if (!flag.choices.empty()) limits.OneOf(flag.choices);
          break;
        }
      }
    }
  }
  isolation_.AddTo(table);
  table->AddGroup("Memory limit");
  table
      ->AddInt("max_tensor_memory_mb", &max_tensor_memory_mb_,
               "refuse a model whose tensors (arena plus dynamic) would need more than this many MiB, with "
               "the number it asked for (exit code 3), instead of running out of memory")
      .AtLeast(1);
  table->AddGroup("Operator versions");
  table->AddBool("allow_newer_op_versions", &allow_newer_op_versions_,
                 "run an operator version newer than TensorFlow Lite 2.14.1 registers with its highest kernel, "
                 "after a warning, instead of refusing the model at load as TFLite does");
}

std::string DelegateFlagGroup::RequestedDelegates(const FlagTable& table) const {
  std::string names;
  for (const DelegateProvider& provider : providers_) {
    if (provider.enabling_flag.empty() || !params_.Has(provider.enabling_flag) ||
        table.Position(provider.enabling_flag) == 0) {
      continue;
    }
    const bool on = params_.GetBool(provider.enabling_flag) || !params_.GetString(provider.enabling_flag).empty() ||
                    params_.GetInt(provider.enabling_flag) != 0;
    if (on) names += (names.empty() ? "" : ", ") + ProviderLabel(provider.name, params_);
  }
  return names;
}

std::string DelegateFlagGroup::ValueText(const std::string& name) const {
  for (const DelegateProvider& provider : providers_) {
    for (const ProviderFlag& f : provider.flags) {
      if (f.name != name) continue;
      switch (f.type) {
        case ProviderFlag::Type::kBool:
          return params_.GetBool(name) ? "1" : "0";
        case ProviderFlag::Type::kInt:
          return std::to_string(params_.GetInt(name));
        case ProviderFlag::Type::kFloat:
          return fmt::format("{:g}", params_.GetFloat(name));
        case ProviderFlag::Type::kString:
          return params_.GetString(name);
      }
    }
  }
  return "";
}

bool DelegateFlagGroup::ReducedPrecision(const std::vector<ProvidedDelegate>& delegates) const {
  for (const ProvidedDelegate& d : delegates) {
    for (const DelegateProvider& p : providers_) {
      if (p.name == d.provider && d.delegate && p.reduced_precision && p.reduced_precision(params_)) return true;
    }
  }
  return false;
}

std::vector<std::pair<std::string, std::string>> DelegateFlagGroup::DelegateOptions(const std::string& provider) const {
  std::vector<std::pair<std::string, std::string>> options;
  for (const DelegateProvider& p : providers_) {
    if (p.name != provider) continue;
    for (const ProviderFlag& f : p.flags) {
      if (f.name == p.enabling_flag && f.type == ProviderFlag::Type::kBool) continue;
      bool is_default = false;
      switch (f.type) {
        case ProviderFlag::Type::kBool:
          is_default = params_.GetBool(f.name) == f.default_bool;
          break;
        case ProviderFlag::Type::kInt:
          is_default = params_.GetInt(f.name) == f.default_int;
          break;
        case ProviderFlag::Type::kFloat:
          is_default = params_.GetFloat(f.name) == f.default_float;
          break;
        case ProviderFlag::Type::kString:
          is_default = params_.GetString(f.name) == f.default_string;
          break;
      }
      if (!is_default) options.emplace_back(f.name, ValueText(f.name));
    }
  }
  return options;
}

int DelegateFlagGroup::RunIsolated(const FlagTable& table, const std::function<int()>& work) const {
  return touchstone::RunIsolated(isolation_, table, RequestedDelegates(table), work);
}

std::string RegisteredDelegateNames() {
  std::string names;
  for (const std::string& name : DelegateNames(RegisteredDelegateProviders())) {
    names += (names.empty() ? "" : "|") + name;
  }
  return names.empty() ? "none built" : names;
}

std::string DescribeDelegates(const std::vector<ProvidedDelegate>& delegates, const ProviderParams& params) {
  std::string names;
  for (const ProvidedDelegate& d : delegates) {
    if (d.delegate) names += (names.empty() ? "" : ", ") + ProviderLabel(d.provider, params);
  }
  return names;
}

StatusOr<std::vector<ProvidedDelegate>> NoteCreatedDelegates(StatusOr<std::vector<ProvidedDelegate>> delegates,
                                                             const ProviderParams& params) {
  if (delegates.ok()) NoteDelegatesToParent(DescribeDelegates(delegates.value(), params));
  return delegates;
}

StatusOr<std::vector<ProvidedDelegate>> DelegateFlagGroup::CreateDelegates(const FlagTable& table,
                                                                           const DelegateRequest& request) const {
  // A copy: what --delegate=<name> enables is this run's, not the parsed flags' (RequestedDelegates and
  // DelegateOptions report what the command line gave).
  ProviderParams params = params_;
  for (const DelegateProvider& provider : providers_) {
    for (const ProviderFlag& flag : provider.flags) {
      if (ProviderParams::Value* value = params.Mutable(flag.name)) value->position = table.Position(flag.name);
    }
  }
  if (!request.by_name.empty()) {
    TS_RETURN_IF_ERROR(EnableDelegateByName(providers_, request.by_name, table.Position("delegate"), &params));
  }
  params.num_threads = request.num_threads;
  if (request.use_reference_kernels.has_value()) DeclareCpuKernels(*request.use_reference_kernels, &params);
  return NoteCreatedDelegates(touchstone::CreateDelegates(providers_, params), params);
}

}  // namespace touchstone
