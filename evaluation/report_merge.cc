#include "evaluation/report_merge.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>

#include "datasets/coco_json.h"
#include "evaluation/classification_report.h"
#include "evaluation/detection_report.h"
#include "evaluation/inference_diff.h"
#include "evaluation/sha256.h"

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The summaries print figures as the tools do: six significant digits ({:g}) of a float.
std::string MergedLine(const std::vector<ShardReport>& shards, const std::string& tool) {
  const ShardInfo& s = shards.front().envelope.shard;
  return fmt::format("Merged {} shard{} of {}: {} {}\n", shards.size(), shards.size() == 1 ? "" : "s", tool, s.total,
                     s.unit);
}

StatusOr<MergedReport> MergeImagenet(const std::vector<ShardReport>& shards) {
  TS_ASSIGN_OR_RETURN(const ordered_json& j, MergeClassificationShards(shards));
  MergedReport report;
  report.tool = "imagenet_eval";
  report.text = j.dump(1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  std::string summary = MergedLine(shards, report.tool);
  summary += fmt::format("Num evaluation runs: {}\n", j["num_evaluation_runs"].get<int>());
  for (size_t k = 0; k < j["topk_accuracy"].size(); ++k) {
    summary += fmt::format("Top-{} Accuracy: {:g}\n", k + 1, static_cast<float>(j["topk_accuracy"][k].get<double>()));
  }
  report.summary = summary;
  return report;
}

StatusOr<MergedReport> MergeCoco(const std::vector<ShardReport>& shards, const MergeOptions& options) {
  std::string path = options.ground_truth_json;
  const ordered_json details = shards.front().json.value("details", ordered_json::object());
  if (path.empty() && details.contains("ground_truth_json") && details["ground_truth_json"].is_string()) {
    path = details["ground_truth_json"].get<std::string>();
  }
  if (path.empty()) return UsageError(shards.front().path + ": names no ground truth; give --ground_truth_json");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidInputError(path +
                             ": cannot read the ground truth the shards name (--ground_truth_json gives where it "
                             "is on this machine)");
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string sha256 = Sha256Hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  TS_ASSIGN_OR_RETURN(CocoDataset gt, ReadCocoInstances(path));
  TS_ASSIGN_OR_RETURN(const ordered_json& j, MergeDetectionShards(shards, gt, sha256));
  MergedReport report;
  report.tool = "coco_eval";
  report.text = j.dump(1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  std::string summary = MergedLine(shards, report.tool);
  summary += fmt::format("Num evaluation runs: {}\n", j["num_images"].get<int64_t>());
  if (!j["tflite"].is_null()) {
    for (const ordered_json& entry : j["tflite"]["average_precision"]) {
      summary += fmt::format("Average Precision [IOU Threshold={:g}]: {:g}\n",
                             static_cast<float>(entry["iou_threshold"].get<double>()),
                             static_cast<float>(entry["average_precision"].get<double>()));
    }
    summary += fmt::format("Overall mAP: {:g}\n", static_cast<float>(j["tflite"]["overall_map"].get<double>()));
  }
  if (!j["coco"].is_null()) {
    for (int i = 0; i < 12; ++i) {
      summary += fmt::format(" {} = {:.3f}\n", CocoMetrics::Label(i), j["coco"][kCocoMetricNames[i]].get<double>());
    }
  }
  report.summary = summary;
  return report;
}

}  // namespace

StatusOr<MergedReport> MergeShardReports(std::vector<ShardReport> shards, const MergeOptions& options) {
  TS_RETURN_IF_ERROR(CheckShardReports(2, &shards));
  const std::string tool = shards.front().envelope.tool;
  if (tool == "imagenet_eval") return MergeImagenet(shards);
  if (tool == "coco_eval") return MergeCoco(shards, options);
  if (tool == "inference_diff") {
    TS_ASSIGN_OR_RETURN(InferenceDiffResult merged, MergeInferenceDiffShards(shards));
    MergedReport report;
    report.tool = tool;
    report.text = InferenceDiffJson(merged);
    report.summary = MergedLine(shards, tool) + FormatInferenceDiff(merged);
    report.exit_code = InferenceDiffExitCode(merged);
    return report;
  }
  return UsageError(shards.front().path + ": " + tool +
                    " reports are not sharded (imagenet_eval, coco_eval and "
                    "inference_diff are)");
}

}  // namespace touchstone
