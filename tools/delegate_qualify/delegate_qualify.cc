// delegate_qualify: qualifies a hardware delegate against Touchstone's single-threaded reference kernels
// in one command, with any delegate flag every binary takes (--stable_delegate_settings_file,
// --external_delegate_path, --use_gpu, ...). It measures op conformance (a built-in suite of single-op
// models in every type the op takes, over edge shapes and parameters), whole-model accuracy with how
// much of each graph the delegate took and why the rest stayed on the CPU, latency as TFLite's Delegate
// Performance Benchmark judges it, and robustness (every item in a process of its own: a crash or hang
// fails that item). It writes a JSON report, a CSV of the items and an HTML page. It does not measure
// energy, memory or accuracy on a labelled data set (imagenet_eval, coco_eval), and does not bless a
// delegate's speed on a loaded machine: NOISY says so. The work is qualification.h; docs/qualification.md.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "delegates/providers/delegate_provider.h"
#include "delegates/providers/registry.h"
#include "evaluation/inference_diff.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_report.h"
#include "tools/common/tool_runner.h"
#include "tools/delegate_qualify/qualification.h"

namespace touchstone {
namespace {

struct QualifyFlags {
  std::string report;
  std::string csv;
  std::string html;
  std::string models;
  std::string sections = "conformance,models,latency";
  bool gate_latency = false;
  QualifyConfig config;  // the flags that set a field of it directly
};

// Every .tflite file directly in `path` (sorted), or `path` itself when it is a file.
StatusOr<std::vector<std::string>> ModelPaths(const std::string& path) {
  std::vector<std::string> paths;
  FILE* probe = std::fopen(path.c_str(), "rb");
  if (probe == nullptr) return InvalidInputError("--models=" + path + ": no such file or folder");
  std::fclose(probe);
  const std::string command = "find '" + path + "' -maxdepth 1 -type f -name '*.tflite' 2>/dev/null | sort";
  FILE* list = popen(command.c_str(), "r");
  if (list == nullptr) return InvalidInputError("--models=" + path + ": cannot list the folder");
  char line[4096];
  while (std::fgets(line, sizeof(line), list) != nullptr) {
    std::string p(line);
    while (!p.empty() && (p.back() == '\n' || p.back() == '\r')) p.pop_back();
    if (!p.empty()) paths.push_back(p);
  }
  pclose(list);
  if (paths.empty()) return InvalidInputError("--models=" + path + ": no .tflite model there");
  return paths;
}

StatusOr<int> Run(const QualifyFlags& flags, const FlagTable& table, DelegateFlagGroup& group) {
  std::vector<std::string> warnings;
  WarnIfMoreThreadsThanCpus("num_threads", flags.config.num_threads, &warnings);
  PrintWarnings(warnings);
  QualifyConfig config = flags.config;
  config.conformance = config.models = config.latency = false;
  for (absl::string_view section : absl::StrSplit(flags.sections, ',', absl::SkipEmpty())) {
    if (section == "conformance") {
      config.conformance = true;
    } else if (section == "models") {
      config.models = true;
    } else if (section == "latency") {
      config.latency = true;
    } else {
      return UsageError(absl::StrCat("--sections: unknown section '", section, "' (conformance, models, latency)"));
    }
  }
  if (!flags.models.empty()) {
    TS_ASSIGN_OR_RETURN(config.model_paths, ModelPaths(flags.models));
  }
  // The delegate is created once here, so a missing .so or a bad settings file is one error line up
  // front; each case then makes its own in its own process.
  auto factory = [&table, &group, &flags]() {
    DelegateRequest request;
    request.num_threads = flags.config.num_threads;
    request.use_reference_kernels = true;
    return group.CreateDelegates(table, request);
  };
  TS_ASSIGN_OR_RETURN(std::vector<ProvidedDelegate> probe, factory());
  if (probe.empty()) {
    return UsageError(
        "no delegate to qualify: give one of the delegate flags (--stable_delegate_settings_file, "
        "--external_delegate_path, --use_gpu, --use_xnnpack, ...)");
  }
  const std::string delegates = DescribeDelegates(probe, group.params());
  config.float_tolerance = group.ReducedPrecision(probe) ? kQualifyFloat16Tolerance : kQualifyFloat32Tolerance;
  probe.clear();
  for (const auto& given : table.GivenValues()) {
    if (group.params().Has(given.first) || given.first == "num_threads") {
      config.delegate_flags += (config.delegate_flags.empty() ? "--" : " --") + given.first + "=" + given.second;
    }
  }
  TS_ASSIGN_OR_RETURN(QualificationReport report, RunQualification(config, factory, stderr));
  QualificationReport& r = report;
  r.delegates = delegates;
  r.envelope = NewEnvelope("delegate_qualify", 1);
  r.envelope.model.path = flags.models.empty() ? "(built-in suite)" : flags.models;
  r.envelope.config.num_threads = config.num_threads;
  r.envelope.config.kernels = "reference";
  CompleteEnvelope(table, group, &r.envelope);
  std::cout << FormatQualification(r);
  if (!flags.report.empty()) TS_RETURN_IF_ERROR(WriteFileAtomically(flags.report, QualificationJson(r), "report"));
  if (!flags.csv.empty()) TS_RETURN_IF_ERROR(WriteFileAtomically(flags.csv, QualificationCsv(r), "csv"));
  if (!flags.html.empty()) TS_RETURN_IF_ERROR(WriteFileAtomically(flags.html, QualificationHtml(r), "html"));
  int code = QualificationExitCode(r);
  if (flags.gate_latency) {
    for (const LatencyResult& l : r.latency) {
      if (l.verdict == "FAIL") code = 1;
    }
  }
  return code;
}

int Main(int argc, char** argv) {
  QualifyFlags flags;
  FlagTable table;
  table.AddString("report", &flags.report, "write the JSON report here (docs/qualification.md)");
  table.AddString("csv", &flags.csv, "write one CSV row per case and model here");
  table.AddString("html", &flags.html, "write a self-contained HTML page here");
  table.AddString("models", &flags.models,
                  "a folder of .tflite models (or one model) to qualify on; default: the suite's built-in models");
  table.AddString("only", &flags.config.only,
                  "run only this case or model id (as the report names it), in this process");
  table.AddString("sections", &flags.sections, "what to run: any of conformance,models,latency");
  table.AddInt("timeout_secs", &flags.config.timeout_secs, "a case, model or latency run that takes longer is a HANG")
      .AtLeast(1);
  table.AddInt("num_runs", &flags.config.diff_runs, "inference_diff runs per case and model (3 invocations each)")
      .AtLeast(1);
  table
      .AddInt("num_threads", &flags.config.num_threads,
              "CPU threads of the latency runs, with and without the delegate")
      .AtLeast(1);
  // The bootstrap of the latency verdict needs 3 samples a side at least.
  table.AddInt("startup_runs", &flags.config.startup_runs, "latency: interpreter starts measured per side").AtLeast(3);
  table.AddInt("inference_runs", &flags.config.inference_runs, "latency: invocations measured per side").AtLeast(3);
  table
      .AddFloat("max_regression_pct", &flags.config.max_regression_pct,
                "latency: largest slowdown against the CPU that passes (with a warning), in percent")
      .AtLeast(0);
  table.AddBool("localize", &flags.config.localize,
                "for a failing model, find the first node whose delegation diverges");
  table.AddBool("gate_latency", &flags.gate_latency, "a latency FAIL also makes the exit code 1");
  DelegateFlagGroup delegate_flags;
  delegate_flags.AddTo(&table);
  // No isolation around the whole run: each case runs in a process of its own (qualification.h).
  ToolSpec spec;
  spec.name = "delegate_qualify";
  spec.run = [&]() { return Run(flags, table, delegate_flags); };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
