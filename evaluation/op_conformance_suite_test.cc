// Every case of the conformance suite is a valid model the reference kernels run, ids are unique, and
// the suite covers each type of each op it claims to.
#include "evaluation/op_conformance_suite.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runtime/interpreter.h"
#include "runtime/model.h"

namespace touchstone {
namespace {

TEST(OpConformanceSuiteTest, EveryCaseRunsOnTheReferenceKernels) {
  const std::vector<ConformanceCase> cases = BuildConformanceSuite();
  ASSERT_GT(cases.size(), 100u);
  std::set<std::string> ids;
  for (const ConformanceCase& c : cases) {
    EXPECT_TRUE(ids.insert(c.id()).second) << "duplicate id " << c.id();
    EXPECT_EQ(c.id().find(' '), std::string::npos) << c.id();
    StatusOr<std::shared_ptr<const Model>> model = Model::FromBuffer(c.model, c.id());
    ASSERT_TRUE(model.ok()) << c.id() << ": " << model.status().message();
    InterpreterOptions options;
    options.kernel_set = KernelSet::kReference;
    StatusOr<std::unique_ptr<Interpreter>> interpreter = Interpreter::Create(model.value(), options);
    EXPECT_TRUE(interpreter.ok()) << c.id() << ": " << interpreter.status().message();
    if (!interpreter.ok()) continue;
    Status allocated = interpreter.value()->AllocateTensors();
    EXPECT_TRUE(allocated.ok()) << c.id() << ": " << allocated.message();
    if (!allocated.ok()) continue;
    Status invoked = interpreter.value()->Invoke();
    EXPECT_TRUE(invoked.ok()) << c.id() << ": " << invoked.message();
  }
}

TEST(OpConformanceSuiteTest, CoversTheTypesOfEachOp) {
  std::map<std::string, std::set<std::string>> types;
  for (const ConformanceCase& c : BuildConformanceSuite()) types[c.op].insert(c.type);
  for (const char* op : {"ADD", "SUB", "MUL", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D",
                         "MAX_POOL_2D", "SOFTMAX", "LOGISTIC", "TANH", "RESHAPE", "CONCATENATION", "MEAN", "PAD"}) {
    EXPECT_EQ(types[op], (std::set<std::string>{"float32", "uint8", "int8", "int16"})) << op;
  }
  EXPECT_EQ(types["DEQUANTIZE"].count("float16"), 1u);
}

TEST(OpConformanceSuiteTest, IsDeterministic) {
  const std::vector<ConformanceCase> a = BuildConformanceSuite(), b = BuildConformanceSuite();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].model, b[i].model) << a[i].id();
}

}  // namespace
}  // namespace touchstone
