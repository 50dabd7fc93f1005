// The note every report of a run still training carries: which rows are not final yet.
#include "analysis/report_registry.h"

namespace recurlab::analysis {

void writeUnitsInProgress(Report& report, int64_t running, int64_t total, const std::string& units,
                          const std::string& rows_give, const std::string& marked) {
  report.summary()["units_finished"] = total - running;
  report.summary()["units_running"] = running;
  if (running > 0)
    report.paragraph("**In progress:** " + std::to_string(running) + " of " +
                     std::to_string(total) + " " + units +
                     " have not finished (" + marked + "): their rows give " +
                     rows_give + "; they are not final results.");
}

}  // namespace recurlab::analysis
