#include "analysis/report_table.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace recurlab::analysis {
namespace {

using Align = ReportTable::Align;
using Best = ReportTable::Best;

// The body rows of a tabular: lines ending in "\\" after the header's \midrule.
std::vector<std::string> latexRows(const std::string& tex) {
  std::vector<std::string> rows;
  std::istringstream in(tex);
  for (std::string line; std::getline(in, line);)
    if (line.size() > 2 && line.compare(line.size() - 2, 2, "\\\\") == 0) rows.push_back(line);
  return rows;
}

// Column separators: '&' not preceded by a backslash.
size_t separators(const std::string& row) {
  size_t n = 0;
  for (size_t i = 0; i < row.size(); ++i) n += row[i] == '&' && (i == 0 || row[i - 1] != '\\');
  return n;
}

ReportTable accuracyTable() {
  ReportTable t({{"model", Align::Left},
                 {"MR", Align::Right, Best::Max},
                 {"time_s", Align::Right, Best::Min},
                 {"note", Align::Left}});
  t.addRow({"sru_2", {"76.0 ± 1.4", 76.04, 1.41}, {"3.5", 3.5}, "50% & more"});
  t.addRow({"lstm", {"77.5 ± 0.3", 77.5, 0.3}, {"9.0", 9.0}, "#1 {x}"});
  t.addRow({"cnn", {"70.1", 70.1}, {"2.5", 2.5}, "a~b^c\\d"});
  t.addRow({"Kim CNN-rand (paper)", {"81.0", 81.0}, "–", ""}, ReportTable::RowKind::Published);
  return t;
}

TEST(ReportTable, MarkdownBoldsTheBestMeasuredValueAndItalicisesPublishedRows) {
  const std::string md = accuracyTable().markdown();
  EXPECT_NE(md.find("| model | MR | time_s | note |\n| --- | ---: | ---: | --- |"), std::string::npos) << md;
  EXPECT_NE(md.find("| lstm | **77.5 ± 0.3** | 9.0 |"), std::string::npos) << md;  // max
  EXPECT_NE(md.find("| cnn | 70.1 | **2.5** |"), std::string::npos) << md;          // min
  // The paper's 81.0 is larger but is not ours: italic, never bold.
  EXPECT_NE(md.find("| *Kim CNN-rand (paper)* | *81.0* | *–* |  |"), std::string::npos) << md;
}

TEST(ReportTable, LatexRowsAreBalancedAndEscaped) {
  const std::string tex = accuracyTable().latex("Accuracy (%) of 3 models", "accuracy");
  const auto rows = latexRows(tex);
  ASSERT_EQ(rows.size(), 5u) << tex;  // header + 4 rows
  for (const auto& r : rows) EXPECT_EQ(separators(r), 3u) << r;
  EXPECT_NE(tex.find("\\begin{tabular}{lrrl}"), std::string::npos) << tex;
  EXPECT_NE(tex.find("\\toprule"), std::string::npos);
  EXPECT_NE(tex.find("\\bottomrule"), std::string::npos);
  EXPECT_NE(tex.find("\\caption{Accuracy (\\%) of 3 models}"), std::string::npos) << tex;
  EXPECT_NE(tex.find("\\label{tab:accuracy}"), std::string::npos) << tex;
  EXPECT_NE(tex.find("model & MR & time\\_s & note \\\\"), std::string::npos) << tex;
  EXPECT_NE(tex.find("sru\\_2 & 76.0 $\\pm$ 1.4 & 3.5 & 50\\% \\& more \\\\"), std::string::npos) << tex;
  EXPECT_NE(tex.find("\\#1 \\{x\\}"), std::string::npos) << tex;
  EXPECT_NE(tex.find("a\\textasciitilde{}b\\textasciicircum{}c\\textbackslash{}d"), std::string::npos) << tex;
}

TEST(ReportTable, LatexBoldsTheDeclaredMaximumOrMinimum) {
  const std::string tex = accuracyTable().latex("", "t");
  EXPECT_NE(tex.find("lstm & \\textbf{77.5 $\\pm$ 0.3} & 9.0 &"), std::string::npos) << tex;
  EXPECT_NE(tex.find("cnn & 70.1 & \\textbf{2.5} &"), std::string::npos) << tex;
  EXPECT_EQ(tex.find("\\textbf{81.0}"), std::string::npos) << tex;
  // Published rows: their own block, in italics.
  EXPECT_NE(tex.find("\\midrule\n\\textit{Kim CNN-rand (paper)} & \\textit{81.0} & \\textit{--} &  \\\\"),
            std::string::npos)
      << tex;
  // Flip the declaration: the minimum of MR is now the best.
  ReportTable t({{"model", Align::Left}, {"MR", Align::Right, Best::Min}});
  t.addRow({"a", {"1", 1.0}});
  t.addRow({"b", {"2", 2.0}});
  t.addRow({"c", {"1.0", 1.0}});  // ties are all bold
  const std::string tex2 = t.latex("", "t");
  EXPECT_NE(tex2.find("a & \\textbf{1} \\\\"), std::string::npos) << tex2;
  EXPECT_NE(tex2.find("b & 2 \\\\"), std::string::npos) << tex2;
  EXPECT_NE(tex2.find("c & \\textbf{1.0} \\\\"), std::string::npos) << tex2;
}

TEST(ReportTable, CsvHoldsFullPrecisionNumbersErrorsAndTheSource) {
  const std::string csv = accuracyTable().csv();
  std::istringstream in(csv);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 5u) << csv;
  EXPECT_EQ(lines[0], "model,MR,MR error,time_s,note,published");
  EXPECT_EQ(lines[1], "sru_2,76.04,1.41,3.5,50% & more,0");
  EXPECT_EQ(lines[3], "cnn,70.1,,2.5,a~b^c\\d,0");
  EXPECT_EQ(lines[4], "Kim CNN-rand (paper),81,,–,,1");
  ReportTable quoted = ReportTable::withHeaders({"config", "x"});
  quoted.addRow({"{\"a\": 1, \"b\": 2}", "1"});
  EXPECT_EQ(quoted.csv(), "config,x\n\"{\"\"a\"\": 1, \"\"b\"\": 2}\",1\n");
}

TEST(ReportTable, RejectsRowsOfTheWrongWidth) {
  ReportTable t = ReportTable::withHeaders({"model", "ms"});
  try {
    t.addRow({"only one"});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "ReportTable: row 1 has 1 cells, the table has 2 columns");
  }
  t.addRow({"sru|fused", "1.5"});
  EXPECT_EQ(t.markdown(), "| model | ms |\n| --- | ---: |\n| sru\\|fused | 1.5 |\n");
}

}  // namespace
}  // namespace recurlab::analysis
