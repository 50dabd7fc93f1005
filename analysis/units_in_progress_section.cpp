// The note every report of a run still training carries: which rows are not final yet, and which
// planned units have no row at all.
#include <algorithm>

#include "analysis/report_registry.h"

namespace recurlab::analysis {

void writeUnitsInProgress(Report& report, int64_t running, int64_t total, const std::string& units,
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
    for (size_t i = 0; i < not_started.size(); ++i) text += (i ? ", " : "") + not_started[i];
    text += ".";
  }
  report.paragraph(text);
}

std::vector<std::string> unitsNotStarted(const RunReader& run, const std::vector<std::string>& logged_groups) {
  std::vector<std::string> names;
  for (const auto& g : run.plannedUnitGroups())
    if (std::find(logged_groups.begin(), logged_groups.end(), g) == logged_groups.end())
      names.push_back(g.size() > 1 && g[0] == '/' ? g.substr(1) : g);
  return names;
}

}  // namespace recurlab::analysis
