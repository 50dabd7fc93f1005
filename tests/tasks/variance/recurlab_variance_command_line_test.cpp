// recurlab_variance as a user runs it: a small study (--quick, 2 layers) writes its log with the
// finished status and a report; run again into the same folder it does not run again; the same
// seed gives the same tables; two shards run one study each; --nproc-per-node is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/log/hdf5_run_log.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

using recurlab::testing::fileText;

// Every table under `group` as text, without timing columns.
void describe(const Hdf5RunLog& log, const std::string& group, std::string& out) {
  std::vector<std::string> names;
  try {
    names = log.children(group);
  } catch (const std::exception&) {
    Table t;
    try {
      t = log.readTable(group);
    } catch (const std::exception&) {
      return;  // an array or a text, not a table
    }
    out += group + ":";
    for (const auto& row : t.rows)
      for (size_t j = 0; j < row.size(); ++j)
        if (t.columns[j].find("second") == std::string::npos) out += " " + std::to_string(row[j]);
    out += "\n";
    return;
  }
  for (const auto& n : names) describe(log, (group == "/" ? "" : group) + "/" + n, out);
}

TEST(RecurlabVarianceCommandLine, SmallStudyLogsReportsAndResumes) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_variance");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  recurlab::testing::TempRoot tmp("recurlab_variance_cli");
  const std::string output = (tmp.root / "output.txt").string();
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"--quick", "--set", "sru.layers=2", "--set", "glu.layers=2",
                                    "--set", "sru.inputs=[\"iid\"]", "--threads", "1",
                                    "--out", (tmp.root / out).string()};
  };
  const auto first = recurlab::testing::runChild(program, args("a"), "", -1, output);
  ASSERT_EQ(first.exit_code, 0) << fileText(output);
  const auto log_path = tmp.root / "a" / "log.h5";
  ASSERT_TRUE(fs::exists(log_path));
  std::string tables_a;
  {
    Hdf5RunLog log(log_path.string(), Hdf5RunLog::Mode::ReadOnly);
    // One unit per study, each finished by the runner.
    EXPECT_EQ(log.stringAttribute("/variance/sru/iid", "status"), "finished");
    EXPECT_EQ(log.stringAttribute("/variance/glu", "status"), "finished");
    describe(log, "/", tables_a);
  }
  EXPECT_NE(tables_a.find("sru"), std::string::npos) << tables_a;
  EXPECT_NE(tables_a.find("glu"), std::string::npos) << tables_a;
  EXPECT_TRUE(fs::exists(tmp.root / "a" / "report.md"));

  fs::remove(output);
  const auto again = recurlab::testing::runChild(program, args("a"), "", -1, output);
  EXPECT_EQ(again.exit_code, 0) << fileText(output);
  EXPECT_NE(fileText(output).find("resume: 2 of 2 units already finished"), std::string::npos)
      << fileText(output);

  ASSERT_EQ(recurlab::testing::runChild(program, args("b"), "", -1, output).exit_code, 0)
      << fileText(output);
  std::string tables_b;
  describe(Hdf5RunLog((tmp.root / "b" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly), "/",
           tables_b);
  EXPECT_EQ(tables_a, tables_b);

  // The studies are units of the runner: two shards run one study each, and together they
  // hold the tables of one process.
  for (const char* shard : {"0/2", "1/2"}) {
    auto sharded = args("c");
    sharded.insert(sharded.end(), {"--shard", shard});
    ASSERT_EQ(recurlab::testing::runChild(program, sharded, "", -1, output).exit_code, 0)
        << fileText(output);
  }
  for (const char* shard_log : {"log.shard-0-of-2.h5", "log.shard-1-of-2.h5"}) {
    Hdf5RunLog log((tmp.root / "c" / shard_log).string(), Hdf5RunLog::Mode::ReadOnly);
    EXPECT_EQ(log.children("/variance").size(), 1u) << shard_log << ": one study per shard";
  }
  // An option it cannot honour: one study cannot be split across data-parallel ranks.
  fs::remove(output);
  auto ranks = args("d");
  ranks.insert(ranks.end(), {"--nproc-per-node", "2"});
  const auto refused = recurlab::testing::runChild(program, ranks, "", -1, output);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(fileText(output).find("data-parallel training (--nproc-per-node, WORLD_SIZE) is not "
                                  "available for variance"),
            std::string::npos)
      << fileText(output);
}

}  // namespace
}  // namespace recurlab::experiments
