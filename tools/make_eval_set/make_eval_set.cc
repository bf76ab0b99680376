// make_eval_set: builds a small ImageNet-style evaluation set (an image folder plus a ground-truth
// label file, the layout imagenet_eval and TFLite's run_eval read) from labelled images kept one
// folder per class. It copies bytes; it decodes nothing and measures nothing.
#include <sys/stat.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "datasets/imagenet_folder.h"
#include "tools/common/flags.h"
#include "tools/common/output_file.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

Status Run(const std::string& class_folders, const std::string& output, int per_class) {
  if (class_folders.empty() || output.empty()) return UsageError("--class_folders and --output are required");
  TS_ASSIGN_OR_RETURN(std::vector<LabelledImage> set, LoadClassFolders(class_folders, per_class));
  const std::string images = output + "/images";
  mkdir(output.c_str(), 0755);
  if (mkdir(images.c_str(), 0755) != 0) {
    return UsageError("--output: cannot create " + images + " (it must not exist yet)");
  }
  std::string labels;
  for (size_t i = 0; i < set.size(); ++i) {
    const LabelledImage& image = set[i];
    const size_t dot = image.path.find_last_of('.');
    const size_t slash = image.path.find_last_of('/');
    const std::string extension = dot != std::string::npos && dot > slash ? image.path.substr(dot) : "";
    const std::string name = fmt::format("img_{:06}", i);
    std::ifstream in(image.path, std::ios::binary);
    if (!in) return InvalidInputError(image.path + ": cannot read");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    TS_RETURN_IF_ERROR(WriteFileAtomically(images + "/" + name + extension, bytes, "output"));
    labels += image.label + "\n";
  }
  TS_RETURN_IF_ERROR(WriteFileAtomically(output + "/ground_truth_labels.txt", labels, "output"));
  std::cout << fmt::format("Wrote {} images and {}/ground_truth_labels.txt", set.size(), output) << std::endl;
  return Status::Ok();
}

int Main(int argc, char** argv) {
  std::string class_folders, output;
  int32_t per_class = 0;
  FlagTable table;
  table.AddString("class_folders", &class_folders,
                  "root holding one folder of images per class (the folder name is the label)");
  table.AddString("output", &output, "folder to create: images/ and ground_truth_labels.txt");
  table.AddInt("per_class", &per_class, "at most N images per class (0: all)");
  ToolSpec spec;
  spec.name = "make_eval_set";
  spec.run = [&]() -> StatusOr<int> {
    TS_RETURN_IF_ERROR(Run(class_folders, output, per_class));
    return 0;
  };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
