#include "tools/common/tool_report.h"

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "tools/common/version.h"

namespace touchstone {

void CompleteEnvelope(const FlagTable& table, const DelegateFlagGroup& delegates, ReportEnvelope* envelope) {
  envelope->touchstone_version = TouchstoneVersion();
  envelope->config.flags = table.GivenValues();
  for (ReportedDelegate& d : envelope->config.delegates) d.options = delegates.DelegateOptions(d.provider);
}

void WarnIfMoreThreadsThanCpus(const std::string& flag, int value, std::vector<std::string>* warnings) {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
  if (cpus > 0 && value > cpus && warnings != nullptr) {
    warnings->push_back(fmt::format(
        "--{}={} is more threads than the {} CPUs this process may use: threads will share CPUs and latencies will "
        "suffer",
        flag, value, cpus));
  }
}

StatusOr<std::string> ReadBaselineText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInputError("--baseline=" + path + ": cannot read the file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size > (std::streamoff{256} << 20)) {
    return InvalidInputError("--baseline=" + path + ": " + std::to_string(size) +
                             " bytes is larger than any report Touchstone writes (256 MiB at most)");
  }
  in.seekg(0, std::ios::beg);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Heartbeat::Beat(const std::string& what, int64_t done, double elapsed_secs, const std::string& detail) {
  if (elapsed_secs - last_secs_ < every_secs_) return;
  last_secs_ = elapsed_secs;
  fmt::print(out_, "{}: {} in {:.1f} s{}\n", what, done, elapsed_secs, detail);
  std::fflush(out_);
}

bool IsTerminal(FILE* stream) { return isatty(fileno(stream)) != 0; }

}  // namespace touchstone
