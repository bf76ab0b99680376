#include "tools/common/eval_tool_support.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "delegates/providers/registry.h"
#include "tools/common/tool_report.h"

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
      std::fprintf(out, "\r[%s%s] %d/%d images, %.1f images/s, ETA %.0f s ", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), done, total, rate, eta);
      if (done == total) std::fprintf(out, "\n");
      std::fflush(out);
    } else {
      char detail[96];
      std::snprintf(detail, sizeof(detail), " (of %d, %.1f images/s)", total, rate);
      heartbeat->Beat("evaluated images", done, seconds, detail);
    }
  };
}

StatusOr<std::vector<ProvidedDelegate>> CreateDelegatesWithName(const FlagTable& table, const DelegateFlagGroup& group,
                                                                const std::string& delegate_name, int num_threads,
                                                                bool use_reference_kernels) {
  const std::vector<DelegateProvider>& providers = RegisteredDelegateProviders();
  ProviderParams params = group.params();  // the values the table parsed into
  for (const DelegateProvider& provider : providers) {
    for (const ProviderFlag& flag : provider.flags) {
      if (ProviderParams::Value* value = params.Mutable(flag.name)) value->position = table.Position(flag.name);
    }
  }
  if (!delegate_name.empty()) {
    TS_RETURN_IF_ERROR(EnableDelegateByName(providers, delegate_name, table.Position("delegate"), &params));
  }
  params.num_threads = num_threads;
  DeclareCpuKernels(use_reference_kernels, &params);
  return NoteCreatedDelegates(CreateDelegates(providers, params), params);
}

std::string DelegateFlagHelp() {
  std::string names;
  for (const std::string& name : DelegateNames(RegisteredDelegateProviders())) names += (names.empty() ? "" : "|") + name;
  return "TFLite's delegate by name (" + (names.empty() ? std::string("none built") : names) +
         "), as its provider's own flag; \"\": none";
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

void PrintDelegateOutcomes(const std::vector<DelegateOutcome>& outcomes, bool run_goes_on) {
  for (const DelegateOutcome& outcome : outcomes) {
    if (outcome.applied) {
      std::cout << DescribeOutcome(outcome) << std::endl;
    } else if (run_goes_on) {
      std::cerr << "WARNING: " << DescribeOutcome(outcome) << std::endl;
    }
  }
}

}  // namespace touchstone
