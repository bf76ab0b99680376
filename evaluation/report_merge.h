// What merge_reports does: the shard reports of one sharded run into the report a single run over all
// the work would have written (docs/cluster.md). The set is checked first (shards.h: one run's shards,
// each once); then the tool's own merge: imagenet_eval's counts and per-image results
// (classification_report.h), coco_eval's detections scored again (detection_report.h), inference_diff's
// error accumulators appended run by run (inference_diff.h).
#ifndef TOUCHSTONE_EVALUATION_REPORT_MERGE_H_
#define TOUCHSTONE_EVALUATION_REPORT_MERGE_H_

#include <string>
#include <vector>

#include "evaluation/shards.h"
#include "runtime/status.h"

namespace touchstone {

struct MergeOptions {
  // coco_eval: where the ground truth the shards name is on this machine ("": the path in their
  // details). Its sha256 must be the one the shards recorded.
  std::string ground_truth_json;
};

struct MergedReport {
  std::string tool;
  std::string text;     // the merged report, as the tool writes its report
  std::string summary;  // lines for the terminal: what was merged, and the tool's headline figures
  // inference_diff: 1 when the merged run fails its thresholds (as the tool would exit), else 0.
  int exit_code = 0;
};

// Errors: kUsage for no reports or a tool that is not sharded, kInvalidInput for a set that is not one
// run's shards or a report that lacks what the merge needs (one line naming the file).
StatusOr<MergedReport> MergeShardReports(std::vector<ShardReport> shards, const MergeOptions& options);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_REPORT_MERGE_H_
