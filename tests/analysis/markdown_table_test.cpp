#include "analysis/markdown_table.h"

#include <gtest/gtest.h>

#include <cmath>

namespace recurlab::analysis {
namespace {

TEST(MarkdownTableTest, RendersHeaderAlignmentAndEscapedCells) {
  MarkdownTable t({"model", "ms"}, {MarkdownTable::Align::Left, MarkdownTable::Align::Right});
  t.addRow({"sru|fused", "1.5"});
  EXPECT_EQ(t.str(), "| model | ms |\n| --- | ---: |\n| sru\\|fused | 1.5 |\n");
  EXPECT_THROW(t.addRow({"only one"}), std::invalid_argument);
}

TEST(MarkdownTableTest, FormatsNumbers) {
  EXPECT_EQ(formatNumber(0.333333), "0.333");
  EXPECT_EQ(formatNumber(12.3456), "12.3");
  EXPECT_EQ(formatNumber(1234.6, 3), "1235");
  EXPECT_EQ(formatNumber(2.5e-6), "2.50e-06");
  EXPECT_EQ(formatNumber(0), "0");
  EXPECT_EQ(formatNumber(std::nan("")), "nan");
  EXPECT_EQ(formatWithError(0.33412, 0.0023), "0.334 ± 0.002");
  EXPECT_EQ(formatWithError(0.33412, 0.0013), "0.3341 ± 0.0013");
  EXPECT_EQ(formatWithError(12.34, 0), "12.3");
}

}  // namespace
}  // namespace recurlab::analysis
