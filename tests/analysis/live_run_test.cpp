// A running run's log, read by analysis: a writer process (recurlab_log_probe write) keeps
// log.h5 open for writing and appends a row every millisecond (each one replaces the file
// whole); this process reads the rows written so far, over and over, each time after the
// writer announced another row and each time a whole file, and draws the run's report
// meanwhile, as `recurlab_analyze RUN` does. No fixed sleeps: every wait is on the writer's
// announced rows, bounded by 30 s and by the writer's end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "analysis/report_registry.h"
#include "analysis/run_reader.h"
#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;

// The writer as a child process in its own process group, killed when the test ends and
// awaited for at most 10 s.
class WriterProcess {
 public:
  WriterProcess(const std::string& log, const std::string& progress) {
    const std::string probe =
        (fs::read_symlink("/proc/self/exe").parent_path() / "recurlab_log_probe").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::execl(probe.c_str(), probe.c_str(), "write", log.c_str(), progress.c_str(), nullptr);
      ::_exit(127);
    }
    if (pid_ > 0) ::setpgid(pid_, pid_);
  }
  ~WriterProcess() {
    if (pid_ <= 0 || ended_) return;
    ::kill(-pid_, SIGKILL);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (::waitpid(pid_, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::cerr << "live_run_test: the writer " << pid_ << " outlived SIGKILL by 10 s\n";
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  bool running() {
    if (pid_ > 0 && !ended_ && ::waitpid(pid_, nullptr, WNOHANG) != 0) ended_ = true;
    return pid_ > 0 && !ended_;
  }

 private:
  pid_t pid_ = -1;
  bool ended_ = false;
};

size_t linesIn(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

// Waits for the writer to have announced (a PROGRESS line each, after the row is written) at
// least `rows` rows; false if it ended first or 30 s passed.
bool awaitRows(WriterProcess& writer, const std::string& progress, size_t rows) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (linesIn(progress) < rows) {
    if (!writer.running() || std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

TEST(LiveRunTest, AnalysisReadsALogAnotherProcessIsWriting) {
  testing::TempRoot tmp;
  const std::string log_path = tmp.file("log.h5"), progress = tmp.file("progress.txt");
  WriterProcess writer(log_path, progress);
  ASSERT_TRUE(awaitRows(writer, progress, 20)) << "the writer did not write 20 rows";
  ASSERT_TRUE(writer.running());

  // The writer holds its own lock, not HDF5's: a plain read-only open works, and a second
  // writer is refused.
  EXPECT_TRUE(fs::exists(log_path + ".lock"));
  EXPECT_THROW({ experiments::Hdf5RunLog second(log_path, experiments::Hdf5RunLog::Mode::Append); },
               std::runtime_error);

  // No read meets a half-written file, so none needs a retry: 50 in a row, each whole, each
  // after the writer has replaced the file again (announced a row more than the last read
  // saw), and each seeing every row announced before it.
  size_t rows = 0;
  for (int read = 0; read < 50; ++read) {
    ASSERT_TRUE(awaitRows(writer, progress, rows + 1)) << "read " << read << ": the writer stopped";
    const size_t announced = linesIn(progress);
    const auto table =
        experiments::Hdf5RunLog(log_path, experiments::Hdf5RunLog::Mode::ReadOnly).readTable("/rows");
    for (size_t i = 0; i < table.rows.size(); ++i) {
      ASSERT_EQ(table.rows[i][0], double(i)) << "read " << read;
      ASSERT_EQ(table.rows[i][1], double(i) * i) << "read " << read;
    }
    EXPECT_GE(table.rows.size(), announced) << "read " << read;
    rows = table.rows.size();
  }
  // 20 rows before the first read, and at least one more before each of the 49 others.
  EXPECT_GE(rows, 20u + 49u) << "every read saw a file replaced since the last";
  EXPECT_GE(RunReader(tmp.path().string()).log().readTable("/rows").rows.size(), rows);

  analyzeRun(tmp.path().string());
  std::ifstream md(tmp.file("report.md"));
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("`/rows` (table, "), std::string::npos) << text;
  EXPECT_TRUE(writer.running()) << "the report was drawn while the run was still writing";
}

}  // namespace
}  // namespace recurlab::analysis
