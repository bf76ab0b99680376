#include "evaluation/report_merge.h"

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "evaluation/classification_report.h"

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string Printed(double value) {
  std::ostringstream out;
  out << static_cast<float>(value);  // six significant digits, as the tools print their figures
  return out.str();
}

std::string MergedLine(const std::vector<ShardReport>& shards, const std::string& tool) {
  const ShardInfo& s = shards.front().envelope.shard;
  return "Merged " + std::to_string(shards.size()) + " shard" + (shards.size() == 1 ? "" : "s") + " of " + tool +
         ": " + std::to_string(s.total) + " " + s.unit + "\n";
}

StatusOr<MergedReport> MergeImagenet(const std::vector<ShardReport>& shards) {
  StatusOr<ordered_json> merged = MergeClassificationShards(shards);
  if (!merged.ok()) return merged.status();
  const ordered_json& j = merged.value();
  MergedReport report;
  report.tool = "imagenet_eval";
  report.text = j.dump(1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  std::string summary = MergedLine(shards, report.tool);
  summary += "Num evaluation runs: " + std::to_string(j["num_evaluation_runs"].get<int>()) + "\n";
  for (size_t k = 0; k < j["topk_accuracy"].size(); ++k) {
    summary += "Top-" + std::to_string(k + 1) + " Accuracy: " + Printed(j["topk_accuracy"][k].get<double>()) + "\n";
  }
  report.summary = summary;
  return report;
}

}  // namespace

StatusOr<MergedReport> MergeShardReports(std::vector<ShardReport> shards, const MergeOptions& options) {
  (void)options;
  TS_RETURN_IF_ERROR(CheckShardReports(2, &shards));
  const std::string tool = shards.front().envelope.tool;
  if (tool == "imagenet_eval") return MergeImagenet(shards);
  return UsageError(shards.front().path + ": " + tool + " reports are not sharded (imagenet_eval, coco_eval and "
                    "inference_diff are)");
}

}  // namespace touchstone
