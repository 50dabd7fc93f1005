#include "tests/experiments/harness/run_log_summary.h"

#include <iomanip>
#include <sstream>

#include "experiments/harness/run_folder.h"

namespace recurlab::testing {
namespace {

using experiments::Hdf5RunLog;

void describeTable(const Hdf5RunLog& log, const std::string& path, std::ostringstream& s) {
  if (!log.exists(path)) return;
  const auto t = log.readTable(path);
  s << " " << path << ":";
  for (const auto& row : t.rows)
    for (size_t j = 0; j < row.size(); ++j)
      if (t.columns[j].find("second") == std::string::npos) s << " " << row[j];
}

void visit(const Hdf5RunLog& log, const std::string& path, std::map<std::string, std::string>& out) {
  std::vector<std::string> names;
  try {
    names = log.children(path);
  } catch (const std::exception&) {
    return;  // a dataset
  }
  for (const auto& name : names) {
    const std::string p = (path == "/" ? "" : path) + "/" + name;
    if (!log.attribute(p, "status")) {
      visit(log, p, out);
      continue;
    }
    std::ostringstream s;
    s << std::setprecision(17) << log.stringAttribute(p, "status");
    for (const char* a : {"best_dev_acc", "test_acc", "best_dev_mse"})
      if (log.attribute(p, a)) s << " " << a << "=" << log.doubleAttribute(p, a);
    for (const char* a : {"config", "stop_reason", "reason"})
      if (log.attribute(p, a)) s << " " << a << "=" << log.stringAttribute(p, a);
    describeTable(log, p + "/epochs", s);
    describeTable(log, p + "/steps", s);
    out[out.count(p) ? p + " (twice)" : p] = s.str();
  }
}

void visitResumed(const Hdf5RunLog& log, const std::string& path,
                  std::map<std::string, int64_t>& out) {
  std::vector<std::string> names;
  try {
    names = log.children(path);
  } catch (const std::exception&) {
    return;  // a dataset
  }
  for (const auto& name : names) {
    const std::string p = (path == "/" ? "" : path) + "/" + name;
    if (!log.attribute(p, "status")) {
      visitResumed(log, p, out);
      continue;
    }
    if (log.attribute(p, "resumed_from_checkpoint"))
      out[p] += log.intAttribute(p, "resumed_from_checkpoint");
  }
}

}  // namespace

std::map<std::string, int64_t> resumedUnits(const std::string& folder) {
  std::map<std::string, int64_t> units;
  for (const auto& f : experiments::runLogFiles(folder)) {
    Hdf5RunLog log(f, Hdf5RunLog::Mode::ReadOnly);
    visitResumed(log, "/", units);
  }
  return units;
}

int64_t resumedUnitCount(const std::string& folder) {
  int64_t total = 0;
  for (const auto& [group, count] : resumedUnits(folder)) total += count;
  return total;
}

std::map<std::string, std::string> finishedUnits(const std::string& folder) {
  std::map<std::string, std::string> units;
  for (const auto& f : experiments::runLogFiles(folder)) {
    Hdf5RunLog log(f, Hdf5RunLog::Mode::ReadOnly);
    visit(log, "/", units);
  }
  return units;
}

}  // namespace recurlab::testing
