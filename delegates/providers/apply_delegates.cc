#include "delegates/providers/apply_delegates.h"

#include <utility>

namespace touchstone {
namespace {

// Applies `delegate` and allocates tensors. ModifyGraphWithDelegate has usually allocated them already
// (it prepares the graph for a delegate that does not take dynamic tensors, and again after a
// replacement); a second AllocateTensors would prepare every node once more for nothing.
Status ApplyOne(Interpreter* interpreter, TfLiteDelegate* delegate) {
  TS_RETURN_IF_ERROR(interpreter->ModifyGraphWithDelegate(delegate));
  if (interpreter->primary()->tensors_allocated()) return Status::Ok();
  return interpreter->AllocateTensors();
}

void Count(Interpreter* interpreter, const TfLiteDelegate* delegate, DelegateOutcome* outcome) {
  Subgraph* primary = interpreter->primary();
  outcome->delegate_kernels = 0;
  for (int n : primary->execution_plan()) {
    if (primary->node(n).delegate == delegate) ++outcome->delegate_kernels;
  }
  const std::vector<int>& plan = primary->execution_plan();
  outcome->fully_delegated = plan.size() == 1 && primary->node(plan[0]).delegate == delegate;
}

}  // namespace

std::string DescribeOutcome(const DelegateOutcome& o) {
  if (!o.applied) {
    return "Failed to apply " + o.provider + " delegate; its nodes run on the CPU kernels: " + o.error;
  }
  if (o.fully_delegated) {
    return "Explicitly applied " + o.provider +
           " delegate, and the model graph will be completely executed by the delegate.";
  }
  if (o.delegate_kernels > 0) {
    return "Explicitly applied " + o.provider +
           " delegate, and the model graph will be partially executed by the delegate w/ " +
           std::to_string(o.delegate_kernels) + " delegate kernels.";
  }
  return "Though " + o.provider +
         " delegate is explicitly applied, the model graph will not be executed by the delegate.";
}

StatusOr<std::unique_ptr<Interpreter>> BuildInterpreterWithDelegates(const InterpreterFactory& make_interpreter,
                                                                     const std::vector<ProvidedDelegate>& delegates,
                                                                     const ApplyDelegatesOptions& options,
                                                                     std::vector<DelegateOutcome>* outcomes) {
  outcomes->clear();
  TS_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> interpreter, make_interpreter());
  std::vector<TfLiteDelegate*> accepted;
  for (const ProvidedDelegate& provided : delegates) {
    DelegateOutcome outcome;
    outcome.provider = provided.provider;
    Status status = ApplyOne(interpreter.get(), provided.delegate.get());
    if (!status.ok()) {
      outcome.error = OneLine(status.message());
      outcomes->push_back(outcome);
      if (options.require_full_delegation) {
        return ExecutionError("Disallowed CPU fallback detected (--require_full_delegation): the " + provided.provider +
                              " delegate failed: " + outcome.error);
      }
      // Start again without it: a fresh interpreter with the delegates accepted so far.
      TS_ASSIGN_OR_RETURN(interpreter, make_interpreter());
      for (TfLiteDelegate* d : accepted) {
        Status again = ApplyOne(interpreter.get(), d);
        if (!again.ok()) return again;
      }
      continue;
    }
    accepted.push_back(provided.delegate.get());
    outcome.applied = true;
    Count(interpreter.get(), provided.delegate.get(), &outcome);
    outcomes->push_back(outcome);
    if (options.require_full_delegation && !interpreter->primary()->fully_delegated()) {
      const size_t nodes = interpreter->primary()->execution_plan().size();
      return ExecutionError("Disallowed CPU fallback detected (--require_full_delegation): after the " +
                            provided.provider + " delegate the model runs as " + std::to_string(nodes) + " nodes, " +
                            std::to_string(interpreter->primary()->delegated_node_count()) +
                            " of them delegate kernels");
    }
  }
  if (options.require_full_delegation && delegates.empty()) {
    return ExecutionError("Disallowed CPU fallback detected (--require_full_delegation): no delegate was given");
  }
  if (accepted.empty() || !interpreter->primary()->tensors_allocated()) {
    TS_RETURN_IF_ERROR(interpreter->AllocateTensors());
  }
  return StatusOr<std::unique_ptr<Interpreter>>(std::move(interpreter));
}

}  // namespace touchstone
