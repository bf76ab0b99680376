// make_tiny_model --kind=classifier|detector --output=PATH: writes a model of tests/common/tiny_models.h
// for the shell tests.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/common/tiny_models.h"

int main(int argc, char** argv) {
  std::string kind, output;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--kind=", 0) == 0) kind = arg.substr(7);
    if (arg.rfind("--output=", 0) == 0) output = arg.substr(9);
  }
  if (output.empty() || (kind != "classifier" && kind != "detector")) {
    std::fprintf(stderr, "usage: make_tiny_model --kind=classifier|detector --output=PATH\n");
    return 2;
  }
  const std::vector<uint8_t> bytes =
      kind == "classifier" ? touchstone::MakeTinyClassifier() : touchstone::MakeTinyDetector();
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return out.good() ? 0 : 1;
}
