#include "analysis/markdown_table.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace recurlab::analysis {

MarkdownTable::MarkdownTable(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  align_.resize(headers_.size(), Align::Left);
}

void MarkdownTable::addRow(std::vector<std::string> cells) {
  if (cells.size() != headers_.size())
    throw std::invalid_argument("MarkdownTable: row has " + std::to_string(cells.size()) +
                                " cells, the table has " + std::to_string(headers_.size()) +
                                " columns");
  rows_.push_back(std::move(cells));
}

namespace {
std::string escapeCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}
}  // namespace

std::string MarkdownTable::str() const {
  std::string out = "|";
  for (const auto& h : headers_) out += " " + escapeCell(h) + " |";
  out += "\n|";
  for (const auto a : align_)
    out += a == Align::Right ? " ---: |" : a == Align::Center ? " :---: |" : " --- |";
  out += "\n";
  for (const auto& row : rows_) {
    out += "|";
    for (const auto& c : row) out += " " + escapeCell(c) + " |";
    out += "\n";
  }
  return out;
}

std::string formatNumber(double value, int significant) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(value);
  if (value == 0.0) return "0";
  if (a >= 1e-3 && a < 1e5) {
    const int digits_before = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
    int decimals = significant - digits_before;
    if (a < 1) decimals = significant - static_cast<int>(std::floor(std::log10(a))) - 1;
    if (decimals < 0) decimals = 0;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  } else {
    std::snprintf(buf, sizeof buf, "%.*e", significant - 1, value);
  }
  return buf;
}

std::string formatWithError(double value, double error) {
  if (!std::isfinite(error) || error <= 0) return formatNumber(value);
  const int exp = static_cast<int>(std::floor(std::log10(error)));
  const double lead = error / std::pow(10.0, exp);
  const int place = lead < 2 ? exp - 1 : exp;  // last decimal place shown
  const int decimals = place < 0 ? -place : 0;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.*f ± %.*f", decimals, value, decimals, error);
  return buf;
}

}  // namespace recurlab::analysis
