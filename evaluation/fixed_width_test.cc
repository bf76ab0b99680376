#include "evaluation/fixed_width.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(FixedWidthTest, PadsAsPrintfDoes) {
  EXPECT_EQ(PadRight("ADD", 6), "ADD   ");
  EXPECT_EQ(PadLeft("ADD", 6), "   ADD");
  EXPECT_EQ(PadRight("CONV_2D", 3), "CONV_2D");
  EXPECT_EQ(PadLeft("CONV_2D", 3), "CONV_2D");
  EXPECT_EQ(PadLeft("", 2), "  ");
  // Bytes, not characters: "é" is two bytes of UTF-8, as printf's "%-6s" counts it.
  EXPECT_EQ(PadRight("\xc3\xa9t\xc3\xa9", 6), "\xc3\xa9t\xc3\xa9 ");
  EXPECT_EQ(PadLeft("\xc3\xa9", 4), "  \xc3\xa9");
}

}  // namespace
}  // namespace touchstone
