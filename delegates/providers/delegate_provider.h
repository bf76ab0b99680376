// The delegate-provider registry: one entry per delegate, declaring its command-line flags (name, type,
// default, help) and turning their parsed values into a delegate, or into nothing when the provider is
// not enabled. Every binary takes its delegate flags from here (tools/common/delegate_flags.h binds them
// to the flag table), --help lists them, and a new delegate joins with one registration line in
// registry.cc; the binaries do not change.
//
// Delegates are created in the order their enabling flags appear on the command line
// (--use_sample_delegate, --external_delegate_path, ...), as TFLite's tools rank them, and applied in
// that order.
#ifndef TOUCHSTONE_DELEGATES_PROVIDERS_DELEGATE_PROVIDER_H_
#define TOUCHSTONE_DELEGATES_PROVIDERS_DELEGATE_PROVIDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/status.h"

namespace touchstone {

// A delegate and the function that frees it (a plugin's destroy function, DeleteSimpleDelegate, ...).
using TfLiteDelegatePtr = std::unique_ptr<TfLiteDelegate, std::function<void(TfLiteDelegate*)>>;

// One flag of a provider.
struct ProviderFlag {
  enum class Type { kBool, kInt, kFloat, kString };
  std::string name;
  Type type = Type::kBool;
  bool default_bool = false;
  int32_t default_int = 0;
  float default_float = 0.0f;
  std::string default_string;
  std::string help;
  // The values the flag takes, which the tools' flag table enforces and --help shows (FlagTable::Limits
  // in tools/common/flags.h): inclusive bounds for kInt and kFloat, the choices for kString. A provider
  // may take its params as within them.
  std::optional<double> min, max;
  std::vector<std::string> choices;

  static ProviderFlag Bool(std::string name, bool default_value, std::string help);
  static ProviderFlag Int(std::string name, int32_t default_value, std::string help);
  static ProviderFlag Float(std::string name, float default_value, std::string help);
  static ProviderFlag String(std::string name, std::string default_value, std::string help);
  // The same flag with those limits: ProviderFlag::Int("gpu_device_index", -1, "...").AtLeast(-1).
  ProviderFlag AtLeast(double bound) const;
  ProviderFlag AtMost(double bound) const;
  ProviderFlag OneOf(std::vector<std::string> values) const;
};

// The values of every provider's flags (defaults until set), and where on the command line each was
// given. Values live at stable addresses, so a flag parser may write into them directly.
class ProviderParams {
 public:
  struct Value {
    ProviderFlag::Type type = ProviderFlag::Type::kBool;
    bool b = false;
    int32_t i = 0;
    float f = 0.0f;
    std::string s;
    int position = 0;  // 1-based position among the flags given; 0: not given
  };

  // Adds a flag at its default value (again: no change).
  void Declare(const ProviderFlag& flag);
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  // Getters of undeclared names or of another type return false / 0 / "".
  bool GetBool(const std::string& name) const;
  int32_t GetInt(const std::string& name) const;
  float GetFloat(const std::string& name) const;
  std::string GetString(const std::string& name) const;
  // 1-based position of the flag among those given on the command line; 0 when not given.
  int Position(const std::string& name) const;

  // For flag parsers and tests. Null for undeclared names.
  Value* Mutable(const std::string& name);
  void SetBool(const std::string& name, bool v, int position = 0);
  void SetInt(const std::string& name, int32_t v, int position = 0);
  void SetString(const std::string& name, const std::string& v, int position = 0);

  // Threads the tool runs the CPU kernels with (its --num_threads); delegates may use it.
  int num_threads = 1;

 private:
  std::map<std::string, Value> values_;
};

struct DelegateProvider {
  // Upper case, as TFLite prints it: "Explicitly applied EXTERNAL delegate, ...".
  std::string name;
  // One line for --help.
  std::string description;
  std::vector<ProviderFlag> flags;
  // The flag whose command-line position orders this provider's delegate among the others; empty for
  // providers that only hold shared flags and create nothing.
  std::string enabling_flag;
  // The delegate for these values, or a null one when the provider is not enabled. Errors: kUsage for
  // bad flag values, kInvalidInput for an unreadable plugin file, kExecution for a delegate that fails
  // to come up.
  std::function<StatusOr<TfLiteDelegatePtr>(const ProviderParams&)> create;
  // Whether the delegate these values make may compute float32 tensors in float16 (inference_diff
  // --qualify then allows float16's error); empty: never.
  std::function<bool(const ProviderParams&)> reduced_precision;
};

// `text` with its line breaks turned into spaces and trailing spaces dropped: a plugin's or parser's
// message inside a one-line error.
std::string OneLine(std::string text);

// A provider's declaration (name, --help line, flags, enabling flag) without its create function, which
// the delegate's own library adds; a build that leaves the delegate out passes it to UnavailableProvider.
DelegateProvider DeclareProvider(std::string name, std::string description, std::vector<ProviderFlag> flags,
                                 std::string enabling_flag = "");

// A provider this build leaves out (a static build cannot load XNNPACK's shared library, Vulkan or
// plugins): the same name and flags, so the tools still parse them and list them in --help, and a create
// that refuses the enabling flag by name with `reason` (kUsage) when the command line turns it on. Its
// other flags, given alone, get a warning that they are ignored. Applied-by-default stays off silently.
DelegateProvider UnavailableProvider(DelegateProvider declaration, const std::string& reason);

// The tool's --use_reference_kernels as providers see it: a bool parameter of this name, declared by
// the tools that run a CPU interpreter of their choice (benchmark_model, imagenet_eval, coco_eval). A
// delegate TFLite applies by default (XNNPACK) is applied by default only where it is declared and
// false: never over the reference kernels, and not from tools that do not say.
constexpr char kUseReferenceKernelsParam[] = "use_reference_kernels";
void DeclareCpuKernels(bool use_reference_kernels, ProviderParams* params);

// A created delegate, and which provider made it.
struct ProvidedDelegate {
  std::string provider;  // DelegateProvider::name
  TfLiteDelegatePtr delegate;
  int position = 0;  // of the enabling flag; 0: applied by default (not named on the command line)
};

// Every provider's flags, declared at their defaults.
ProviderParams DefaultParams(const std::vector<DelegateProvider>& providers);

// TFLite's --delegate=<name> ("xnnpack", "gpu", "sample", ...): the provider whose name matches `name`
// case-insensitively and whose enabling flag is a bool (a provider enabled by a path, like EXTERNAL, has
// no name here). Null when there is none.
const DelegateProvider* FindProviderByDelegateName(const std::vector<DelegateProvider>& providers,
                                                   const std::string& name);
// The names --delegate accepts among `providers`: lower case, in registration order.
std::vector<std::string> DelegateNames(const std::vector<DelegateProvider>& providers);
// Sets the enabling flag of the provider --delegate=<name> names in *params, as if that flag had been
// given at command-line `position` (the earlier position wins when both were given). An unknown name is
// a usage error naming it and listing the names accepted.
Status EnableDelegateByName(const std::vector<DelegateProvider>& providers, const std::string& name, int position,
                            ProviderParams* params);

// Runs every provider's factory and returns the delegates made, ordered by the position of their
// enabling flags (ties keep registration order); delegates applied by default (position 0) come after
// the ones named, as TFLite applies its default delegate last. The first error stops it.
StatusOr<std::vector<ProvidedDelegate>> CreateDelegates(const std::vector<DelegateProvider>& providers,
                                                        const ProviderParams& params);

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_PROVIDERS_DELEGATE_PROVIDER_H_
