// recurlab_variance as a user runs it: a small study (--quick, 2 layers) writes its log with the
// finished status and a report; run again into the same folder it does not run again; the same
// seed gives the same tables; an option it cannot honour (--shard) is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/log/hdf5_run_log.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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
  ASSERT_EQ(first.exit_code, 0) << readFile(output);
  const auto log_path = tmp.root / "a" / "log.h5";
  ASSERT_TRUE(fs::exists(log_path));
  std::string tables_a;
  {
    Hdf5RunLog log(log_path.string(), Hdf5RunLog::Mode::ReadOnly);
    EXPECT_EQ(log.stringAttribute("/variance", "status"), "finished");
    describe(log, "/", tables_a);
  }
  EXPECT_NE(tables_a.find("sru"), std::string::npos) << tables_a;
  EXPECT_NE(tables_a.find("glu"), std::string::npos) << tables_a;
  EXPECT_TRUE(fs::exists(tmp.root / "a" / "report.md"));

  fs::remove(output);
  const auto again = recurlab::testing::runChild(program, args("a"), "", -1, output);
  EXPECT_EQ(again.exit_code, 0) << readFile(output);
  EXPECT_NE(readFile(output).find("already holds this run's study"), std::string::npos)
      << readFile(output);

  ASSERT_EQ(recurlab::testing::runChild(program, args("b"), "", -1, output).exit_code, 0)
      << readFile(output);
  std::string tables_b;
  describe(Hdf5RunLog((tmp.root / "b" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly), "/",
           tables_b);
  EXPECT_EQ(tables_a, tables_b);

  fs::remove(output);
  auto sharded = args("c");
  sharded.insert(sharded.end(), {"--shard", "0/2"});
  const auto refused = recurlab::testing::runChild(program, sharded, "", -1, output);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(readFile(output).find("--shard: the variance study is one unit of one process"),
            std::string::npos)
      << readFile(output);
}

}  // namespace
}  // namespace recurlab::experiments
