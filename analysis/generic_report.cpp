// The fallback report: every object of the log, so any run can be inspected without a
// dedicated builder.
#include <algorithm>
#include <cctype>
#include <functional>

#include "analysis/report_registry.h"

namespace recurlab::analysis {

namespace {

// A file stem for a log path: "/a/b c" -> "log_a_b_c".
std::string tableStem(const std::string& path) {
  std::string stem = "log";
  for (char c : path) stem += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return stem;
}

void describeDataset(const experiments::Hdf5RunLog& log, const std::string& path, Report& report,
                     size_t max_rows) {
  try {
    const auto t = log.readTable(path);
    report.heading(3, "`" + path + "` (table, " + std::to_string(t.rows.size()) + " rows)");
    std::vector<ReportTable::Column> columns;
    for (const auto& c : t.columns) columns.push_back({c});
    ReportTable md(columns);
    for (size_t i = 0; i < t.rows.size() && i < max_rows; ++i) {
      std::vector<ReportTable::Cell> cells;
      for (double v : t.rows[i]) cells.push_back({formatNumber(v, 4), v});
      md.addRow(cells);
    }
    report.table(md, tableStem(path), "Log table " + path + " (first " +
                                           std::to_string(std::min(max_rows, t.rows.size())) + " rows).");
    if (t.rows.size() > max_rows)
      report.paragraph("(" + std::to_string(t.rows.size() - max_rows) + " more rows)");
    return;
  } catch (const std::exception&) {
  }
  try {
    std::vector<uint64_t> shape;
    const auto a = log.readArray(path, &shape);
    std::string dims;
    for (auto d : shape) dims += (dims.empty() ? "" : " x ") + std::to_string(d);
    report.heading(3, "`" + path + "` (array " + dims + ")");
    std::string head;
    for (size_t i = 0; i < a.size() && i < 20; ++i) head += formatNumber(a[i], 4) + " ";
    report.paragraph(head + (a.size() > 20 ? "..." : ""));
    return;
  } catch (const std::exception&) {
  }
  try {
    report.heading(3, "`" + path + "` (text)");
    report.code(log.readText(path));
  } catch (const std::exception& e) {
    report.paragraph("(unreadable: " + std::string(e.what()) + ")");
  }
}

}  // namespace

void writeGenericSections(const RunReader& run, Report& report, size_t max_rows) {
  const auto& log = run.log();
  report.heading(2, "Log contents");
  std::function<void(const std::string&)> walk = [&](const std::string& group) {
    for (const auto& name : log.children(group)) {
      const std::string path = (group == "/" ? "" : group) + "/" + name;
      if (isLogGroup(log, path)) {
        const auto attrs = log.attributes(path);
        if (!attrs.empty()) {
          std::vector<std::string> items;
          for (const auto& [k, v] : attrs) {
            std::string value;
            if (const auto* s = std::get_if<std::string>(&v)) value = *s;
            else if (const auto* d = std::get_if<double>(&v)) value = formatNumber(*d, 4);
            else value = std::to_string(std::get<int64_t>(v));
            items.push_back("`" + path + "@" + k + "` = " + value);
          }
          report.bullets(items);
        }
        walk(path);
      } else {
        describeDataset(log, path, report, max_rows);
      }
    }
  };
  walk("/");
}

}  // namespace recurlab::analysis
