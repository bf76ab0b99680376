// Maps (builtin code or custom name, version) to a kernel registration; a builtin resolves only at the
// versions TensorFlow Lite 2.14.1 registers. Two built-in kernel sets:
// reference (single-threaded, the golden reference) and optimized (faster; falls back to reference
// for ops it does not specialise). The table in op_resolver.cc is the one list of supported ops.
#ifndef TOUCHSTONE_RUNTIME_OP_RESOLVER_H_
#define TOUCHSTONE_RUNTIME_OP_RESOLVER_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/op_type_rules.h"

namespace touchstone {

enum class KernelSet { kReference, kOptimized };

class OpResolver {
 public:
  virtual ~OpResolver() = default;
  virtual const TfLiteRegistration* FindOp(int builtin_code, int version) const = 0;
  virtual const TfLiteRegistration* FindOp(const char* custom_name, int version) const = 0;
  // The type rules the interpreter checks a builtin node against before its kernel's Prepare
  // (op_type_rules.h); null: the kernel alone decides.
  virtual const OpTypeRules* TypeRules(int builtin_code) const {
    (void)builtin_code;
    return nullptr;
  }
};

class BuiltinOpResolver : public OpResolver {
 public:
  explicit BuiltinOpResolver(KernelSet kernel_set);
  // One resolver per kernel set, built on first use and never freed; nodes keep pointers to its
  // registrations. A builtin's registration, and that of the custom op TFLite's own resolver
  // registers (TFLite_Detection_PostProcess), is fetched on its first FindOp (thread-safe): fetching
  // them up front touches every kernel's code and static data, about 100 us of page faults in a fresh
  // process's Init, for the handful of ops a model uses.
  static const BuiltinOpResolver& Shared(KernelSet kernel_set);
  const TfLiteRegistration* FindOp(int builtin_code, int version) const override;
  const TfLiteRegistration* FindOp(const char* custom_name, int version) const override;
  // TFLite 2.14.1's (TypeRulesFor).
  const OpTypeRules* TypeRules(int builtin_code) const override { return TypeRulesFor(builtin_code); }

  // Adds or replaces a custom op (e.g. a test's, or a tool's).
  void AddCustom(const std::string& name, const TfLiteRegistration* registration);

  // The builtin codes this kernel set implements, ascending (for tests, docs and --help).
  static std::vector<int> SupportedBuiltins();
  // The versions of a builtin op FindOp resolves, TFLite 2.14.1's: {min, max}; {0, 0} when the op is
  // not supported.
  static std::pair<int, int> RegisteredVersions(int builtin_code);
  // The builtin codes KernelSet::kOptimized has a kernel of its own for, ascending (it serves the
  // reference kernel for the others).
  static std::vector<int> OptimizedBuiltins();
  // Whether `registration` is a builtin kernel whose output 0 holds input 0's bytes unchanged
  // (RESHAPE, SQUEEZE, EXPAND_DIMS): the arena may give that output its input's storage, and the
  // kernel's copy then has nothing to do.
  static bool CopiesInputUnchanged(const TfLiteRegistration& registration);
  // The builtin codes of those kernels, ascending.
  static std::vector<int> StorageSharingBuiltins();

 private:
  KernelSet kernel_set_;
  // Indexed by builtin code: flat arrays, so that building a resolver allocates a few times, not per op.
  mutable std::vector<TfLiteRegistration> builtins_;  // filled on first FindOp of the code
  std::unique_ptr<std::atomic<bool>[]> fetched_;      // builtins_[code] is filled
  mutable std::mutex fetch_mutex_;
  std::vector<int> entries_;                           // index into the op table; -1 where no op has the code
  std::vector<std::pair<int, int>> versions_;          // {min, max}; {0, 0} where no op has the code
  std::map<std::string, TfLiteRegistration> customs_;  // node-based: custom_name points into the key
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_OP_RESOLVER_H_
