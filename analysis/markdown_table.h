#pragma once
// Markdown (GitHub) tables and the number formats every report uses.
#include <string>
#include <vector>

namespace recurlab::analysis {

class MarkdownTable {
 public:
  enum class Align { Left, Right, Center };
  // Columns default to left-aligned text; numbers read better right-aligned.
  explicit MarkdownTable(std::vector<std::string> headers, std::vector<Align> align = {});
  void addRow(std::vector<std::string> cells);  // throws if the cell count differs
  size_t rows() const { return rows_.size(); }
  std::string str() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// `significant` digits, fixed notation in [1e-3, 1e5), scientific outside; "nan", "inf".
std::string formatNumber(double value, int significant = 3);
// "0.334 ± 0.002": the error with 1 significant digit (2 when it starts with 1), the value
// to the same decimal place.
std::string formatWithError(double value, double error);

}  // namespace recurlab::analysis
