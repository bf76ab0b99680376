// What every tool does around its report and its gate: completing the report's envelope with what only
// the tool knows, warning of more threads than CPUs, reading a baseline or another report, and a heartbeat for long
// runs whose output goes to a log.
#ifndef TOUCHSTONE_TOOLS_COMMON_TOOL_REPORT_H_
#define TOUCHSTONE_TOOLS_COMMON_TOOL_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluation/report_envelope.h"
#include "runtime/status.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"

namespace touchstone {

// Sets this build's version and the flags given on the command line, and each reported delegate's
// options (DelegateFlagGroup::DelegateOptions).
void CompleteEnvelope(const FlagTable& table, const DelegateFlagGroup& delegates, ReportEnvelope* envelope);

// A thread-count flag's value (its table declares the counts it takes, e.g. AtLeast(1)): more threads
// than this process may use adds a warning naming the flag to *warnings.
void WarnIfMoreThreadsThanCpus(const std::string& flag, int value, std::vector<std::string>* warnings);

// The text of the report file `path`, at most `max_bytes` long. Errors (kInvalidInput) begin with `name`,
// the file as the message calls it (its path, or "--flag=path"): "<name>: cannot read the file",
// "<name>: N bytes is larger than <limit>".
StatusOr<std::string> ReadReportText(const std::string& path, const std::string& name, int64_t max_bytes,
                                     const std::string& limit);

// The text of a --baseline report (at most 256 MiB); "" for no path (no --baseline). Errors name the flag
// and the file (kInvalidInput).
StatusOr<std::string> ReadBaselineText(const std::string& path);

// A report named on the command line (at most 256 MiB), which must hold a JSON object. Errors
// (kInvalidInput) name the file: "<path>: cannot read the file", "<path>: not a JSON report".
StatusOr<nlohmann::json> ReadJsonReport(const std::string& path);

// One progress line at most every `every_secs` for a long loop whose output is not a terminal (a CI
// log): "regular runs: 4860 in 30.0 s". Tools on a terminal redraw a progress line instead.
class Heartbeat {
 public:
  explicit Heartbeat(FILE* out, double every_secs = 10.0) : out_(out), every_secs_(every_secs) {}
  // `elapsed_secs` since the loop started; prints "<what>: <done> in <elapsed> s<detail>" when due.
  void Beat(const std::string& what, int64_t done, double elapsed_secs, const std::string& detail = "");
  // Starts a new loop (the next line is due `every_secs` after its start).
  void Reset() { last_secs_ = 0.0; }

 private:
  FILE* out_;
  double every_secs_;
  double last_secs_ = 0.0;
};

// Declares --baseline and --allow_config_change, a gate against an earlier report (docs/gates.md), and
// the gate's limit --`limit_name` (at least 0; `limit_help` says what it bounds). `fails_when` is what
// exits 1, the limit's flag following it ("top-1 or top-5 drop by more than"); `differs` what besides
// the model, threads, kernels and delegates makes two runs' configurations differ ("images or labels").
void AddBaselineFlags(FlagTable* table, std::string* baseline, bool* allow_config_change, const std::string& fails_when,
                      const std::string& differs, const std::string& limit_name, float* limit,
                      const std::string& limit_help);

// Declares --shard_index and --num_shards (docs/cluster.md; checked by ShardSpecFromFlags): `part` says
// what shard I of N does ("evaluate shard I of N, images [T*I/N, T*(I+1)/N) of the list"), `items` what
// the shards split ("the image list").
void AddShardFlags(FlagTable* table, int32_t* shard_index, int32_t* num_shards, const std::string& part,
                   const std::string& items);

// Whether `stream` is a terminal.
bool IsTerminal(FILE* stream);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_TOOL_REPORT_H_
