// diagnoseLogFile on real run logs, damaged the ways disks and people damage them: cut to half
// (a full disk, a copy cut off), the header overwritten, emptied, made unreadable, and one that
// another process holds open (not a fault).
#include "common/log/log_file_check.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"
#include "tests/support/unprivileged_child.h"

namespace recurlab {
namespace {

namespace fs = std::filesystem;

class LogFileCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = recurlab::testing::perProcessTempPath(
        "recurlab-log-check-",
        std::string("-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "log.h5").string();
    experiments::Hdf5RunLog log(path_, experiments::Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("toy"));
    log.createTable("/units/u0/epochs", {"epoch", "loss"});
    for (int e = 0; e < 300; ++e) log.appendRow("/units/u0/epochs", {double(e), 1.0 / (e + 1)});
    log.writeText("/units/u0/config", std::string(2000, 'x'));
  }
  void TearDown() override {
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(LogFileCheckTest, IntactLogIsReadable) {
  EXPECT_EQ(diagnoseLogFile(path_).state, LogFileState::Readable);
  EXPECT_EQ(logFileProblem(path_, diagnoseLogFile(path_), "this run's log"), "");
  EXPECT_EQ(diagnoseLogFile((dir_ / "absent.h5").string()).state, LogFileState::Missing);
}

TEST_F(LogFileCheckTest, LogCutToHalfIsCorruptAndTheMessageSaysWhatToDo) {
  const auto size = fs::file_size(path_);
  fs::resize_file(path_, size / 2);
  const LogFileDiagnosis d = diagnoseLogFile(path_);
  EXPECT_EQ(d.state, LogFileState::Corrupt) << d.detail;
  EXPECT_NE(d.detail.find("truncated"), std::string::npos) << d.detail;
  const std::string msg = logFileProblem(path_, d, "this run's log");
  for (const std::string& part : {path_, std::string("corrupt HDF5 file"), std::string("mv '"),
                                 std::string("--force-new")})
    EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' missing from: " << msg;
}

TEST_F(LogFileCheckTest, OverwrittenHeaderOrEmptyFileIsNotHdf5) {
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.write("garbage garbage garbage garbage!", 32);
  }
  LogFileDiagnosis d = diagnoseLogFile(path_);
  EXPECT_EQ(d.state, LogFileState::NotHdf5) << d.detail;
  EXPECT_NE(logFileProblem(path_, d, "x").find("is not an HDF5 file"), std::string::npos);
  fs::resize_file(path_, 0);
  d = diagnoseLogFile(path_);
  EXPECT_EQ(d.state, LogFileState::NotHdf5);
  EXPECT_EQ(d.detail, "the file is empty");
}

// Checked as nobody (in a forked child when the tests run as root, as CI does).
TEST_F(LogFileCheckTest, PermissionDeniedIsUnreadable) {
  fs::permissions(path_, fs::perms::none);
  const std::string said = recurlab::testing::inUnprivilegedChild([&] {
    const LogFileDiagnosis d = diagnoseLogFile(path_);
    return std::string(d.state == LogFileState::Unreadable ? "unreadable" : "not unreadable") +
           ": " + logFileProblem(path_, d, "x");
  });
  EXPECT_EQ(said.rfind("unreadable: ", 0), 0u) << said;
  EXPECT_NE(said.find("is unreadable (Permission denied)"), std::string::npos) << said;
}

// HDF5 locks a log its writer holds open (flock); a reader then fails to open it, which is not
// damage: the harness skips such a log (another worker is writing it).
TEST_F(LogFileCheckTest, LogHeldByAnotherWriterIsLockedNotCorrupt) {
  const int fd = ::open(path_.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const LogFileDiagnosis d = diagnoseLogFile(path_);
  ::close(fd);
  EXPECT_EQ(d.state, LogFileState::Locked) << d.detail;
  EXPECT_EQ(logFileProblem(path_, d, "x"), "");
  EXPECT_EQ(diagnoseLogFile(path_).state, LogFileState::Readable);
}

}  // namespace
}  // namespace recurlab
