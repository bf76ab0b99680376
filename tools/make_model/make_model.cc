// make_model: writes a model Touchstone makes itself (a MobileNet v1-shaped float network with
// seeded random weights), so the demo and tests need no downloaded model. It measures nothing.
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "datasets/sample_models.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

int Main(int argc, char** argv) {
  std::string output;
  MobileNetLikeOptions options;
  int32_t input_size = options.input_size;
  int32_t num_classes = options.num_classes;
  float width = options.width_multiplier;
  int32_t seed = static_cast<int32_t>(options.seed);
  FlagTable table;
  table.AddString("output", &output, "where to write the .tflite file");
  table.AddInt("input_size", &input_size, "input height and width (3 channels)").InRange(32, 1024);
  table.AddFloat("width_multiplier", &width, "MobileNet's depth multiplier").GreaterThan(0).AtMost(4);
  table.AddInt("num_classes", &num_classes, "classifier outputs").AtLeast(1);
  table.AddInt("seed", &seed, "seed of the weights");
  ToolSpec spec;
  spec.name = "make_model";
  spec.run = [&]() -> StatusOr<int> {
    if (output.empty()) return UsageError("--output is required");
    options.input_size = input_size;
    options.num_classes = num_classes;
    options.width_multiplier = width;
    options.seed = static_cast<uint32_t>(seed);
    const std::vector<uint8_t> bytes = MakeMobileNetLike(options);
    TS_RETURN_IF_ERROR(WriteFileAtomically(output, std::string(bytes.begin(), bytes.end()), "output"));
    std::cout << fmt::format("Wrote {} ({} bytes)", output, bytes.size()) << std::endl;
    return 0;
  };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
