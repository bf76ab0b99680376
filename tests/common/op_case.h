// Runs one single-op case of ../shared/opsuite or ../shared/opsuite_sweep (model.tflite, input_K.bin,
// meta.json) the way TFLite 2.14.1's benchmark_model runs it: build the interpreter (stage "load"),
// resize the inputs and allocate tensors (stage "prepare", after the delegate, when there is one),
// feed the inputs and invoke (stage "invoke"). The outcome says at which stage it stopped and why, or
// holds the interpreter with the outputs computed.
#ifndef TOUCHSTONE_TESTS_COMMON_OP_CASE_H_
#define TOUCHSTONE_TESTS_COMMON_OP_CASE_H_

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/c/common.h"
#include "runtime/interpreter.h"
#include "runtime/status.h"
#include "tests/common/tensor_compare.h"

namespace touchstone {
namespace testing {

// The stages of meta.json's refused.stage, plus kRan: outputs were computed.
enum class CaseStage { kLoad, kPrepare, kInvoke, kRan };

const char* CaseStageName(CaseStage stage);
// "load", "prepare", "invoke" as in meta.json; kRan for anything else.
CaseStage CaseStageFromName(const std::string& name);

struct OpCaseRun {
  CaseStage stage = CaseStage::kRan;  // where the run stopped; kRan when it computed outputs
  Status status;                      // the refusal, when stage != kRan
  std::string stderr_text;            // what the runtime printed (warnings) while it ran
  int delegated_nodes = 0;            // delegate kernel nodes in the primary subgraph
  std::shared_ptr<const Model> model;
  std::unique_ptr<Interpreter> interpreter;  // holds the outputs when stage == kRan
};

// The case directories under `root` as "<OP>/<case>", sorted; the subdirectories of `dir`, sorted.
std::vector<std::string> ListCaseDirs(const std::string& root);
std::vector<std::string> ListSubdirs(const std::string& dir);

// Reads <dir>/meta.json; false when absent or unreadable.
bool ReadCaseMeta(const std::string& dir, nlohmann::json* meta);

// A case under a suite's root: "<OP>/<case>", its directory, its op (the folder's name) and meta.json.
struct SuiteCase {
  std::string label, dir, op;
  nlohmann::json meta;
};
// The cases under `root` whose meta.json reads, in ListCaseDirs' order.
std::vector<SuiteCase> ReadSuiteCases(const std::string& root);

// Runs the case with `options` and, when not null, `delegate` applied before tensors are allocated.
OpCaseRun RunOpCase(const std::string& dir, const nlohmann::json& meta, const InterpreterOptions& options,
                    TfLiteDelegate* delegate = nullptr);

// The float tolerance the suites' READMEs give for an op's outputs: accumulating ops rtol 1e-5 plus
// 1e-5 of the largest magnitude, data movement exact, everything else rtol 1e-5 plus 1e-6.
FloatTolerance ToleranceForOp(const std::string& op);

// Compares every output of a case that ran with the files TFLite wrote. Empty when all match, else
// what differs first.
std::string CompareCaseOutputs(const std::string& dir, const nlohmann::json& meta, Interpreter* interpreter);

}  // namespace testing
}  // namespace touchstone

#endif  // TOUCHSTONE_TESTS_COMMON_OP_CASE_H_
