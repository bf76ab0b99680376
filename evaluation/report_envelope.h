// The envelope every Touchstone report opens with (benchmark_model, inference_diff, imagenet_eval and
// coco_eval; docs/reports.md): which schema and tool wrote it, when, on which model and machine, and the
// run's configuration. A gate compares configurations before it compares figures: two runs whose model,
// threads, kernels, delegates, inputs or tool settings differ are not a regression test of anything.
#ifndef TOUCHSTONE_EVALUATION_REPORT_ENVELOPE_H_
#define TOUCHSTONE_EVALUATION_REPORT_ENVELOPE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluation/latency_stats.h"
#include "evaluation/machine_info.h"
#include "runtime/status.h"

namespace touchstone {

// A delegate the run asked for, and what became of it.
struct ReportedDelegate {
  std::string provider;  // "XNNPACK", "EXTERNAL", ...
  // Its provider's flags given on the command line, as name and value text, in flag order.
  std::vector<std::pair<std::string, std::string>> options;
  bool applied = false;
  int delegate_kernels = 0;
  bool fully_delegated = false;
  std::string error;  // why it was not applied
};

struct ReportedInput {
  std::string name;
  std::string type;  // "FLOAT32", ...
  std::vector<int> shape;
  std::string source;  // "random", "file:<path>", "images", ...
};

struct RunConfiguration {
  int num_threads = 1;
  std::string kernels = "optimized";  // or "reference"
  std::vector<ReportedDelegate> delegates;
  std::vector<ReportedInput> inputs;
  // What else must be equal for two runs to be compared (the dataset, the number of runs of an
  // inference_diff, ...), as name and value text.
  std::vector<std::pair<std::string, std::string>> settings;
  // The flags given on the command line, as given; recorded, not compared.
  std::vector<std::pair<std::string, std::string>> flags;
};

// A shard report's part of the work (docs/cluster.md): shard `index` of `count` did the items [first, end)
// of `total` (images, or inference_diff's runs).
struct ShardInfo {
  int index = 0;
  int count = 0;     // 0: not a shard report
  std::string unit;  // "images", "runs"
  int64_t first = 0;
  int64_t end = 0;
  int64_t total = 0;
  bool present() const { return count > 0; }
};

// A report merged from shard reports (merge_reports): how many, over what, and where they ran.
struct MergeInfo {
  int shards = 0;  // 0: not a merged report
  std::string unit;
  int64_t total = 0;
  std::vector<std::string> hostnames;  // each shard's, in shard order
  bool present() const { return shards > 0; }
};

struct ReportEnvelope {
  std::string schema;  // "touchstone.benchmark_model.report"
  int schema_version = 0;
  std::string tool;                // "benchmark_model"
  std::string touchstone_version;  // git describe at build time
  std::string start_time;          // UTC, "2026-11-28T14:53:30Z"
  struct Model {
    std::string path;
    int64_t size_bytes = 0;
    std::string sha256;
  } model;
  MachineInfo machine;
  RunConfiguration config;
  ShardInfo shard;   // written as "shard" (after "configuration") only in a shard report
  MergeInfo merged;  // written as "merged" only in a merged report
};

// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string UtcTimestamp();

// An envelope for `tool`'s report: schema "touchstone.<tool>.report" at `schema_version`, the start time
// now, this machine. The caller fills the version, model and configuration.
ReportEnvelope NewEnvelope(const std::string& tool, int schema_version);

// The envelope's fields as the first members of a report object (schema, schema_version, tool,
// touchstone_version, start_time, model, machine, configuration, and "shard" or "merged" where present).
nlohmann::ordered_json EnvelopeJson(const ReportEnvelope& envelope);

// Reads the envelope of a report written by EnvelopeJson. Errors (kInvalidInput) name `source`: not an
// object, a schema other than `expected_schema`, a schema version this build does not read.
StatusOr<ReportEnvelope> ParseEnvelope(const nlohmann::json& report, const std::string& source,
                                       const std::string& expected_schema, int schema_version);

// A report a tool wrote, parsed: its JSON and its envelope.
struct ParsedReport {
  nlohmann::json json;
  ReportEnvelope envelope;
};

// Parses a report's text and reads its envelope (ParseEnvelope). Errors (kInvalidInput) name `source`:
// "not a JSON object (expected a report written by <written_by>)", or ParseEnvelope's.
StatusOr<ParsedReport> ParseReport(const std::string& text, const std::string& source,
                                   const std::string& expected_schema, int schema_version,
                                   const std::string& written_by);

// What differs between two runs' configurations, one item per field: "model sha256 3fa2c1b0e9d4 ->
// 9b0e77a1c2f3", "num_threads 1 -> 2", "kernels optimized -> reference", "delegates none -> XNNPACK",
// "input 'x' shape [1,224,224,3] -> [1,160,160,3]", "num_images 50 -> 100", "shard 1 of 3 -> whole run"
// (a shard covers part of the work; a merged report covers all of it, as one run). Empty when they match.
std::vector<std::string> ConfigDifferences(const ReportEnvelope& baseline, const ReportEnvelope& current);

// The gate's first step in every tool: OK when the configurations match; when they differ, a usage
// error (exit 2) naming `baseline_path` and the differing fields, unless `allow_change`, when *note
// says what differed ("configuration changed: num_threads 1 -> 2").
Status CheckComparable(const ReportEnvelope& baseline, const ReportEnvelope& current, const std::string& baseline_path,
                       bool allow_change, std::string* note);

// Latency figures as every report writes them: count, then first/last/min/max/mean/std/median and the
// percentiles in microseconds at nanosecond resolution (*_us), whether the percentiles are exact, TFLite's
// whole-microsecond figures ("tflite"), and with `with_samples` the kept samples in run order
// ("samples": run_index, latency_us) and, when not every sample was kept, the histogram of all of them.
nlohmann::ordered_json LatencyStatsJson(const LatencyStats& stats, bool with_samples);

// A figure as a report writes it: the double, or null for NaN and infinities (which JSON cannot carry).
nlohmann::ordered_json JsonNumber(double value);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_REPORT_ENVELOPE_H_
