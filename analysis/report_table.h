#pragma once
// A report table, written three ways: Markdown (in report.md), LaTeX booktabs (<stem>.tex, to
// \input in a paper) and CSV (<stem>.csv, full-precision numbers for scripts). Columns may
// declare whether more or less is better: the best measured value of such a column is bold.
// Published rows (numbers from papers, beside ours) are set in italics and never marked best.
#include <cmath>
#include <string>
#include <vector>

namespace recurlab::analysis {

class ReportTable {
 public:
  enum class Align { Left, Right, Center };
  enum class Best { None, Max, Min };
  enum class RowKind { Measured, Published };

  struct Column {
    std::string header;
    Align align = Align::Right;
    Best best = Best::None;
    bool monospace = false;  // code or config text: `...` in Markdown, \texttt in LaTeX
  };

  // What a cell shows, and the number behind it (for the best mark and the CSV).
  struct Cell {
    Cell(std::string text) : text(std::move(text)) {}  // NOLINT: text cells read naturally
    Cell(const char* text) : text(text) {}             // NOLINT
    Cell(std::string text, double value, double error = NAN)
        : text(std::move(text)), value(value), error(error) {}
    std::string text;
    double value = NAN;
    double error = NAN;
  };

  explicit ReportTable(std::vector<Column> columns);
  // Text columns by header, the first left-aligned and the others right-aligned (numbers).
  static ReportTable withHeaders(const std::vector<std::string>& headers);

  // Throws std::invalid_argument when the cell count differs from the column count.
  void addRow(std::vector<Cell> cells, RowKind kind = RowKind::Measured);
  size_t rows() const { return rows_.size(); }
  const std::vector<Column>& columns() const { return columns_; }

  // Whether row r's cell in column c holds the column's best measured value (ties: all of them).
  bool isBest(size_t row, size_t column) const;

  std::string markdown() const;
  // A table float: caption, label "tab:<label>", \toprule/\midrule/\bottomrule; published rows
  // after a \midrule of their own. Needs \usepackage{booktabs}.
  std::string latex(const std::string& caption, const std::string& label) const;
  // Header row, then one line per row; numbers at full precision, an "<header> error" column
  // after each column that has errors, a "published" column when any row is published.
  std::string csv() const;

 private:
  struct Row {
    std::vector<Cell> cells;
    RowKind kind;
  };
  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

// LaTeX text mode: escapes & % $ # _ { } ~ ^ \ and writes ± × α ★ – ≥ ≤ ² ³ · as LaTeX.
std::string latexEscape(const std::string& text);

}  // namespace recurlab::analysis
