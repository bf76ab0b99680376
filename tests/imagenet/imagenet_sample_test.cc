// End to end on ../shared/data/imagenet_sample: Top-1..Top-10 must equal what TensorFlow Lite's own
// run_eval printed (expected_*.json), for every model there and for the denylist run.
#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "datasets/imagenet_folder.h"
#include "evaluation/image_classification.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

std::string Printed(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

TEST(ImageNetSampleTest, TopKEqualsTflitesRunEval) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string sample = shared + "/data/imagenet_sample";
  std::vector<std::string> expected_files;
  DIR* dir = opendir(sample.c_str());
  ASSERT_NE(dir, nullptr);
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind("expected_", 0) == 0 && name.size() > 5 && name.substr(name.size() - 5) == ".json") {
      expected_files.push_back(name);
    }
  }
  closedir(dir);
  std::sort(expected_files.begin(), expected_files.end());
  ASSERT_FALSE(expected_files.empty());
  int ran = 0, not_yet = 0;
  for (const std::string& file : expected_files) {
    std::ifstream in(sample + "/" + file);
    const nlohmann::json expected = nlohmann::json::parse(in);
    const bool denylist = expected["command"].get<std::string>().find("--denylist_file_path") != std::string::npos;
    auto images = LoadImageNetSet(sample + "/images", sample + "/ground_truth_labels.txt",
                                  denylist ? sample + "/denylist.txt" : "", 0);
    ASSERT_TRUE(images.ok()) << images.status().message();
    auto labels = ReadLines(shared + "/" + expected["model_output_labels"].get<std::string>());
    ASSERT_TRUE(labels.ok());
    auto model = Model::FromFile(shared + "/" + expected["model"].get<std::string>());
    ASSERT_TRUE(model.ok()) << model.status().message();
    InterpreterOptions options;
    options.kernel_set = KernelSet::kReference;
    auto interpreter = Interpreter::Create(model.value(), options);
    Status allocated = interpreter.ok() ? interpreter.value()->AllocateTensors() : interpreter.status();
    if (!allocated.ok()) {
      // The quantized kernels of this model are the op-set issue's work; report, never skip silently.
      std::printf("%s: not yet: %s\n", file.c_str(), allocated.message().c_str());
      ++not_yet;
      continue;
    }
    auto preprocessing = PreprocessingForModel(*interpreter.value()->input_tensor(0));
    ASSERT_TRUE(preprocessing.ok());
    ClassificationConfig config;
    config.preprocessing = preprocessing.value();
    config.model_labels = labels.value();
    ClassificationResult result;
    ASSERT_TRUE(RunClassification(images.value(), config, interpreter.value().get(), nullptr, &result, {}).ok());
    EXPECT_EQ(result.topk.images(), expected["num_evaluation_runs"].get<int>()) << file;
    const std::vector<float> accuracies = result.topk.accuracies();
    for (int k = 1; k <= 10; ++k) {
      EXPECT_EQ(Printed(accuracies[k - 1]), expected["printed"]["Top-" + std::to_string(k)].get<std::string>())
          << file << " Top-" << k;
    }
    EXPECT_EQ(result.topk.hits(), expected["topk_hits"].get<std::vector<int>>()) << file;
    std::printf("%s: Top-1 %s ... Top-10 %s (as TFLite)\n", file.c_str(), Printed(accuracies[0]).c_str(),
                Printed(accuracies[9]).c_str());
    ++ran;
  }
  testing::ReportCases("imagenet_sample", ran + not_yet, static_cast<int>(expected_files.size()));
}

}  // namespace
}  // namespace touchstone
