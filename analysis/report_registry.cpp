#include "analysis/report_registry.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace recurlab::analysis {

// One line per report kind; each registrar is defined in analysis/<kind>_report.cpp.
#define RECURLAB_REPORT_REGISTRARS(X) \
  X(registerVarianceReport) \
  X(registerSpeedReport) \
  X(registerClassificationReport) \
  X(registerMtReport) \
  X(registerLmReport) \
  X(registerQaReport) \
  X(registerBenchReport) \
  X(registerSyntheticReport)

#define RECURLAB_DECLARE_REGISTRAR(fn) void fn();
RECURLAB_REPORT_REGISTRARS(RECURLAB_DECLARE_REGISTRAR)

namespace {

struct Entry {
  std::string description;
  ReportBuilder builder;
};

std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}

void registerBuiltinReports() {
  static std::once_flag once;
  std::call_once(once, [] {
#define RECURLAB_CALL_REGISTRAR(fn) fn();
    RECURLAB_REPORT_REGISTRARS(RECURLAB_CALL_REGISTRAR)
  });
}

}  // namespace

void registerReport(const std::string& kind, const std::string& description,
                    ReportBuilder builder) {
  if (kind.empty() || !builder) throw std::invalid_argument("registerReport: empty kind or builder");
  if (!registry().emplace(kind, Entry{description, std::move(builder)}).second)
    throw std::logic_error("registerReport: kind '" + kind + "' registered twice");
}

std::vector<std::string> reportKinds() {
  registerBuiltinReports();
  std::vector<std::string> kinds;
  for (const auto& [k, e] : registry()) kinds.push_back(k);
  return kinds;
}

std::string reportDescription(const std::string& kind) {
  registerBuiltinReports();
  const auto it = registry().find(kind);
  return it == registry().end() ? "" : it->second.description;
}

std::vector<std::string> analyzeRun(const std::string& run_dir_or_log,
                                    std::string* terminal_summary) {
  registerBuiltinReports();
  const RunReader run(run_dir_or_log);
  const std::string kind = run.experiment();
  Report report(run.runDirectory());
  report.setFigureDate(run.rootText("start_time"));
  report.heading(1, "Run " + run.runId() + ": " + kind);
  writeEnvironmentSection(run, report);
  const auto it = registry().find(kind);
  if (it != registry().end()) {
    it->second.builder(run, report);
  } else {
    report.paragraph("No report builder is registered for experiment kind '" + kind +
                     "'; what follows lists the log's contents.");
    writeGenericSections(run, report);
  }
  report.write();
  if (terminal_summary) *terminal_summary = report.terminalSummary();
  return report.files();
}

}  // namespace recurlab::analysis
