// The delegate flag group every binary shares: binds each registered delegate provider's flags
// (delegates/providers/registry.h) into a tool's FlagTable, under one --help heading per provider, and
// after parsing creates the delegates in the order their enabling flags appear on the command line.
#ifndef TOUCHSTONE_TOOLS_COMMON_DELEGATE_FLAGS_H_
#define TOUCHSTONE_TOOLS_COMMON_DELEGATE_FLAGS_H_

#include <vector>

#include "delegates/providers/delegate_provider.h"
#include "delegates/providers/registry.h"
#include "runtime/status.h"
#include "tools/common/flags.h"

namespace touchstone {

class DelegateFlagGroup {
 public:
  explicit DelegateFlagGroup(const std::vector<DelegateProvider>& providers = RegisteredDelegateProviders());
  DelegateFlagGroup(const DelegateFlagGroup&) = delete;
  DelegateFlagGroup& operator=(const DelegateFlagGroup&) = delete;

  // Adds every provider's flags to `table` (which must not outlive this group).
  void AddTo(FlagTable* table);
  // After table.Parse: notes where each flag was given, then runs the providers. `num_threads` is the
  // tool's CPU thread count, passed on to delegates that use threads.
  StatusOr<std::vector<ProvidedDelegate>> CreateDelegates(const FlagTable& table, int num_threads);
  // As above, also telling providers which CPU kernels the tool's interpreter runs
  // (kUseReferenceKernelsParam): a delegate applied by default (XNNPACK) stays off over the reference
  // kernels.
  StatusOr<std::vector<ProvidedDelegate>> CreateDelegates(const FlagTable& table, int num_threads,
                                                          bool use_reference_kernels);

  const ProviderParams& params() const { return params_; }

 private:
  std::vector<DelegateProvider> providers_;
  ProviderParams params_;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_DELEGATE_FLAGS_H_
