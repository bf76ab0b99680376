// The op x type coverage table (runtime/op_coverage.h) against what ../shared/opsuite_sweep shows
// TensorFlow Lite 2.14.1 doing: every operator version the sweep's models name resolves exactly when
// TFLite loaded it, and every type combination of an op's tensors (inputs, with "-" for an omitted
// one, and outputs) the table runs exactly when TFLite ran at least one case of it. A difference
// either way fails, naming the op and the types. docs/fidelity.md must hold the table as printed.
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/builtin_options.h"
#include "runtime/model.h"
#include "runtime/op_coverage.h"
#include "runtime/op_resolver.h"
#include "runtime/op_type_rules.h"
#include "tests/common/op_case.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

using nlohmann::json;

struct OpTypes {
  int code = -1;
  int version = 0;
  std::vector<TfLiteType> inputs, outputs;
};

// The types of the case's operator named `op` (the last one: RANGE cases put a RESHAPE first).
bool ReadOpTypes(const Model& model, const std::string& op, OpTypes* types) {
  const fb::SubGraph* subgraph = model.fb()->subgraphs()->Get(0);
  for (const fb::Operator* node : *subgraph->operators()) {
    const int code = model.BuiltinCode(node->opcode_index());
    if (op != BuiltinOperatorName(code)) continue;
    types->code = code;
    types->version = model.fb()->operator_codes()->Get(node->opcode_index())->version();
    types->inputs.clear();
    types->outputs.clear();
    for (int side = 0; side < 2; ++side) {
      const auto* indices = side == 0 ? node->inputs() : node->outputs();
      std::vector<TfLiteType>& list = side == 0 ? types->inputs : types->outputs;
      for (int32_t t : *indices) {
        TfLiteType type = kTfLiteNoType;
        if (t >= 0 && !ConvertTensorType(subgraph->tensors()->Get(t)->type(), &type)) return false;
        list.push_back(type);
      }
    }
  }
  return types->code >= 0;
}

struct Combination {
  int ran = 0, refused = 0;  // TFLite's cases
  std::string example;       // one case
};

TEST(OpCoverageTest, TableAgreesWithTheSweepInBothDirections) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string root = shared + "/opsuite_sweep";
  std::map<std::string, Combination> combinations;  // "OP (types)" at a registered version
  std::map<std::string, OpTypes> types_of;
  std::vector<std::string> problems;
  int cases = 0;
  for (const std::string& name : testing::ListCaseDirs(root)) {
    json meta;
    if (!testing::ReadCaseMeta(root + "/" + name, &meta)) continue;
    ++cases;
    const std::string op = meta["op"].get<std::string>();
    auto model = Model::FromFile(root + "/" + name + "/model.tflite");
    ASSERT_TRUE(model.ok()) << name << ": " << model.status().message();
    OpTypes types;
    ASSERT_TRUE(ReadOpTypes(*model.value(), op, &types)) << name << ": no " << op << " operator";
    const bool tflite_loaded = !(meta["status"] == "refused" && meta["refused"]["stage"] == "load");
    const std::pair<int, int> versions = BuiltinOpResolver::RegisteredVersions(types.code);
    const bool table_loads = types.version >= versions.first && types.version <= versions.second;
    if (tflite_loaded != table_loads) {
      problems.push_back(name + ": version " + std::to_string(types.version) +
                         (tflite_loaded ? " loads" : " is refused") + " in TFLite, the table registers " +
                         std::to_string(versions.first) + "-" + std::to_string(versions.second));
    }
    if (!tflite_loaded) continue;
    const std::string key = op + " " + TypeSignatureText(types.inputs, types.outputs);
    Combination& c = combinations[key];
    (meta["status"] == "ok" ? c.ran : c.refused)++;
    if (c.example.empty()) c.example = name;
    types_of[key] = types;
  }
  int runs = 0;
  for (const auto& entry : combinations) {
    const OpTypes& types = types_of[entry.first];
    const OpTypeRules* rules = TypeRulesFor(types.code);
    if (rules == nullptr) {
      problems.push_back(entry.first + ": the table has no type rules for it");
      continue;
    }
    const bool table_runs = JudgeTypes(*rules, types.inputs, types.outputs) == TypeVerdict::kRun;
    const bool tflite_runs = entry.second.ran > 0;
    runs += table_runs;
    if (table_runs != tflite_runs) {
      problems.push_back(
          entry.first +
          (tflite_runs ? ": TFLite runs it, the table refuses it" : ": the table runs it, TFLite refuses every case") +
          " (e.g. " + entry.second.example + ")");
    }
  }
  std::printf("op coverage: %d sweep cases, %zu type combinations at registered versions, %d of them run\n", cases,
              combinations.size(), runs);
  for (const std::string& p : problems) std::printf("  DIFFERENCE %s\n", p.c_str());
  EXPECT_GT(cases, 0);
  EXPECT_TRUE(problems.empty()) << problems.size() << " differences, first: " << problems.front();
}

TEST(OpCoverageTest, FidelityDocHoldsTheTable) {
  std::ifstream in("docs/fidelity.md");
  ASSERT_TRUE(in) << "docs/fidelity.md is not among the test's runfiles";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(doc.find(CoverageTableMarkdown()), std::string::npos)
      << "docs/fidelity.md does not hold the current table; print it with bazel run //runtime:op_coverage_table";
}

}  // namespace
}  // namespace touchstone
