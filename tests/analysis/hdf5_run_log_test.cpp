#include "common/log/hdf5_run_log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

using testing::TempRoot;

TEST(Hdf5RunLogTest, WritesReopensAppendsAndReadsBack) {
  TempRoot tmp;
  const std::string path = tmp.file("log.h5");
  {
    Hdf5RunLog log(path, Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("variance"));
    log.setAttribute("/", "threads", int64_t{2});
    log.setAttribute("/", "gemm_gflops", 123.5);
    log.createGroup("/trials/3/seeds/1");
    log.setAttribute("trials/3", "lr", 1e-3);
    log.createTable("/trials/3/seeds/1/epochs", {"epoch", "train_loss", "dev_acc"});
    log.appendRow("/trials/3/seeds/1/epochs", {1, 0.9, 0.6});
    log.appendRows("/trials/3/seeds/1/epochs", {{2, 0.7, 0.7}, {3, 0.5, 0.75}});
    log.writeArray("/variance/curve", {1, 2, 3, 4, 5, 6}, {2, 3});
    log.writeText("/config", "{\"a\": 1}");
  }
  EXPECT_THROW(Hdf5RunLog(path, Hdf5RunLog::Mode::Create), std::runtime_error);
  {
    Hdf5RunLog log(path, Hdf5RunLog::Mode::Append);
    log.createTable("/trials/3/seeds/1/epochs", {"epoch", "train_loss", "dev_acc"});  // resume
    EXPECT_THROW(log.createTable("/trials/3/seeds/1/epochs", {"epoch", "loss"}),
                 std::runtime_error);
    log.appendRow("/trials/3/seeds/1/epochs", {4, 0.4, 0.8});
    EXPECT_THROW(log.appendRow("/trials/3/seeds/1/epochs", {5, 0.3}), std::invalid_argument);
    log.writeArray("/variance/curve", {7, 8}, {2});  // replaces the old array
    log.setAttribute("/", "end_time", utcTimestamp());
  }
  const Hdf5RunLog log(path, Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(log.stringAttribute("/", "experiment"), "variance");
  EXPECT_EQ(log.intAttribute("/", "threads"), 2);
  EXPECT_DOUBLE_EQ(log.doubleAttribute("/", "gemm_gflops"), 123.5);
  EXPECT_DOUBLE_EQ(log.doubleAttribute("/trials/3", "lr"), 1e-3);
  EXPECT_FALSE(log.attribute("/", "missing").has_value());
  const auto attrs = log.attributes("/");
  EXPECT_EQ(attrs.size(), 4u);
  EXPECT_TRUE(attrs.count("end_time"));
  EXPECT_EQ(log.children("/"), (std::vector<std::string>{"config", "trials", "variance"}));
  EXPECT_EQ(log.children("/trials/3/seeds/1"), std::vector<std::string>{"epochs"});
  EXPECT_TRUE(log.exists("/trials/3/seeds/1/epochs"));
  EXPECT_FALSE(log.exists("/trials/4/seeds"));

  const Table t = log.readTable("/trials/3/seeds/1/epochs");
  EXPECT_EQ(t.columns, (std::vector<std::string>{"epoch", "train_loss", "dev_acc"}));
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.column("epoch"), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(t.column("dev_acc"), (std::vector<double>{0.6, 0.7, 0.75, 0.8}));
  EXPECT_THROW(t.column("nope"), std::runtime_error);

  std::vector<uint64_t> shape;
  EXPECT_EQ(log.readArray("/variance/curve", &shape), (std::vector<double>{7, 8}));
  EXPECT_EQ(shape, std::vector<uint64_t>{2});
  EXPECT_EQ(log.readText("/config"), "{\"a\": 1}");
}

TEST(Hdf5RunLogTest, OneWriterAtATimeReadersSeeEveryWriteAndAKilledWritersLockIsTakenOver) {
  TempRoot tmp;
  const std::string path = tmp.file("log.h5");
  const std::string lock = path + ".lock";
  {
    Hdf5RunLog writer(path, Hdf5RunLog::Mode::Append);
    writer.createTable("/rows", {"i"});
    writer.appendRow("/rows", {1});
    EXPECT_TRUE(std::filesystem::exists(lock));
    try {
      Hdf5RunLog second(path, Hdf5RunLog::Mode::Append);
      ADD_FAILURE() << "a second writer opened the log";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("another process is writing " + path), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(lock), std::string::npos) << e.what();
    }
    // A reader in the same process opens the file on disk: every write is already there.
    EXPECT_EQ(Hdf5RunLog(path, Hdf5RunLog::Mode::ReadOnly).readTable("/rows").rows.size(), 1u);
    writer.appendRow("/rows", {2});
    EXPECT_EQ(Hdf5RunLog(path, Hdf5RunLog::Mode::ReadOnly).readTable("/rows").rows.size(), 2u);
    EXPECT_FALSE(std::filesystem::exists(path + ".writing"));
  }
  EXPECT_FALSE(std::filesystem::exists(lock));  // removed by the writer that held it
  std::ofstream(lock) << "";                    // as a SIGKILLed writer leaves it: unlocked
  {
    Hdf5RunLog writer(path, Hdf5RunLog::Mode::Append);
    writer.appendRow("/rows", {3});
  }
  EXPECT_FALSE(std::filesystem::exists(lock));
  EXPECT_EQ(Hdf5RunLog(path, Hdf5RunLog::Mode::ReadOnly).readTable("/rows").column("i"),
            (std::vector<double>{1, 2, 3}));
}

TEST(Hdf5RunLogTest, RemoveTakesAGroupWithEverythingUnderItAndNothingElse) {
  TempRoot tmp;
  const std::string path = tmp.file("log.h5");
  {
    Hdf5RunLog log(path, Hdf5RunLog::Mode::Create);
    log.createTable("/units/1/epochs", {"epoch"});
    log.appendRow("/units/1/epochs", {1});
    log.setAttribute("/units/1", "status", std::string("finished"));
    log.createTable("/units/2/epochs", {"epoch"});
    log.remove("/units/1");
    log.remove("/units/7");  // absent: nothing to do
    EXPECT_THROW(log.remove("/"), std::invalid_argument);
  }
  const Hdf5RunLog log(path, Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(log.children("/units"), (std::vector<std::string>{"2"}));
  EXPECT_TRUE(log.exists("/units/2/epochs"));
  Hdf5RunLog reader(path, Hdf5RunLog::Mode::ReadOnly);
  EXPECT_THROW(reader.remove("/units/2"), std::runtime_error);
}

TEST(Hdf5RunLogTest, ErrorsNameTheFileAndObject) {
  TempRoot tmp;
  const std::string path = tmp.file("log.h5");
  { Hdf5RunLog log(path, Hdf5RunLog::Mode::Create); log.setAttribute("/", "n", int64_t{1}); }
  Hdf5RunLog log(path, Hdf5RunLog::Mode::ReadOnly);
  try {
    log.stringAttribute("/", "experiment");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("experiment"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(log.stringAttribute("/", "n"), std::runtime_error);  // wrong type
  try {
    log.readTable("/no/such/table");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/table"), std::string::npos) << e.what();
  }
  EXPECT_THROW(log.setAttribute("/", "x", 1.0), std::runtime_error);  // read-only
  EXPECT_THROW(Hdf5RunLog(tmp.file("absent.h5"), Hdf5RunLog::Mode::ReadOnly), std::runtime_error);
  {
    std::FILE* f = std::fopen(tmp.file("garbage.h5").c_str(), "w");
    std::fputs("not hdf5", f);
    std::fclose(f);
  }
  EXPECT_THROW(Hdf5RunLog(tmp.file("garbage.h5"), Hdf5RunLog::Mode::ReadOnly), std::runtime_error);
}

TEST(Hdf5RunLogTest, AppendCreatesAMissingFile) {
  TempRoot tmp;
  const std::string path = tmp.file("new.h5");
  {
    Hdf5RunLog log(path, Hdf5RunLog::Mode::Append);
    log.createTable("t", {"a"});
    log.appendRow("t", {1.5});
  }
  EXPECT_EQ(Hdf5RunLog(path, Hdf5RunLog::Mode::ReadOnly).readTable("/t").column("a"),
            std::vector<double>{1.5});
}

// The output of recurlab_log_probe (built beside this test binary) run with `args` as
// another process; HDF5 shares its file cache within a process, so only another process
// shows what is on disk.
std::string runLogProbe(const std::string& args) {
  const auto probe =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() / "recurlab_log_probe";
  EXPECT_TRUE(std::filesystem::exists(probe)) << probe << " is not built";
  // The writer holds its flock on the file: this reader does not take one.
  FILE* pipe = ::popen(
      ("HDF5_USE_FILE_LOCKING=FALSE " + probe.string() + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return "popen failed";
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  const int status = ::pclose(pipe);
  if (status != 0) out += " (exit status " + std::to_string(status) + ")";
  return out;
}

TEST(Hdf5RunLogTest, TableSurvivesManyAppendsAcrossChunks) {
  TempRoot tmp;
  const std::string path = tmp.file("log.h5");
  Hdf5RunLog log(path, Hdf5RunLog::Mode::Create);
  log.createTable("/rows", {"i", "square"});
  for (int i = 0; i < 300; ++i) log.appendRow("/rows", {double(i), double(i) * i});
  // The file is flushed after every append: a reader in another process sees all rows, each
  // (i, i²) (the probe checks them), while the writer still holds the file open.
  EXPECT_EQ(runLogProbe("rows " + path + " /rows"), "rows 300\n");
  const Table t = log.readTable("/rows");
  ASSERT_EQ(t.rows.size(), 300u);
  EXPECT_EQ(t.rows[299][1], 299.0 * 299.0);
}

TEST(Hdf5RunLogTest, H5dumpReadsTheFile) {
  RECURLAB_REQUIRE_OR_SKIP(testing::commandAvailable("h5dump") ? "" : "h5dump not installed (hdf5-tools)");
  TempRoot tmp;
  const std::string path = tmp.file("log.h5");
  {
    Hdf5RunLog log(path, Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("speed"));
    log.createTable("/timings", {"length", "seconds"});
    log.appendRow("/timings", {32, 0.01});
    log.writeArray("/a", {1, 2}, {2});
    log.writeText("/config", "{}");
  }
  const std::string out = tmp.file("dump.txt");
  const int rc = std::system(("h5dump " + path + " > " + out + " 2>&1").c_str());
  EXPECT_EQ(rc, 0);
  std::ifstream in(out);
  const std::string dump((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(dump.find("\"seconds\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"speed\""), std::string::npos) << dump;
}

}  // namespace
}  // namespace recurlab::experiments
