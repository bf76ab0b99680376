#include "tests/common/op_case.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "runtime/model.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace testing {

using nlohmann::json;

const char* CaseStageName(CaseStage stage) {
  switch (stage) {
    case CaseStage::kLoad:
      return "load";
    case CaseStage::kPrepare:
      return "prepare";
    case CaseStage::kInvoke:
      return "invoke";
    case CaseStage::kRan:
      break;
  }
  return "ran";
}

CaseStage CaseStageFromName(const std::string& name) {
  if (name == "load") return CaseStage::kLoad;
  if (name == "prepare") return CaseStage::kPrepare;
  if (name == "invoke") return CaseStage::kInvoke;
  return CaseStage::kRan;
}

std::vector<std::string> ListSubdirs(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (stat((dir + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> ListCaseDirs(const std::string& root) {
  std::vector<std::string> dirs;
  for (const std::string& op : ListSubdirs(root)) {
    for (const std::string& name : ListSubdirs(root + "/" + op)) dirs.push_back(op + "/" + name);
  }
  return dirs;
}

bool ReadCaseMeta(const std::string& dir, json* meta) {
  std::ifstream in(dir + "/meta.json");
  if (!in) return false;
  *meta = json::parse(in, nullptr, /*allow_exceptions=*/false);
  return !meta->is_discarded();
}

std::vector<SuiteCase> ReadSuiteCases(const std::string& root) {
  std::vector<SuiteCase> cases;
  for (const std::string& label : ListCaseDirs(root)) {
    SuiteCase c;
    c.label = label;
    c.dir = root + "/" + label;
    c.op = label.substr(0, label.find('/'));
    if (ReadCaseMeta(c.dir, &c.meta)) cases.push_back(std::move(c));
  }
  return cases;
}

namespace {

// Runs the stages; stderr is captured around it by the caller.
void RunStages(const std::string& dir, const json& meta, const InterpreterOptions& options, TfLiteDelegate* delegate,
               OpCaseRun* run) {
  auto stop = [&](CaseStage stage, Status status) {
    run->stage = stage;
    run->status = std::move(status);
  };
  auto model = Model::FromFile(dir + "/model.tflite");
  if (!model.ok()) return stop(CaseStage::kLoad, model.status());
  run->model = model.value();
  auto created = Interpreter::Create(run->model, options);
  if (!created.ok()) return stop(CaseStage::kLoad, created.status());
  run->interpreter = std::move(created.value());
  Interpreter* interpreter = run->interpreter.get();
  const json& inputs = meta["inputs"];
  if (inputs.size() != interpreter->inputs().size()) {
    return stop(CaseStage::kPrepare, InvalidInputError("the model has " + std::to_string(interpreter->inputs().size()) +
                                                       " inputs, meta.json " + std::to_string(inputs.size())));
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    Status s = interpreter->ResizeInputTensor(interpreter->inputs()[k], inputs[k]["shape"].get<std::vector<int>>());
    if (!s.ok()) return stop(CaseStage::kPrepare, s);
  }
  if (delegate != nullptr) {
    Status s = interpreter->ModifyGraphWithDelegate(delegate);
    if (!s.ok()) return stop(CaseStage::kPrepare, s);
    for (int n : interpreter->primary()->execution_plan()) {
      if (interpreter->primary()->node(n).delegate == delegate) ++run->delegated_nodes;
    }
  }
  Status s = interpreter->AllocateTensors();
  if (!s.ok()) return stop(CaseStage::kPrepare, s);
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<uint8_t> bytes;
    ReadFileBytes(dir + "/" + inputs[k]["file"].get<std::string>(), &bytes);
    TfLiteTensor* t = interpreter->input_tensor(k);
    if (bytes.size() != t->bytes) {
      return stop(CaseStage::kInvoke,
                  InvalidInputError("input " + std::to_string(k) + " file has " + std::to_string(bytes.size()) +
                                    " bytes, the tensor " + std::to_string(t->bytes)));
    }
    if (!bytes.empty()) std::memcpy(t->data.raw, bytes.data(), bytes.size());
  }
  s = interpreter->Invoke();
  if (!s.ok()) return stop(CaseStage::kInvoke, s);
}

}  // namespace

OpCaseRun RunOpCase(const std::string& dir, const json& meta, const InterpreterOptions& options,
                    TfLiteDelegate* delegate) {
  OpCaseRun run;
  ::testing::internal::CaptureStderr();
  RunStages(dir, meta, options, delegate, &run);
  run.stderr_text = ::testing::internal::GetCapturedStderr();
  return run;
}

FloatTolerance ToleranceForOp(const std::string& op) {
  static const std::set<std::string> accumulating = {"CONV_2D",
                                                     "DEPTHWISE_CONV_2D",
                                                     "TRANSPOSE_CONV",
                                                     "FULLY_CONNECTED",
                                                     "BATCH_MATMUL",
                                                     "AVERAGE_POOL_2D",
                                                     "L2_POOL_2D",
                                                     "MEAN",
                                                     "SUM",
                                                     "REDUCE_PROD",
                                                     "CUMSUM",
                                                     "SOFTMAX",
                                                     "LOG_SOFTMAX",
                                                     "L2_NORMALIZATION",
                                                     "LOCAL_RESPONSE_NORMALIZATION",
                                                     "RESIZE_BILINEAR",
                                                     "SEGMENT_SUM",
                                                     "UNSORTED_SEGMENT_SUM",
                                                     "ADD_N",
                                                     "GRAPH"};
  static const std::set<std::string> data_movement = {"RESHAPE",
                                                      "TRANSPOSE",
                                                      "PAD",
                                                      "PADV2",
                                                      "MIRROR_PAD",
                                                      "SLICE",
                                                      "STRIDED_SLICE",
                                                      "GATHER",
                                                      "GATHER_ND",
                                                      "CONCATENATION",
                                                      "SPLIT",
                                                      "SPLIT_V",
                                                      "PACK",
                                                      "UNPACK",
                                                      "TILE",
                                                      "DEPTH_TO_SPACE",
                                                      "SPACE_TO_DEPTH",
                                                      "RESIZE_NEAREST_NEIGHBOR",
                                                      "MAX_POOL_2D",
                                                      "REDUCE_MAX",
                                                      "REDUCE_MIN",
                                                      "SQUEEZE",
                                                      "EXPAND_DIMS",
                                                      "BROADCAST_TO",
                                                      "REVERSE_V2",
                                                      "BATCH_TO_SPACE_ND",
                                                      "SPACE_TO_BATCH_ND",
                                                      "TOPK_V2",
                                                      "ZEROS_LIKE",
                                                      "FILL",
                                                      "SHAPE",
                                                      "RANK",
                                                      "SELECT",
                                                      "SELECT_V2"};
  FloatTolerance tolerance;
  if (accumulating.count(op)) {
    tolerance.rtol = 1e-5;
    tolerance.atol_of_max = 1e-5;
  } else if (!data_movement.count(op)) {
    tolerance.rtol = 1e-5;
    tolerance.atol = 1e-6;
  }
  return tolerance;
}

std::string CompareCaseOutputs(const std::string& dir, const json& meta, Interpreter* interpreter) {
  const json& outputs = meta["outputs"];
  if (outputs.size() != interpreter->outputs().size()) {
    return "the model has " + std::to_string(interpreter->outputs().size()) + " outputs, meta.json " +
           std::to_string(outputs.size());
  }
  const FloatTolerance tolerance = ToleranceForOp(meta["op"].get<std::string>());
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::vector<uint8_t> expected;
    ReadFileBytes(dir + "/" + outputs[k]["file"].get<std::string>(), &expected);
    const CompareResult compared =
        CompareTensor(interpreter->output_tensor(k), outputs[k]["shape"].get<std::vector<int>>(), expected, tolerance);
    if (!compared.match) return "output " + std::to_string(k) + ": " + compared.detail;
  }
  return "";
}

}  // namespace testing
}  // namespace touchstone
