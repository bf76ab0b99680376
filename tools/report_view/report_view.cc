// report_view: a self-contained HTML page from a Touchstone report (benchmark_model, inference_diff,
// imagenet_eval, coco_eval; whole, shard or merged), or from two reports of one tool a page comparing
// them, for people: charts as inline SVG, images drawn with OpenCV and inlined; the page fetches nothing.
// It measures nothing and judges nothing the reports do not (the comparison's verdicts are report_diff's
// gate). The pages are evaluation/report_view.h; docs/report_view.md.
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "evaluation/report_view.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

int Main(int argc, char** argv) {
  std::string output, compare;
  PageOptions options;
  FlagTable table;
  table.AddString("output", &output, "write the HTML page here (required), whole or not at all");
  table.AddString("compare", &compare,
                  "a baseline report of the same tool: the page compares REPORT.json (current) against it");
  table.AddString("images_root", &options.images_root,
                  "where the report's images are on this machine (imagenet_eval: <root>/<file>, coco_eval: "
                  "<root>/<file_name>); default: the paths the report names");
  table.AddInt("thumbnail_px", &options.thumbnail_px, "longest side of imagenet_eval's thumbnails").InRange(16, 4096);
  table.AddInt("example_px", &options.example_px, "longest side of coco_eval's drawn images").InRange(16, 4096);
  std::vector<std::string> paths;  // the report, among the flags
  ToolSpec spec;
  spec.name = "report_view";
  spec.usage_line = "usage: report_view REPORT.json --output=PAGE.html [--compare=BASELINE.json] [--flag=value ...]";
  spec.operands = &paths;
  spec.run = [&]() -> StatusOr<int> {
    if (paths.size() != 1) {
      return UsageError("expected one report, REPORT.json (got " + std::to_string(paths.size()) +
                        "; --compare=BASELINE.json adds a baseline)");
    }
    if (output.empty()) return UsageError("--output=PAGE.html is required");
    TS_ASSIGN_OR_RETURN(nlohmann::json report, ReadJsonReport(paths[0]));
    options.report_name = paths[0];
    std::string page;
    if (compare.empty()) {
      TS_ASSIGN_OR_RETURN(page, ReportPage(report, options));
    } else {
      TS_ASSIGN_OR_RETURN(nlohmann::json baseline, ReadJsonReport(compare));
      options.baseline_name = compare;
      TS_ASSIGN_OR_RETURN(page, ComparisonPage(baseline, report, options, ReportDiffConfig()));
    }
    TS_RETURN_IF_ERROR(WriteFileAtomically(output, page, "output"));
    std::cout << fmt::format("report_view: wrote {} ({} bytes)", output, page.size()) << std::endl;
    return 0;
  };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
