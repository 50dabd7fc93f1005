#include "tests/experiments/harness/run_log_summary.h"

#include <functional>
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

// Calls `unit(log, group)` for every group that holds a status (a finished unit) in every log
// of the folder; the walk does not descend into a unit.
void forEachUnit(const std::string& folder, const std::function<void(const Hdf5RunLog&,
                                                                     const std::string&)>& unit) {
  std::function<void(const Hdf5RunLog&, const std::string&)> visit =
      [&](const Hdf5RunLog& log, const std::string& path) {
        std::vector<std::string> names;
        try {
          names = log.children(path);
        } catch (const std::exception&) {
          return;  // a dataset
        }
        for (const auto& name : names) {
          const std::string p = (path == "/" ? "" : path) + "/" + name;
          if (log.attribute(p, "status"))
            unit(log, p);
          else
            visit(log, p);
        }
      };
  for (const auto& f : experiments::runLogFiles(folder)) {
    Hdf5RunLog log(f, Hdf5RunLog::Mode::ReadOnly);
    visit(log, "/");
  }
}

}  // namespace

std::map<std::string, int64_t> resumedUnits(const std::string& folder) {
  std::map<std::string, int64_t> units;
  forEachUnit(folder, [&](const Hdf5RunLog& log, const std::string& p) {
    if (log.attribute(p, "resumed_from_checkpoint"))
      units[p] += log.intAttribute(p, "resumed_from_checkpoint");
  });
  return units;
}

std::map<std::string, std::string> resumePositions(const std::string& folder) {
  std::map<std::string, std::string> units;
  forEachUnit(folder, [&](const Hdf5RunLog& log, const std::string& p) {
    if (log.attribute(p, "resumed_from_epoch"))
      units[p] = "epoch " + std::to_string(log.intAttribute(p, "resumed_from_epoch")) + " step " +
                 std::to_string(log.intAttribute(p, "resumed_from_step"));
  });
  return units;
}

int64_t resumedUnitCount(const std::string& folder) {
  int64_t total = 0;
  for (const auto& [group, count] : resumedUnits(folder)) total += count;
  return total;
}

std::map<std::string, std::string> finishedUnits(const std::string& folder) {
  std::map<std::string, std::string> units;
  forEachUnit(folder, [&](const Hdf5RunLog& log, const std::string& p) {
    std::ostringstream s;
    s << std::setprecision(17) << log.stringAttribute(p, "status");
    for (const char* a : {"best_dev_acc", "test_acc", "best_dev_mse"})
      if (log.attribute(p, a)) s << " " << a << "=" << log.doubleAttribute(p, a);
    for (const char* a : {"config", "stop_reason", "reason"})
      if (log.attribute(p, a)) s << " " << a << "=" << log.stringAttribute(p, a);
    describeTable(log, p + "/epochs", s);
    describeTable(log, p + "/steps", s);
    units[units.count(p) ? p + " (twice)" : p] = s.str();
  });
  return units;
}

}  // namespace recurlab::testing
