#include "tools/common/delegate_flags.h"

namespace touchstone {

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
          table->AddInt(flag.name, &value->i, flag.help);
          break;
        case ProviderFlag::Type::kFloat:
          table->AddFloat(flag.name, &value->f, flag.help);
          break;
        case ProviderFlag::Type::kString:
          table->AddString(flag.name, &value->s, flag.help);
          break;
      }
    }
  }
}

StatusOr<std::vector<ProvidedDelegate>> DelegateFlagGroup::CreateDelegates(const FlagTable& table,
                                                                           int num_threads) {
  for (const DelegateProvider& provider : providers_) {
    for (const ProviderFlag& flag : provider.flags) {
      params_.Mutable(flag.name)->position = table.Position(flag.name);
    }
  }
  params_.num_threads = num_threads;
  return touchstone::CreateDelegates(providers_, params_);
}

StatusOr<std::vector<ProvidedDelegate>> DelegateFlagGroup::CreateDelegates(const FlagTable& table, int num_threads,
                                                                           bool use_reference_kernels) {
  DeclareCpuKernels(use_reference_kernels, &params_);
  return CreateDelegates(table, num_threads);
}

}  // namespace touchstone
