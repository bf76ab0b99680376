// Applies created delegates to an interpreter, one after another in the given (command-line) order,
// the way every binary does it:
// - each delegate is applied with Interpreter::ModifyGraphWithDelegate and tensors are allocated at
//   once, so the delegate kernels' Init and Prepare run now (TFLite does the same for delegates without
//   dynamic-tensor support);
// - a delegate that fails there is dropped with a warning and its nodes stay on the CPU kernels: the
//   interpreter is rebuilt and the delegates accepted so far are applied again, so the graph is exactly
//   what it would have been without the failing one;
// - with require_full_delegation, a failed delegate, a graph not fully delegated after a delegate, or
//   no delegate at all, is an execution error (exit code 4) instead.
#ifndef TOUCHSTONE_DELEGATES_PROVIDERS_APPLY_DELEGATES_H_
#define TOUCHSTONE_DELEGATES_PROVIDERS_APPLY_DELEGATES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "delegates/providers/delegate_provider.h"
#include "runtime/interpreter.h"
#include "runtime/status.h"

namespace touchstone {

// What became of one delegate.
struct DelegateOutcome {
  std::string provider;          // "SAMPLE", "EXTERNAL", ...
  bool applied = false;          // false: it failed, and the CPU kernels run its nodes
  int delegate_kernels = 0;      // its delegate kernel nodes in the primary subgraph
  bool fully_delegated = false;  // the primary subgraph is one node, a kernel of this delegate
  std::string error;             // why it was not applied (one line)
};

// TFLite's line for an applied delegate ("Explicitly applied SAMPLE delegate, and the model graph will be
// partially executed by the delegate w/ 2 delegate kernels.", "... completely executed by the
// delegate.", "Though SAMPLE delegate is explicitly applied, the model graph will not be executed by
// the delegate."), or the warning for a failed one ("Failed to apply SAMPLE delegate, ...").
std::string DescribeOutcome(const DelegateOutcome& outcome);

// Makes a fresh interpreter (created, input shapes applied, tensors not yet allocated).
using InterpreterFactory = std::function<StatusOr<std::unique_ptr<Interpreter>>()>;

struct ApplyDelegatesOptions {
  bool require_full_delegation = false;
};

// Returns the interpreter with every accepted delegate applied and tensors allocated; *outcomes gets
// one entry per delegate tried (also on error). The delegates must outlive the interpreter.
StatusOr<std::unique_ptr<Interpreter>> BuildInterpreterWithDelegates(const InterpreterFactory& make_interpreter,
                                                                     const std::vector<ProvidedDelegate>& delegates,
                                                                     const ApplyDelegatesOptions& options,
                                                                     std::vector<DelegateOutcome>* outcomes);

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_PROVIDERS_APPLY_DELEGATES_H_
