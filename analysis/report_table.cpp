#include "analysis/report_table.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

namespace recurlab::analysis {

namespace {

std::string markdownEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string fullPrecision(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

std::string latexEscape(const std::string& text) {
  static const std::pair<const char*, const char*> kUnicode[] = {
      {"±", "$\\pm$"},    {"×", "$\\times$"}, {"α", "$\\alpha$"}, {"★", "$\\star$"},
      {"–", "--"},        {"—", "---"},       {"≥", "$\\geq$"},   {"≤", "$\\leq$"},
      {"²", "$^2$"},      {"³", "$^3$"},      {"·", "$\\cdot$"},  {"σ", "$\\sigma$"},
      {"⊙", "$\\odot$"},  {"→", "$\\to$"},    {"…", "\\dots{}"},  {"√", "$\\surd$"}};
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    for (const auto& [from, to] : kUnicode) {
      const std::string f(from);
      if (text.compare(i, f.size(), f) == 0) {
        out += to;
        i += f.size();
        replaced = true;
        break;
      }
    }
    if (replaced) continue;
    const char c = text[i++];
    switch (c) {
      case '&': case '%': case '$': case '#': case '_': case '{': case '}':
        out += '\\';
        out += c;
        break;
      case '~': out += "\\textasciitilde{}"; break;
      case '^': out += "\\textasciicircum{}"; break;
      case '\\': out += "\\textbackslash{}"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

ReportTable::ReportTable(std::vector<Column> columns) : columns_(std::move(columns)) {
  if (columns_.empty()) throw std::invalid_argument("ReportTable: no columns");
}

ReportTable ReportTable::withHeaders(const std::vector<std::string>& headers) {
  std::vector<Column> columns;
  for (size_t i = 0; i < headers.size(); ++i)
    columns.push_back({headers[i], i == 0 ? Align::Left : Align::Right});
  return ReportTable(std::move(columns));
}

void ReportTable::addRow(std::vector<Cell> cells, RowKind kind) {
  if (cells.size() != columns_.size())
    throw std::invalid_argument("ReportTable: row " + std::to_string(rows_.size() + 1) + " has " +
                                std::to_string(cells.size()) + " cells, the table has " +
                                std::to_string(columns_.size()) + " columns");
  rows_.push_back({std::move(cells), kind});
}

bool ReportTable::isBest(size_t row, size_t column) const {
  const Best best = columns_.at(column).best;
  const Row& r = rows_.at(row);
  if (best == Best::None || r.kind != RowKind::Measured || !std::isfinite(r.cells[column].value))
    return false;
  const double v = r.cells[column].value;
  for (const auto& other : rows_) {
    if (other.kind != RowKind::Measured) continue;
    const double o = other.cells[column].value;
    if (!std::isfinite(o)) continue;
    if (best == Best::Max ? o > v : o < v) return false;
  }
  return true;
}

std::string ReportTable::markdown() const {
  std::string out = "|";
  for (const auto& c : columns_) out += " " + markdownEscape(c.header) + " |";
  out += "\n|";
  for (const auto& c : columns_)
    out += c.align == Align::Right ? " ---: |" : c.align == Align::Center ? " :---: |" : " --- |";
  out += "\n";
  for (size_t r = 0; r < rows_.size(); ++r) {
    out += "|";
    for (size_t c = 0; c < columns_.size(); ++c) {
      std::string text = markdownEscape(rows_[r].cells[c].text);
      if (!text.empty()) {
        if (columns_[c].monospace) text = "`" + text + "`";
        if (isBest(r, c)) text = "**" + text + "**";
        if (rows_[r].kind == RowKind::Published) text = "*" + text + "*";
      }
      out += " " + text + " |";
    }
    out += "\n";
  }
  return out;
}

std::string ReportTable::latex(const std::string& caption, const std::string& label) const {
  std::string spec;
  for (const auto& c : columns_)
    spec += c.align == Align::Right ? 'r' : c.align == Align::Center ? 'c' : 'l';
  std::string out = "% Written by recurlab_analyze from the run's log.h5; needs \\usepackage{booktabs}.\n";
  out += "\\begin{table}[t]\n\\centering\n";
  if (!caption.empty()) out += "\\caption{" + latexEscape(caption) + "}\n";
  if (!label.empty()) out += "\\label{tab:" + label + "}\n";
  out += "\\begin{tabular}{" + spec + "}\n\\toprule\n";
  for (size_t c = 0; c < columns_.size(); ++c)
    out += (c ? " & " : "") + latexEscape(columns_[c].header);
  out += " \\\\\n\\midrule\n";
  RowKind previous = RowKind::Measured;
  for (size_t r = 0; r < rows_.size(); ++r) {
    if (r > 0 && rows_[r].kind != previous) out += "\\midrule\n";
    previous = rows_[r].kind;
    for (size_t c = 0; c < columns_.size(); ++c) {
      std::string text = latexEscape(rows_[r].cells[c].text);
      if (!text.empty()) {
        if (columns_[c].monospace) text = "\\texttt{" + text + "}";
        if (isBest(r, c)) text = "\\textbf{" + text + "}";
        if (rows_[r].kind == RowKind::Published) text = "\\textit{" + text + "}";
      }
      out += (c ? " & " : "") + text;
    }
    out += " \\\\\n";
  }
  out += "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
  return out;
}

std::string ReportTable::csv() const {
  std::vector<bool> has_error(columns_.size(), false);
  bool any_published = false;
  for (const auto& row : rows_) {
    any_published |= row.kind == RowKind::Published;
    for (size_t c = 0; c < columns_.size(); ++c) has_error[c] = has_error[c] || std::isfinite(row.cells[c].error);
  }
  std::string out;
  for (size_t c = 0; c < columns_.size(); ++c) {
    out += (c ? "," : "") + csvField(columns_[c].header);
    if (has_error[c]) out += "," + csvField(columns_[c].header + " error");
  }
  if (any_published) out += ",published";
  out += "\n";
  for (const auto& row : rows_) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Cell& cell = row.cells[c];
      out += (c ? "," : "") +
             (std::isfinite(cell.value) ? fullPrecision(cell.value) : csvField(cell.text));
      if (has_error[c]) out += "," + (std::isfinite(cell.error) ? fullPrecision(cell.error) : "");
    }
    if (any_published) out += row.kind == RowKind::Published ? ",1" : ",0";
    out += "\n";
  }
  return out;
}

}  // namespace recurlab::analysis
