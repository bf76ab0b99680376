// What the evaluation pipelines (imagenet_eval's, coco_eval's) share: the hooks through which a tool
// supplies what only it knows, what they say of the delegates they applied, and how they print lines.
#ifndef TOUCHSTONE_EVALUATION_EVAL_HOOKS_H_
#define TOUCHSTONE_EVALUATION_EVAL_HOOKS_H_

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "delegates/providers/apply_delegates.h"
#include "delegates/providers/delegate_provider.h"
#include "evaluation/report_envelope.h"
#include "runtime/status.h"

namespace touchstone {

// What the tool supplies, so the pipelines depend on nothing in tools/.
struct EvalHooks {
  // The delegates, created once the options are checked and before any interpreter exists.
  std::function<StatusOr<std::vector<ProvidedDelegate>>()> create_delegates;
  // Completes the report's envelope with the tool's version and command line; may be empty.
  std::function<void(ReportEnvelope*)> complete_envelope;
  // Makes the progress(done, total) callback, just before the images are evaluated; may be empty.
  std::function<std::function<void(int, int)>()> make_progress;
};

// Prints what became of each delegate: TFLite's line on stdout for an applied one, a warning on stderr
// for one that fell back to the CPU kernels (when the run goes on).
void PrintDelegateOutcomes(const std::vector<DelegateOutcome>& outcomes, bool run_goes_on);

// The envelope's record of each outcome (ReportEnvelope::config.delegates).
std::vector<ReportedDelegate> ReportedDelegates(const std::vector<DelegateOutcome>& outcomes);

// One line on stdout, flushed (a progress line on stderr may follow it).
void PrintLine(const std::string& line);

// TFLite run_eval's first lines, read from an evaluation report: "Num evaluation runs: N", then the
// preprocessing and inference latencies as TFLite streams them (avg: six significant digits of a double;
// std_dev: whole microseconds).
void PrintTfliteLatencyLines(const nlohmann::json& report);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_EVAL_HOOKS_H_
