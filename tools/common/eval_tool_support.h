// What the evaluation tools (imagenet_eval, coco_eval) share beyond tools/common: the progress display,
// the help of TFLite's --delegate=<name> (DelegateRequest::by_name), the pipelines' hooks and the main's
// last steps.
#ifndef TOUCHSTONE_TOOLS_COMMON_EVAL_TOOL_SUPPORT_H_
#define TOUCHSTONE_TOOLS_COMMON_EVAL_TOOL_SUPPORT_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "evaluation/eval_hooks.h"
#include "runtime/status.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"

namespace touchstone {

// progress(done, total) for a pipeline: on a terminal (stdout and stderr) a bar redrawn in place on
// stderr with images/s and the time left; otherwise, as into a CI log, a line on stdout at most every
// 10 s ("evaluated images: 500 in 10.0 s (of 2000, 49.8 images/s)"; tools/common/tool_report.h).
std::function<void(int, int)> MakeProgress();

// --delegate's help: the names this build's registry accepts.
std::string DelegateFlagHelp();

// Fails early (kUsage, as WriteFileAtomically would at the end) when `path` cannot be written: a long
// evaluation should not run only to lose its report. Creates and removes a temporary file beside it.
Status CheckOutputFileWritable(const std::string& path, const std::string& flag);

// Declares the evaluation tools' image-count and thread flags with the values they take: --num_images
// (0: all), --num_interpreter_threads in [1, 256], --num_preprocessing_threads in [0, 64]. More
// interpreter threads than CPUs is a warning (WarnIfMoreThreadsThanCpus, from the tool's check).
void AddEvalRunFlags(FlagTable* table, int32_t* num_images, int32_t* num_interpreter_threads,
                     int32_t* num_preprocessing_threads);

// The hooks the evaluation pipelines take (evaluation/eval_hooks.h), for a tool with this command line:
// delegates from the flags and `request`, the envelope completed with the command line, MakeProgress.
EvalHooks MakeEvalHooks(const FlagTable& table, const DelegateFlagGroup& group, const DelegateRequest& request);

// Completes an evaluation's options (ImageNetEvalOptions, CocoEvalOptions) with the delegate flag group's
// interpreter limits and makes the hooks of its run (MakeEvalHooks) for its --delegate, threads and kernels.
template <typename EvalOptions>
EvalHooks BindEvalOptions(EvalOptions* options, const FlagTable& table, const DelegateFlagGroup& group) {
  options->max_tensor_bytes = group.max_tensor_bytes();
  options->allow_newer_op_versions = group.allow_newer_op_versions();
  const DelegateRequest request{options->num_interpreter_threads, options->delegate, options->use_reference_kernels};
  return MakeEvalHooks(table, group, request);
}

// An evaluation tool's main once its own flags are declared in `table`: adds the delegate flag group's,
// warns of more --num_interpreter_threads than CPUs, and runs `run` (RunTool, under the group's isolation
// flags); returns main's exit code.
int RunEvalTool(int argc, char** argv, const std::string& name, FlagTable* table, DelegateFlagGroup* delegate_flags,
                const int32_t* num_interpreter_threads, std::function<StatusOr<int>()> run);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_EVAL_TOOL_SUPPORT_H_
