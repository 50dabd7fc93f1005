// recurlab_log_probe: a writer and a reader of the HDF5 run log, each its own process, for the
// tests that kill a writer with SIGKILL and read the log from another process (HDF5 shares
// its cache inside one process, so a reader there proves nothing about the file).
//   write LOG PROGRESS   create LOG, append rows (i, i²) to /rows one by one (each append
//                        is written to the file), and after each one pass the kill point
//                        "log-probe-row-appended" and write "i" as a line of PROGRESS, a row
//                        a millisecond; runs until killed (or 10^6 rows).
//   rows LOG TABLE       print "rows N" for TABLE; with TABLE = /rows also check that row i
//                        is (i, i²), else exit 1.
//   churn LOG PROGRESS   what a run does to its log, over and over: open LOG (or create it),
//                        and for unit u = 1, 2, ...: a group /units/u with a table of 3 rows
//                        and a status attribute, the root attribute "units" = u, and the
//                        removal of the groups of units before u-1 (as a resume removes
//                        cut-off units); a line "u" in PROGRESS after each unit. Reopened,
//                        it goes on after the root's "units". Each change to the log (each
//                        a write of the file) comes after the kill point "log-probe-change".
//                        Runs until killed (or 10^6 units).
//   check LOG            open LOG afresh, read its root attributes and every unit's group,
//                        attributes and table, and check them against what churn writes:
//                        print "units N", or exit 1 naming what is damaged or missing.
// The kill points are common/runtime/kill_point.h's: RECURLAB_KILL_AT="<point>:<n>" kills the
// probe with SIGKILL the n-th time it passes <point>. Built with the tests, not installed.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/kill_point.h"

namespace {

using recurlab::experiments::Hdf5RunLog;
using recurlab::experiments::killPoint;

int writeUntilKilled(const std::string& log_path, const std::string& progress_path) {
  Hdf5RunLog log(log_path, Hdf5RunLog::Mode::Create);
  log.setAttribute("/", "experiment", std::string("log-probe"));  // a run's kind, for reports
  log.createTable("/rows", {"i", "square"});
  // write(2) without a user-space buffer: a line written is in the file when SIGKILL comes.
  const int progress = ::open(progress_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (progress < 0) {
    std::cerr << "log probe: cannot open " << progress_path << "\n";
    return 2;
  }
  for (int i = 0; i < 1000000; ++i) {
    log.appendRow("/rows", {double(i), double(i) * i});  // flushes the file
    killPoint("log-probe-row-appended");  // n-th time: n rows written, n - 1 progress lines
    const std::string line = std::to_string(i) + "\n";
    if (::write(progress, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 2;
    // A row a millisecond, as a run's log grows: a reader meets it mid-run (live_run_test).
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return 0;
}

std::string unitGroup(int64_t u) { return "/units/" + std::to_string(u); }

int churnUntilKilled(const std::string& log_path, const std::string& progress_path) {
  Hdf5RunLog log(log_path, Hdf5RunLog::Mode::Append);
  const auto done = log.attribute("/", "units");
  const int64_t first = done ? std::get<int64_t>(*done) + 1 : 1;
  const int progress = ::open(progress_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (progress < 0) {
    std::cerr << "log probe: cannot open " << progress_path << "\n";
    return 2;
  }
  for (int64_t u = first; u < 1000000; ++u) {
    const std::string g = unitGroup(u);
    killPoint("log-probe-change");
    log.remove(g);  // a unit cut off by the last kill starts over
    killPoint("log-probe-change");
    log.createTable(g + "/epochs", {"epoch", "loss"});
    for (int e = 1; e <= 3; ++e) {
      killPoint("log-probe-change");
      log.appendRow(g + "/epochs", {double(e), double(u) / e});
    }
    killPoint("log-probe-change");
    log.setAttribute(g, "status", std::string("finished"));
    killPoint("log-probe-change");
    log.setAttribute("/", "units", u);
    for (const auto& name : log.children("/units"))  // also those a kill left here
      if (std::stoll(name) < u - 1) {
        killPoint("log-probe-change");
        log.remove(unitGroup(std::stoll(name)));
      }
    const std::string line = std::to_string(u) + "\n";
    if (::write(progress, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 2;
  }
  return 0;
}

// Every unit the root's "units" counts that is still there complete and readable, the last
// one there, and past it at most the one a kill cut off.
int checkChurned(const std::string& log_path) {
  const Hdf5RunLog log(log_path, Hdf5RunLog::Mode::ReadOnly);
  log.attributes("/");  // every root attribute reads
  const auto done = log.attribute("/", "units");
  const int64_t units = done ? std::get<int64_t>(*done) : 0;
  const auto present = log.exists("/units") ? log.children("/units") : std::vector<std::string>{};
  for (const auto& name : present) {
    const int64_t u = std::stoll(name);
    const std::string g = unitGroup(u);
    const auto attributes = log.attributes(g);
    const bool finished = attributes.count("status") > 0;
    if (u > units + 1 || (u <= units && !finished)) {
      std::cout << g << " should not be there as it is (units " << units << ")\n";
      return 1;
    }
    if (!finished) continue;  // cut off mid-way: its rows may be partial
    const auto t = log.readTable(g + "/epochs");
    if (t.rows.size() != 3) {
      std::cout << g << "/epochs has " << t.rows.size() << " rows, not 3\n";
      return 1;
    }
    for (size_t e = 0; e < 3; ++e)
      if (t.rows[e][0] != double(e + 1) || t.rows[e][1] != double(u) / double(e + 1)) {
        std::cout << g << "/epochs row " << e << " is wrong\n";
        return 1;
      }
  }
  if (units > 0 && !log.exists(unitGroup(units))) {
    std::cout << unitGroup(units) << " is missing\n";
    return 1;
  }
  std::cout << "units " << units << "\n";
  return 0;
}

int countRows(const std::string& log_path, const std::string& table) {
  const auto t = Hdf5RunLog(log_path, Hdf5RunLog::Mode::ReadOnly).readTable(table);
  std::cout << "rows " << t.rows.size() << "\n";
  if (table != "/rows") return 0;
  for (size_t i = 0; i < t.rows.size(); ++i)
    if (t.rows[i].size() != 2 || t.rows[i][0] != double(i) || t.rows[i][1] != double(i) * i) {
      std::cout << "row " << i << " is not (" << i << ", " << i * i << ")\n";
      return 1;
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "write" && argc == 4) return writeUntilKilled(argv[2], argv[3]);
    if (mode == "rows" && argc == 4) return countRows(argv[2], argv[3]);
    if (mode == "churn" && argc == 4) return churnUntilKilled(argv[2], argv[3]);
    if (mode == "check" && argc == 3) return checkChurned(argv[2]);
    std::cerr << "usage: recurlab_log_probe write LOG PROGRESS | rows LOG TABLE | churn LOG "
                 "PROGRESS | check LOG\n";
  } catch (const std::exception& e) {
    std::cerr << "log probe: " << e.what() << "\n";
  }
  return 2;
}
