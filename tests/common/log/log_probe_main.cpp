// recurlab_log_probe: a writer and a reader of the HDF5 run log, each its own process, for the
// tests that kill a writer with SIGKILL and read the log from another process (HDF5 shares
// its cache inside one process, so a reader there proves nothing about the file).
//   write LOG PROGRESS   create LOG, append rows (i, i²) to /rows one by one (each append
//                        flushes the file), and after each one write "i" as a line of
//                        PROGRESS; runs until killed (or 10^6 rows).
//   rows LOG TABLE       print "rows N" for TABLE; with TABLE = /rows also check that row i
//                        is (i, i²), else exit 1.
// Built with the tests, not installed.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "common/log/hdf5_run_log.h"

namespace {

using recurlab::experiments::Hdf5RunLog;

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
    const std::string line = std::to_string(i) + "\n";
    if (::write(progress, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 2;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
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
    std::cerr << "usage: recurlab_log_probe write LOG PROGRESS | rows LOG TABLE\n";
  } catch (const std::exception& e) {
    std::cerr << "log probe: " << e.what() << "\n";
  }
  return 2;
}
