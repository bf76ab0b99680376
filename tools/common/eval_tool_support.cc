#include "tools/common/eval_tool_support.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "tools/common/tool_report.h"
#include "tools/common/tool_runner.h"

namespace touchstone {

std::function<void(int, int)> MakeProgress() {
  const auto start = std::chrono::steady_clock::now();
  FILE* out = stderr;
  const bool terminal = IsTerminal(stdout) && IsTerminal(stderr);
  auto heartbeat = std::make_shared<Heartbeat>(stdout);
  return [out, terminal, start, heartbeat](int done, int total) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = seconds > 0 ? done / seconds : 0.0;
    if (terminal) {
      const double eta = rate > 0 ? (total - done) / rate : 0.0;
      const int width = 30;
      const int filled = total > 0 ? static_cast<int>(static_cast<long long>(width) * done / total) : width;
      fmt::print(out, "\r[{}{}] {}/{} images, {:.1f} images/s, ETA {:.0f} s ", std::string(filled, '#'),
                 std::string(width - filled, '.'), done, total, rate, eta);
      if (done == total) std::fputs("\n", out);
      std::fflush(out);
    } else {
      heartbeat->Beat("evaluated images", done, seconds, fmt::format(" (of {}, {:.1f} images/s)", total, rate));
    }
  };
}

std::string DelegateFlagHelp() {
  return "TFLite's delegate by name (" + RegisteredDelegateNames() + "), as its provider's own flag; \"\": none";
}

void AddEvalRunFlags(FlagTable* table, int32_t* num_images, int32_t* num_interpreter_threads,
                     int32_t* num_preprocessing_threads) {
  table->AddInt("num_images", num_images, "evaluate the first N images (0: all)").AtLeast(0);
  table->AddInt("num_interpreter_threads", num_interpreter_threads, "interpreter threads").InRange(1, 256);
  table
      ->AddInt("num_preprocessing_threads", num_preprocessing_threads,
               "decode/preprocess ahead on N threads (0: inline)")
      .InRange(0, 64);
}

Status CheckOutputFileWritable(const std::string& path, const std::string& flag) {
  if (path.empty()) return Status::Ok();
  const std::string probe = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out) return UsageError("--" + flag + ": cannot write " + path);
  }
  std::remove(probe.c_str());
  return Status::Ok();
}

EvalHooks MakeEvalHooks(const FlagTable& table, const DelegateFlagGroup& group, const DelegateRequest& request) {
  EvalHooks hooks;
  hooks.create_delegates = [&table, &group, request]() { return group.CreateDelegates(table, request); };
  hooks.complete_envelope = [&table, &group](ReportEnvelope* envelope) { CompleteEnvelope(table, group, envelope); };
  hooks.make_progress = MakeProgress;
  return hooks;
}

int RunEvalTool(int argc, char** argv, const std::string& name, FlagTable* table, DelegateFlagGroup* delegate_flags,
                const int32_t* num_interpreter_threads, std::function<StatusOr<int>()> run) {
  delegate_flags->AddTo(table);
  ToolSpec spec;
  spec.name = name;
  spec.check = [num_interpreter_threads](std::vector<std::string>* warnings) {
    WarnIfMoreThreadsThanCpus("num_interpreter_threads", *num_interpreter_threads, warnings);
    return Status::Ok();
  };
  spec.delegates = delegate_flags;
  spec.run = std::move(run);
  return RunTool(argc, argv, table, spec);
}

}  // namespace touchstone
