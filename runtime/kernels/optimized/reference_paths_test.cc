#include "runtime/kernels/optimized/reference_paths.h"

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace touchstone {
namespace optimized {
namespace {

TEST(ReferencePathsTest, TypesMatchWholeNames) {
  ASSERT_NE(FindReferencePath("CONCATENATION", "int8"), nullptr);
  EXPECT_NE(FindReferencePath("CONCATENATION", "uint8"), nullptr);
  EXPECT_EQ(FindReferencePath("CONCATENATION", "float32"), nullptr);
  EXPECT_EQ(FindReferencePath("CONCATENATION", "int"), nullptr);  // a prefix of "int8" is not a name
  EXPECT_EQ(FindReferencePath("SOFTMAX", "int8"), nullptr);
  EXPECT_NE(FindReferencePath("SOFTMAX", "int16"), nullptr);
  EXPECT_EQ(FindReferencePath("DEQUANTIZE", "int8"), nullptr);
  EXPECT_NE(FindReferencePath("DEQUANTIZE", "float16"), nullptr);
  EXPECT_NE(FindReferencePath("RESHAPE", "anything"), nullptr);  // "" covers every type
  EXPECT_EQ(FindReferencePath("CONV_2D", "float32"), nullptr);
}

TEST(ReferencePathsTest, OneEntryPerOpAndType) {
  std::set<std::string> seen;
  for (const ReferencePath& path : ReferencePaths()) {
    EXPECT_TRUE(seen.insert(std::string(path.op) + "/" + path.types).second) << path.op << " " << path.types;
    EXPECT_NE(std::string(path.why), "") << path.op;
  }
}

TEST(ReferencePathsTest, PerformanceDocHoldsTheTable) {
  std::ifstream in("docs/performance.md");
  ASSERT_TRUE(in) << "docs/performance.md is not among the test's runfiles";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(doc.find(ReferencePathsMarkdown()), std::string::npos)
      << "docs/performance.md does not hold the current table of runtime/kernels/optimized/reference_paths.cc:\n"
      << ReferencePathsMarkdown();
}

}  // namespace
}  // namespace optimized
}  // namespace touchstone
