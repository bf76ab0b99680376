#include "evaluation/eval_hooks.h"

#include <iostream>

#include "runtime/logging.h"

namespace touchstone {

void PrintDelegateOutcomes(const std::vector<DelegateOutcome>& outcomes, bool run_goes_on) {
  for (const DelegateOutcome& outcome : outcomes) {
    if (outcome.applied) {
      std::cout << DescribeOutcome(outcome) << std::endl;
    } else if (run_goes_on) {
      LogWarning("{}", DescribeOutcome(outcome));
    }
  }
}

std::vector<ReportedDelegate> ReportedDelegates(const std::vector<DelegateOutcome>& outcomes) {
  std::vector<ReportedDelegate> reported;
  for (const DelegateOutcome& o : outcomes) {
    ReportedDelegate d;
    d.provider = o.provider;
    d.applied = o.applied;
    d.delegate_kernels = o.delegate_kernels;
    d.fully_delegated = o.fully_delegated;
    d.error = o.error;
    reported.push_back(d);
  }
  return reported;
}

}  // namespace touchstone
