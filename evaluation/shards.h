// Evaluations split over many processes (docs/cluster.md). Shard I of N does one contiguous part of the
// work: the items [floor(T*I/N), floor(T*(I+1)/N)) of T (images in list order, or inference_diff's runs),
// so the shards in index order are the work in its own order, and a shard may be empty (more shards than
// items). A shard report is the tool's report of its part, with "shard" in the envelope and what a merge
// needs to compute the whole run's figures exactly: per-item results, accumulators' states, latency
// states. This file holds the split and what every merge does before the tool's own part: checking a set
// of shard reports, the merged envelope, and the latency figures.
#ifndef TOUCHSTONE_EVALUATION_SHARDS_H_
#define TOUCHSTONE_EVALUATION_SHARDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluation/latency_stats.h"
#include "evaluation/report_envelope.h"
#include "runtime/status.h"

namespace touchstone {

// --shard_index and --num_shards, checked.
struct ShardSpec {
  int index = 0;
  int count = 0;  // 0: not sharded
  bool enabled() const { return count > 0; }
};

// The flags' values (-1 and 0 when not given): both or neither, 1 <= count <= 1000000, 0 <= index <
// count. Errors (kUsage) name the flags.
StatusOr<ShardSpec> ShardSpecFromFlags(int64_t shard_index, int64_t num_shards);

// The part of `total` items that shard `spec` does; for a spec that is not enabled, all of them (and
// present() is false).
ShardInfo ShardPart(const ShardSpec& spec, int64_t total, const std::string& unit);

// The line a shard prints of its part (no newline): "Shard 1 of 4: images 25 to 50 of 100 (merge the
// shard reports with merge_reports)".
std::string DescribeShard(const ShardInfo& part);

// A shard report given to a merge: where it came from and its JSON; CheckShardReports fills the envelope.
struct ShardReport {
  std::string path;
  nlohmann::ordered_json json;  // ordered: what a merge copies keeps the order the tool wrote
  ReportEnvelope envelope;
};

// Checks the reports a merge was given and puts them in shard order. Each must be a shard report of
// one tool (the first one's) at `schema_version`, of one shard count N, each index 0..N-1 exactly once,
// their parts adjoining to cover the whole, and of the same model, configuration, dataset and
// touchstone version. Errors (kInvalidInput) are one line naming the files: "b.json: the configuration
// differs from a.json's: num_threads 1 -> 2", "shard 3 of 7 is missing (given: 0, 1, 2, 4, 5, 6)",
// "shard 2 of 7 is given twice: a.json and b.json".
Status CheckShardReports(int schema_version, std::vector<ShardReport>* reports);

// The merged report's envelope: the first shard's, without "shard", with "merged"; the earliest start
// time.
ReportEnvelope MergedEnvelope(const std::vector<ShardReport>& shards);

// A latency figure as a report writes it (LatencyStatsJson without samples) and, in a shard report,
// with "state": everything LatencyStats::GetState holds.
nlohmann::ordered_json ShardLatencyJson(const LatencyStats& stats, bool shard);

// The statistics of the latency figure at `pointer` ("/latency/inference") of every shard, appended in
// shard order (LatencyStats::Append). Errors (kInvalidInput) name the file and the figure.
StatusOr<LatencyStats> MergedLatency(const std::vector<ShardReport>& shards, const std::string& pointer);

// An evaluation tool's merged "latency" member: its "preprocessing" and "inference" figures, each
// MergedLatency's, written without samples.
StatusOr<nlohmann::ordered_json> MergedEvalLatencyJson(const std::vector<ShardReport>& shards);

// Doubles in a state, where infinities and NaN must survive JSON: a number, or "inf", "-inf", "nan".
nlohmann::ordered_json StateNumber(double value);
// Reads one back; false when `j` is neither.
bool ReadStateNumber(const nlohmann::ordered_json& j, double* value);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_SHARDS_H_
