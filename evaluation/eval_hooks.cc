#include "evaluation/eval_hooks.h"

#include <cstdint>
#include <iostream>

#include <fmt/format.h>

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
    reported.push_back({o.provider, /*options=*/{}, o.applied, o.delegate_kernels, o.fully_delegated, o.error});
  }
  return reported;
}

void PrintLine(const std::string& line) { std::cout << line << std::endl; }

void PrintTfliteLatencyLines(const nlohmann::json& report) {
  PrintLine(fmt::format("Num evaluation runs: {}", report["num_evaluation_runs"].get<int>()));
  const nlohmann::json& latency = report["latency"];
  PrintLine(fmt::format("Preprocessing latency: avg={:g}(us), std_dev={}(us)",
                        latency["preprocessing"]["tflite"]["avg"].get<double>(),
                        latency["preprocessing"]["tflite"]["std"].get<int64_t>()));
  PrintLine(fmt::format("Inference latency: avg={:g}(us), std_dev={}(us)",
                        latency["inference"]["tflite"]["avg"].get<double>(),
                        latency["inference"]["tflite"]["std"].get<int64_t>()));
}

}  // namespace touchstone
