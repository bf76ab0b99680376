// What the evaluation tools (imagenet_eval, coco_eval) share beyond tools/common: the progress display,
// the help of TFLite's --delegate=<name> (DelegateRequest::by_name) and the pipelines' hooks.
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

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_EVAL_TOOL_SUPPORT_H_
