#pragma once
// Report builders by experiment kind (the root attribute "experiment" of a run log).
//
// Adding a kind "foo" takes one file and one line:
//   1. analysis/foo_report.cpp, in namespace recurlab::analysis:
//        namespace { void buildFooReport(const RunReader& run, Report& report) {
//          ... read run.log(), report.heading/table/figure(...), report.summary()["x"] = ...
//        } }
//        void registerFooReport() {
//          registerReport("foo", "what the foo experiment measures", buildFooReport);
//        }
//   2. report_registry.cpp: add X(registerFooReport) to RECURLAB_REPORT_REGISTRARS.
// Registration is by explicit call, not static initializers: the linker drops unreferenced
// objects from a static library. analyzeRun() writes the environment and config sections
// before calling the builder, and report.md and summary.json after it.
#include <functional>
#include <string>
#include <vector>

#include "analysis/report.h"
#include "analysis/run_reader.h"

namespace recurlab::analysis {

using ReportBuilder = std::function<void(const RunReader& run, Report& report)>;

void registerReport(const std::string& kind, const std::string& description,
                    ReportBuilder builder);
std::vector<std::string> reportKinds();  // sorted
std::string reportDescription(const std::string& kind);

// Regenerates report.md, figures and summary.json of one run from its log.h5 alone. Kinds
// without a builder get the generic report (every table and array of the log). Returns the
// files written.
// With `terminal_summary`, also the report's headline tables for the terminal.
std::vector<std::string> analyzeRun(const std::string& run_dir_or_log,
                                    std::string* terminal_summary = nullptr);

// Environment (root attributes) and config sections, and the summary fields every run has.
void writeEnvironmentSection(const RunReader& run, Report& report);

// For a run still training: summary.json's units_finished and units_running, and when some
// units run, the paragraph "**In progress:** <running> of <total> <units> have not finished
// (<marked>): their rows give <rows_give>; they are not final results."
void writeUnitsInProgress(Report& report, int64_t running, int64_t total, const std::string& units,
                          const std::string& rows_give,
                          const std::string& marked = "marked \"running\" below");

// The same for a report with a row per logged unit (logged_groups, `running` of them still
// training): the units the run planned (RunReader::plannedUnitGroups) that no log holds yet, a
// shard or --jobs worker that has not reached them, count as not finished and are named ("Not
// started yet (...): lstm, ptb-word/sru"; summary.json units_not_started).
void writePlannedUnitsInProgress(const RunReader& run, const std::vector<std::string>& logged_groups,
                                 int64_t running, Report& report, const std::string& units,
                                 const std::string& rows_give);

// Under a table or figure of training time or speed logged while training: they are wall-clock,
// so they count other processes' load too; `make bench` is where speed is compared.
void writeWallClockNote(Report& report);

// Every group, table, array and text of the log, as Markdown (tables up to max_rows rows).
void writeGenericSections(const RunReader& run, Report& report, size_t max_rows = 50);

}  // namespace recurlab::analysis
