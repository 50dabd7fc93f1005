// A running run's log, read by analysis: a writer process (recurlab_log_probe write) keeps
// log.h5 open, locked, and appends a row every millisecond; this process reads the rows it
// has flushed and draws the run's report meanwhile, as `recurlab_analyze RUN` does.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "analysis/report_registry.h"
#include "analysis/run_reader.h"
#include "common/log/hdf5_run_log.h"
#include "tests/analysis/temp_dir.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;

// The writer as a child process, killed when the test ends.
class WriterProcess {
 public:
  WriterProcess(const std::string& log, const std::string& progress) {
    const std::string probe =
        (fs::read_symlink("/proc/self/exe").parent_path() / "recurlab_log_probe").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl(probe.c_str(), probe.c_str(), "write", log.c_str(), progress.c_str(), nullptr);
      ::_exit(127);
    }
  }
  ~WriterProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool running() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

size_t linesIn(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

// Runs `read` until it does not throw (a read may meet the writer in the middle of a flush),
// at most 5 times; returns the last error, "" on success.
std::string withRetries(const std::function<void()>& read) {
  std::string error;
  for (int attempt = 0; attempt < 5; ++attempt) {
    try {
      read();
      return "";
    } catch (const std::exception& e) {
      error = e.what();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return error;
}

TEST(LiveRunTest, AnalysisReadsALogAnotherProcessIsWriting) {
  testing::TempDir tmp;
  const std::string log_path = tmp.file("log.h5"), progress = tmp.file("progress.txt");
  WriterProcess writer(log_path, progress);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (linesIn(progress) < 20 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_GE(linesIn(progress), 20u) << "the writer did not start";
  ASSERT_TRUE(writer.running());

  // HDF5's lock holds: a plain read-only open is refused while the writer runs.
  EXPECT_THROW({ experiments::Hdf5RunLog locked(log_path, experiments::Hdf5RunLog::Mode::ReadOnly); },
               std::runtime_error);

  size_t rows = 0;
  const std::string read_error = withRetries([&] {
    const auto table = RunReader(tmp.path().string()).log().readTable("/rows");
    for (size_t i = 0; i < table.rows.size(); ++i) {
      ASSERT_EQ(table.rows[i][0], double(i));
      ASSERT_EQ(table.rows[i][1], double(i) * i);
    }
    rows = table.rows.size();
  });
  EXPECT_EQ(read_error, "");
  EXPECT_GE(rows, 20u) << "every row flushed before the read is seen";

  const std::string report_error = withRetries([&] { analyzeRun(tmp.path().string()); });
  EXPECT_EQ(report_error, "");
  std::ifstream md(tmp.file("report.md"));
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("`/rows` (table, "), std::string::npos) << text;
  EXPECT_TRUE(writer.running()) << "the report was drawn while the run was still writing";
}

}  // namespace
}  // namespace recurlab::analysis
