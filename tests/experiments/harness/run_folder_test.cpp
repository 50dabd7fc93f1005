// RunFolder on a folder whose logs were damaged between two runs: resuming stops with an error
// that names the file, says what is wrong and what to do, and leaves the file as it was; a
// damaged log of another worker (shard) is reported too, not taken for a shard with nothing
// finished (which would run its units again).
// Resuming a unit cut off mid-way says what becomes of it.
#include "experiments/harness/run_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/runtime/machine_info.h"
#include "experiments/training/checkpoint_store.h"
#include "tests/support/temp_root.h"
#include "tests/support/unprivileged_child.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

class RunFolderDamagedLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = recurlab::testing::perProcessTempPath(
        "recurlab-run-folder-",
        std::string("-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    options_.out_dir = dir_.string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  void open(const Shard& shard = {}) {
    RunFolder folder(options_, shard, "test", config_, 7, MachineInfo{});
  }
  // Runs `open` and returns the message of the std::runtime_error it must throw.
  std::string errorOfOpen(const Shard& shard = {}) {
    try {
      open(shard);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    ADD_FAILURE() << "RunFolder opened a folder with a damaged log";
    return "";
  }

  fs::path dir_;
  RunFolderOptions options_{"toy"};
  nlohmann::json config_ = {{"epochs", 3}};
};

TEST_F(RunFolderDamagedLogTest, ResumingFromATruncatedLogNamesItAndLeavesItAlone) {
  open();
  const std::string log = (dir_ / "log.h5").string();
  fs::resize_file(log, fs::file_size(log) / 2);
  const auto size = fs::file_size(log);
  const std::string msg = errorOfOpen();
  EXPECT_NE(msg.find("cannot resume: this run's log " + log + " is a corrupt HDF5 file"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("--force-new"), std::string::npos) << msg;
  EXPECT_EQ(fs::file_size(log), size);  // nothing rewritten, nothing deleted
}

TEST_F(RunFolderDamagedLogTest, ResumingFromAnOverwrittenLogSaysItIsNotHdf5) {
  open();
  const std::string log = (dir_ / "log.h5").string();
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.write("#!/bin/sh\necho not a log\n", 25);
  }
  const std::string msg = errorOfOpen();
  EXPECT_NE(msg.find(log + " is not an HDF5 file"), std::string::npos) << msg;
}

// Resumed as nobody, the folder's owner (in a forked child when the tests run as root).
TEST_F(RunFolderDamagedLogTest, ResumingFromAnUnreadableLogSaysSo) {
  open();
  const std::string log = (dir_ / "log.h5").string();
  recurlab::testing::giveToUnprivileged(dir_);
  fs::permissions(log, fs::perms::none);
  const std::string msg = recurlab::testing::inUnprivilegedChild([&] {
    try {
      open();
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("RunFolder opened a folder with an unreadable log");
  });
  fs::permissions(log, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_NE(msg.find(log + " is unreadable"), std::string::npos) << msg;
  EXPECT_NE(msg.find("chmod u+rw"), std::string::npos) << msg;
}

TEST_F(RunFolderDamagedLogTest, ACorruptLogOfAnotherShardIsReportedByName) {
  open(Shard{1, 2});
  const std::string other = (dir_ / "log.shard-1-of-2.h5").string();
  fs::resize_file(other, fs::file_size(other) / 2);
  const std::string msg = errorOfOpen(Shard{0, 2});
  EXPECT_NE(msg.find("the log of another worker " + other + " is a corrupt HDF5 file"),
            std::string::npos) << msg;
}

// A unit that a kill cut off mid-way: resuming says whether it goes on from its checkpoint or,
// with none left (deleted, or the folder copied without them), trains again from the start, and
// how many logged epochs that replaces; the cut-off group leaves the log either way.
using RunFolderCutOffUnitTest = RunFolderDamagedLogTest;

TEST_F(RunFolderCutOffUnitTest, SaysWhetherAUnitGoesOnFromItsCheckpointOrStartsOver) {
  {
    RunFolder folder(options_, {}, "test", config_, 7, MachineInfo{});
    for (const std::string g : {"/with", "/without"}) {
      folder.log().createGroup(g);
      folder.log().createTable(g + "/epochs", {"epoch", "loss"});
      folder.log().appendRows(g + "/epochs", {{1, 2.0}, {2, 1.5}, {3, 1.2}});
    }
  }
  const CheckpointStore with(unitCheckpointDir(dir_.string(), "/with"));
  with.commit("last", [](const std::string& path) { std::ofstream(path) << "weights"; });
  const CheckpointStore without(unitCheckpointDir(dir_.string(), "/without"));

  ::testing::internal::CaptureStderr();
  {
    RunFolder folder(options_, {}, "test", config_, 7, MachineInfo{}, [](const Hdf5RunLog&) {
      return std::vector<std::string>{"/with", "/without"};
    });
    EXPECT_FALSE(folder.log().exists("/with"));
    EXPECT_FALSE(folder.log().exists("/without"));
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("resume: /with was cut off mid-way; it goes on from its last checkpoint " +
                     with.path("last") + "\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("resume: /without was cut off mid-way and has no checkpoint (" +
                     without.path("last") +
                     " is missing): it trains again from the start, replacing the 3 epochs "
                     "the log held\n"),
            std::string::npos)
      << err;
}

// Resumed on another kind of machine (another OpenBLAS core), the run says that what trains
// there will not repeat the first machine's numbers bit for bit; on the same kind, nothing.
TEST_F(RunFolderCutOffUnitTest, ResumingOnAnotherKindOfMachineSaysSo) {
  MachineInfo intel, amd;
  intel.device = amd.device = "cpu";
  intel.blas_core = "Cooperlake";
  amd.blas_core = "Zen";
  { RunFolder folder(options_, {}, "test", config_, 7, intel); }
  ::testing::internal::CaptureStderr();
  { RunFolder folder(options_, {}, "test", config_, 7, intel); }
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("another kind of machine"),
            std::string::npos);
  ::testing::internal::CaptureStderr();
  { RunFolder folder(options_, {}, "test", config_, 7, amd); }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("resume: this run was last written on another kind of machine (blas_core "
                     "Cooperlake; here Zen): what trains here will not repeat bit for bit"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace recurlab::experiments
