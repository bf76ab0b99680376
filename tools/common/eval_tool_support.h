// What the evaluation tools (imagenet_eval, coco_eval) share beyond tools/common: the progress display
// and TFLite's --delegate=<name> on top of the delegate-provider flags.
#ifndef TOUCHSTONE_TOOLS_COMMON_EVAL_TOOL_SUPPORT_H_
#define TOUCHSTONE_TOOLS_COMMON_EVAL_TOOL_SUPPORT_H_

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "delegates/providers/apply_delegates.h"
#include "delegates/providers/delegate_provider.h"
#include "runtime/status.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"

namespace touchstone {

// progress(done, total) for a pipeline: on a terminal (stdout and stderr) a bar redrawn in place on
// stderr with images/s and the time left; otherwise, as into a CI log, a line on stdout at most every
// 10 s ("evaluated images: 500 in 10.0 s (of 2000, 49.8 images/s)"; tools/common/tool_report.h).
std::function<void(int, int)> MakeProgress();

// The delegates the command line asks for: the registry's flags (bound through `group`) plus TFLite's
// --delegate=<name>, which enables the provider of that name as if its own flag stood where --delegate
// stands. "" (TFLite's default) adds nothing. An unknown name is a usage error listing the names.
// `use_reference_kernels` (the tool's flag) keeps delegates applied by default (XNNPACK) off over the
// reference kernels.
StatusOr<std::vector<ProvidedDelegate>> CreateDelegatesWithName(const FlagTable& table, const DelegateFlagGroup& group,
                                                                const std::string& delegate_name, int num_threads,
                                                                bool use_reference_kernels);

// --delegate's help: the names this build's registry accepts.
std::string DelegateFlagHelp();

// Fails early (kUsage, as WriteFileAtomically would at the end) when `path` cannot be written: a long
// evaluation should not run only to lose its report. Creates and removes a temporary file beside it.
Status CheckOutputFileWritable(const std::string& path, const std::string& flag);

// Prints what became of each delegate: TFLite's line on stdout for an applied one, a warning on stderr
// for one that fell back to the CPU kernels (when the run goes on).
void PrintDelegateOutcomes(const std::vector<DelegateOutcome>& outcomes, bool run_goes_on);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_EVAL_TOOL_SUPPORT_H_
