// The delegate flag group every binary shares: binds each registered delegate provider's flags
// (delegates/providers/registry.h) into a tool's FlagTable, under one --help heading per provider, and
// after parsing creates the delegates in the order their enabling flags appear on the command line. The
// group also carries the delegate isolation flags (tools/common/isolation.h), so every tool that takes
// delegates has them.
#ifndef TOUCHSTONE_TOOLS_COMMON_DELEGATE_FLAGS_H_
#define TOUCHSTONE_TOOLS_COMMON_DELEGATE_FLAGS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "delegates/providers/delegate_provider.h"
#include "delegates/providers/registry.h"
#include "runtime/status.h"
#include "tools/common/flags.h"
#include "tools/common/isolation.h"

namespace touchstone {

// What a tool adds to the provider flags when it creates its delegates.
struct DelegateRequest {
  // The tool's CPU thread count, passed on to delegates that use threads.
  int num_threads = 1;
  // TFLite's --delegate=<name>: enables the provider of that name as if its own flag stood where
  // --delegate stands. "" (TFLite's default) adds nothing; an unknown name is a usage error listing the names.
  std::string by_name;
  // Which CPU kernels the tool's interpreter runs, told to the providers (kUseReferenceKernelsParam) so a
  // delegate applied by default (XNNPACK) stays off over the reference kernels. Unset: not told, and
  // such a delegate applies whatever the kernels (inference_diff's test interpreter, as TFLite's).
  std::optional<bool> use_reference_kernels;
};

class DelegateFlagGroup {
 public:
  explicit DelegateFlagGroup(const std::vector<DelegateProvider>& providers = RegisteredDelegateProviders());
  DelegateFlagGroup(const DelegateFlagGroup&) = delete;
  DelegateFlagGroup& operator=(const DelegateFlagGroup&) = delete;

  // Adds every provider's flags, then the isolation flags, to `table` (which must not outlive this group).
  void AddTo(FlagTable* table);
  // After table.Parse: notes where each flag was given, then runs the providers, in the order their
  // enabling flags appear on the command line. The one way every tool turns flags into delegates.
  StatusOr<std::vector<ProvidedDelegate>> CreateDelegates(const FlagTable& table, const DelegateRequest& request) const;

  const ProviderParams& params() const { return params_; }
  // The flags that shape `provider`'s delegate and their values as text (booleans "1"/"0", as TFLite logs
  // them): each of its flags whose value differs from the default, a boolean enabling flag excepted. What
  // a report records of a delegate, and what two runs' delegates are compared by.
  std::vector<std::pair<std::string, std::string>> DelegateOptions(const std::string& provider) const;
  // Whether any of `delegates` may compute float32 in float16 (DelegateProvider::reduced_precision).
  bool ReducedPrecision(const std::vector<ProvidedDelegate>& delegates) const;
  // A provider flag's value as text ("1"/"0" for booleans); "" for a name no provider declares.
  std::string ValueText(const std::string& name) const;
  const IsolationFlags& isolation() const { return isolation_; }
  // --max_tensor_memory_mb in bytes, for InterpreterOptions::max_tensor_bytes: a model whose tensors
  // would need more is refused with the number it asked for, instead of the system killing the tool.
  uint64_t max_tensor_bytes() const { return static_cast<uint64_t>(max_tensor_memory_mb_) << 20; }
  // --allow_newer_op_versions, for InterpreterOptions::allow_newer_op_versions: run an operator version
  // above the highest TensorFlow Lite 2.14.1 registers (a newer converter's model) with the highest
  // kernel, after a warning line, instead of refusing the model as TFLite does (docs/fidelity.md).
  bool allow_newer_op_versions() const { return allow_newer_op_versions_; }

  // The delegates the parsed command line turns on by their providers' enabling flags, given there
  // ("EXTERNAL (libvendor.so), SAMPLE"; not those applied by default); "" for none. For the FAIL line
  // of an isolated run that died before it created its delegates.
  std::string RequestedDelegates(const FlagTable& table) const;
  // Runs the tool's work under the parsed isolation flags (RunIsolated in isolation.h): call it from
  // main after parsing, before any delegate or interpreter exists. Returns the exit code for main.
  int RunIsolated(const FlagTable& table, const std::function<int()>& work) const;

 private:
  std::vector<DelegateProvider> providers_;
  ProviderParams params_;
  IsolationFlags isolation_;
  // Registered here because every tool that takes a model adds this group; 16 GiB as the runtime's default.
  int32_t max_tensor_memory_mb_ = 16384;
  bool allow_newer_op_versions_ = false;
};

// What a --delegate=<name> flag's help lists (DelegateRequest::by_name): the names this build's registry
// accepts, "name|name", or "none built".
std::string RegisteredDelegateNames();

// "EXTERNAL (libvendor.so), XNNPACK": the created delegates' providers, a plugin by its file name.
std::string DescribeDelegates(const std::vector<ProvidedDelegate>& delegates, const ProviderParams& params);
// Tells the parent of an isolated run which delegates were created (NoteDelegatesToParent); returns
// `delegates` unchanged, so a creation call can be wrapped in it.
StatusOr<std::vector<ProvidedDelegate>> NoteCreatedDelegates(StatusOr<std::vector<ProvidedDelegate>> delegates,
                                                             const ProviderParams& params);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_DELEGATE_FLAGS_H_
