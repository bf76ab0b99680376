// Fuzz target: command-line parsing. The input is a command line, one argument per line, parsed by a
// FlagTable (tools/common/flags.h) holding every kind of flag, some with limits, as benchmark_model's
// does (a --config line reads whatever file it names); the string
// values then go through benchmark_model's input flags parser (evaluation/model_inputs.h
// ParseInputSpec: --input_layer, --input_layer_shape, --input_layer_value_range,
// --input_layer_value_files).
#include <cstdint>
#include <string>
#include <vector>

#include "evaluation/model_inputs.h"
#include "tools/common/flags.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = {"fuzz_tool"};
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  if (!current.empty()) args.push_back(current);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  std::string graph, input_layer, input_layer_shape, value_range, value_files;
  int32_t num_runs = 50;
  int64_t max_bytes = 0;
  float min_secs = 1.0f;
  bool reference = false;
  touchstone::FlagTable table;
  table.AddString("graph", &graph, "model file");
  std::string mode = "stdout";
  table.AddInt("num_runs", &num_runs, "runs").AtLeast(0);
  table.AddInt64("max_tensor_bytes", &max_bytes, "bound").InRange(0, 1e12).OrExactly(-1);
  table.AddFloat("min_secs", &min_secs, "seconds").GreaterThan(0).AtMost(3600);
  table.AddString("op_profiling_output_mode", &mode, "mode").OneOf({"stdout", "csv", ""});
  table.AddBool("use_reference_kernels", &reference, "reference kernels");
  table.AddIgnored("use_gpu", "no GPU delegate");
  table.AddGroup("Input flags");
  table.AddString("input_layer", &input_layer, "names");
  table.AddString("input_layer_shape", &input_layer_shape, "shapes");
  table.AddString("input_layer_value_range", &value_range, "ranges");
  table.AddString("input_layer_value_files", &value_files, "files");

  bool help = false;
  std::vector<std::string> warnings;
  const touchstone::Status status = table.Parse(static_cast<int>(argv.size()), argv.data(), &help, &warnings);
  (void)table.Usage("fuzz_tool");
  for (const std::string& name : table.given()) (void)table.Position(name);
  if (!status.ok()) return 0;
  (void)touchstone::ParseInputSpec(input_layer, input_layer_shape, value_range, value_files);
  (void)touchstone::ParseNameValueList(value_files, "input_layer_value_files");
  return 0;
}
