#include "evaluation/model_inputs.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(ModelInputsTest, NameValueListUnescapesDoubleColons) {
  auto parsed = ParseNameValueList("serving_default_x::0:/tmp/a.bin,y:/tmp/b.bin", "input_layer_value_files");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed.value().at("serving_default_x:0"), "/tmp/a.bin");
  EXPECT_EQ(parsed.value().at("y"), "/tmp/b.bin");
}

TEST(ModelInputsTest, ShapesAndRanges) {
  auto spec = ParseInputSpec("a,b", "1,224,224,3:1,10", "a,1,5", "");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec.value().layer_shapes.size(), 2u);
  EXPECT_EQ(spec.value().layer_shapes[0], (std::vector<int>{1, 224, 224, 3}));
  EXPECT_EQ(spec.value().value_ranges.at("a"), (std::pair<int, int>{1, 5}));
}

TEST(ModelInputsTest, RefusesBadItems) {
  EXPECT_EQ(ParseInputSpec("a", "1,-1", "", "").status().code(), StatusCode::kUsage);
  EXPECT_EQ(ParseInputSpec("a,b", "1,2", "", "").status().code(), StatusCode::kUsage);
  EXPECT_EQ(ParseInputSpec("", "", "a,5,1", "").status().code(), StatusCode::kUsage);
  EXPECT_EQ(ParseInputSpec("", "", "", "nocolon").status().code(), StatusCode::kUsage);
}

}  // namespace
}  // namespace touchstone
