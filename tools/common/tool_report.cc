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

namespace {

constexpr int64_t kMaxReportBytes = int64_t{256} << 20;
constexpr char kReportLimit[] = "any report Touchstone writes (256 MiB at most)";

}  // namespace

StatusOr<std::string> ReadReportText(const std::string& path, const std::string& name, int64_t max_bytes,
                                     const std::string& limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInputError(name + ": cannot read the file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  // A file whose size cannot be told (a pipe) cannot be read back from its start either.
  if (size < 0) return InvalidInputError(name + ": cannot read the file");
  if (size > max_bytes) {
    return InvalidInputError(name + ": " + std::to_string(size) + " bytes is larger than " + limit);
  }
  in.seekg(0, std::ios::beg);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

StatusOr<std::string> ReadBaselineText(const std::string& path) {
  if (path.empty()) return std::string();
  return ReadReportText(path, "--baseline=" + path, kMaxReportBytes, kReportLimit);
}

StatusOr<nlohmann::json> ReadJsonReport(const std::string& path) {
  TS_ASSIGN_OR_RETURN(std::string text, ReadReportText(path, path, kMaxReportBytes, kReportLimit));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidInputError(path + ": not a JSON report");
  return j;
}

void AddBaselineFlags(FlagTable* table, std::string* baseline, bool* allow_config_change, const std::string& fails_when,
                      const std::string& differs, const std::string& limit_name, float* limit,
                      const std::string& limit_help) {
  table->AddString("baseline", baseline,
                   "gate against this --output_file_path report of an earlier run: exit 1 when " + fails_when + " --" +
                       limit_name + ", 2 when the configurations differ (docs/gates.md)");
  table->AddBool("allow_config_change", allow_config_change,
                 "let --baseline compare runs whose model, threads, kernels, delegates, " + differs + " differ");
  table->AddFloat(limit_name, limit, limit_help).AtLeast(0);
}

void AddShardFlags(FlagTable* table, int32_t* shard_index, int32_t* num_shards, const std::string& part,
                   const std::string& items) {
  table->AddInt("shard_index", shard_index,
                "with --num_shards: " + part + ", and write a shard report for merge_reports (docs/cluster.md)");
  table->AddInt("num_shards", num_shards, "split " + items + " into N shards (with --shard_index)");
}

void Heartbeat::Beat(const std::string& what, int64_t done, double elapsed_secs, const std::string& detail) {
  if (elapsed_secs - last_secs_ < every_secs_) return;
  last_secs_ = elapsed_secs;
  fmt::print(out_, "{}: {} in {:.1f} s{}\n", what, done, elapsed_secs, detail);
  std::fflush(out_);
}

bool IsTerminal(FILE* stream) { return isatty(fileno(stream)) != 0; }

}  // namespace touchstone
