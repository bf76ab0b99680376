// merge_reports: the shard reports of one sharded run (imagenet_eval, coco_eval or inference_diff with
// --shard_index/--num_shards, docs/cluster.md) into the report one run over all the work would have
// written: counts and per-image results added for imagenet_eval, every detection scored again with the
// same metric code for coco_eval, the error accumulators appended run by run for inference_diff. Their
// figures equal a single run's exactly; latencies are the shards' merged (docs/cluster.md says what they
// mean). It measures nothing itself, and it refuses a set of shards that is not one run's: a missing or
// duplicate shard, another model, configuration, dataset or build (one line, exit 3). It exits 1 when a
// merged inference_diff run fails its thresholds, as the tool would have (the shards themselves exit 0).
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluation/report_merge.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

constexpr int64_t kMaxReportBytes = int64_t{1} << 30;

int Main(int argc, char** argv) {
  std::string output_file_path;
  MergeOptions options;
  FlagTable table;
  table.AddString("output_file_path", &output_file_path, "write the merged report here (required)");
  table.AddString("ground_truth_json", &options.ground_truth_json,
                  "coco_eval: the COCO instances JSON the shards evaluated against, where it is on this machine "
                  "(default: the path the shards name); its sha256 must be theirs");
  std::vector<std::string> paths;  // the shard reports, among the flags
  ToolSpec spec;
  spec.name = "merge_reports";
  spec.usage_line = "usage: merge_reports --output_file_path=MERGED.json SHARD.json... [--flag=value ...]";
  spec.operands = &paths;
  spec.run = [&]() -> StatusOr<int> {
    if (output_file_path.empty()) return UsageError("--output_file_path is required");
    if (paths.empty()) return UsageError("no shard reports given (SHARD.json...)");
    std::vector<ShardReport> shards;
    for (const std::string& path : paths) {
      TS_ASSIGN_OR_RETURN(std::string text, ReadReportText(path, path, kMaxReportBytes, "any shard report (1 GiB)"));
      ShardReport shard;
      shard.path = path;
      shard.json = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (shard.json.is_discarded() || !shard.json.is_object()) return InvalidInputError(path + ": not a JSON report");
      shards.push_back(std::move(shard));
    }
    TS_ASSIGN_OR_RETURN(MergedReport merged, MergeShardReports(std::move(shards), options));
    std::cout << merged.summary << std::flush;
    TS_RETURN_IF_ERROR(WriteFileAtomically(output_file_path, merged.text, "output_file_path"));
    return merged.exit_code;
  };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
