// report_view: a self-contained HTML page from a Touchstone report (benchmark_model, inference_diff,
// imagenet_eval, coco_eval; whole, shard or merged), or from two reports of one tool a page comparing
// them, for people: charts as inline SVG, images drawn with OpenCV and inlined; the page fetches nothing.
// It measures nothing and judges nothing the reports do not (the comparison's verdicts are report_diff's
// gate). The pages are evaluation/report_view.h; docs/report_view.md.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluation/report_view.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"

namespace touchstone {
namespace {

StatusOr<nlohmann::json> ReadReport(const std::string& path) {
  StatusOr<std::string> text = ReadBaselineText(path);
  if (!text.ok()) return InvalidInputError(path + ": cannot read the file");
  nlohmann::json j = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidInputError(path + ": not a JSON report");
  return j;
}

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
  table.AddInt("thumbnail_px", &options.thumbnail_px, "longest side of imagenet_eval's thumbnails");
  table.AddInt("example_px", &options.example_px, "longest side of coco_eval's drawn images");
  std::vector<std::string> paths;
  std::vector<const char*> flag_args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-", 0) == 0) {
      flag_args.push_back(argv[i]);
    } else {
      paths.push_back(arg);
    }
  }
  bool help = false;
  Status parsed = table.Parse(static_cast<int>(flag_args.size()), flag_args.data(), &help, nullptr);
  if (help) {
    const std::string usage = table.Usage("report_view");
    std::cout << "usage: report_view REPORT.json --output=PAGE.html [--compare=BASELINE.json] [--flag=value ...]\n"
              << usage.substr(usage.find('\n') + 1);
    return 0;
  }
  if (!parsed.ok()) return ReportFailure(parsed);
  if (paths.size() != 1) {
    return ReportFailure(UsageError("expected one report, REPORT.json (got " + std::to_string(paths.size()) +
                                    "; --compare=BASELINE.json adds a baseline)"));
  }
  if (output.empty()) return ReportFailure(UsageError("--output=PAGE.html is required"));
  if (options.thumbnail_px < 16 || options.thumbnail_px > 4096 || options.example_px < 16 || options.example_px > 4096) {
    return ReportFailure(UsageError("--thumbnail_px and --example_px must be in [16, 4096]"));
  }
  StatusOr<nlohmann::json> report = ReadReport(paths[0]);
  if (!report.ok()) return ReportFailure(report.status());
  options.report_name = paths[0];
  StatusOr<std::string> page = std::string();
  if (compare.empty()) {
    page = ReportPage(report.value(), options);
  } else {
    StatusOr<nlohmann::json> baseline = ReadReport(compare);
    if (!baseline.ok()) return ReportFailure(baseline.status());
    options.baseline_name = compare;
    page = ComparisonPage(baseline.value(), report.value(), options, ReportDiffConfig());
  }
  if (!page.ok()) return ReportFailure(page.status());
  Status written = WriteFileAtomically(output, page.value(), "output");
  if (!written.ok()) return ReportFailure(written);
  std::cout << "report_view: wrote " << output << " (" << page.value().size() << " bytes)" << std::endl;
  return 0;
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
