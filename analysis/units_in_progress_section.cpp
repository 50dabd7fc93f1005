// The note every report of a run still training carries: which rows are not final yet, and which
// planned units have no row at all.
#include <algorithm>

#include "analysis/report_registry.h"

namespace recurlab::analysis {
namespace {

// A run of hundreds of units names the first few it has not started; summary.json lists all.
constexpr size_t kNotStartedNamed = 12;

// total counts the units not started too.
void writeInProgress(Report& report, int64_t running, int64_t total, const std::string& units,
                     const std::string& rows_give, const std::string& marked,
                     const std::vector<std::string>& not_started) {
  const auto waiting = static_cast<int64_t>(not_started.size());
  report.summary()["units_finished"] = total - running - waiting;
  report.summary()["units_running"] = running;
  if (waiting > 0) report.summary()["units_not_started"] = not_started;
  if (running + waiting == 0) return;
  std::string text = "**In progress:** " + std::to_string(running + waiting) + " of " +
                     std::to_string(total) + " " + units + " have not finished";
  if (running > 0)
    text += " (" + marked + "): their rows give " + rows_give + "; they are not final results";
  text += ".";
  if (waiting > 0) {
    text += " Not started yet (no epoch logged, so no row below): ";
    const size_t named = std::min(not_started.size(), kNotStartedNamed);
    for (size_t i = 0; i < named; ++i) text += (i ? ", " : "") + not_started[i];
    if (named < not_started.size())
      text += " and " + std::to_string(not_started.size() - named) +
              " more (summary.json: units_not_started)";
    text += ".";
  }
  report.paragraph(text);
}

}  // namespace

void writeUnitsInProgress(Report& report, int64_t running, int64_t total, const std::string& units,
                          const std::string& rows_give, const std::string& marked) {
  writeInProgress(report, running, total, units, rows_give, marked, {});
}

void writePlannedUnitsInProgress(const RunReader& run, const std::vector<std::string>& logged_groups,
                                 int64_t running, Report& report, const std::string& units,
                                 const std::string& rows_give) {
  std::vector<std::string> not_started;  // named by the group without its leading '/'
  for (const auto& g : run.plannedUnitGroups())
    if (std::find(logged_groups.begin(), logged_groups.end(), g) == logged_groups.end())
      not_started.push_back(g.size() > 1 && g[0] == '/' ? g.substr(1) : g);
  const auto total = static_cast<int64_t>(logged_groups.size() + not_started.size());
  writeInProgress(report, running, total, units, rows_give, "marked \"running\" below", not_started);
}

}  // namespace recurlab::analysis
