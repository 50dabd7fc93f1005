// recurlab_mt's command line: every model key reachable by --set and checked before any data
// is read or subword model trained.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

using recurlab::testing::fileText;

TEST(MtDriver, ABadModelKeyFailsBeforeTheDataAndTheSubwordModel) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_mt");
  ASSERT_TRUE(fs::exists(program)) << program << " is built with the tests";
  const fs::path tmp = recurlab::testing::perProcessTempPath("recurlab_mt_driver_");
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string out = (tmp / "run").string(), output = (tmp / "output.txt").string();
  // No data folder at all: the config is refused before the data is looked for.
  const auto bad = runChild(program,
                            {"--config", "configs/mt/quick.json", "--data-dir",
                             (tmp / "no-data").string(), "--out", out, "--set",
                             "models.transformer_sru.config.heads=0"},
                            "", -1, output);
  EXPECT_EQ(bad.exit_code, 2);
  const std::string text = fileText(output);
  EXPECT_NE(text.find("models.transformer_sru.config"), std::string::npos) << text;
  EXPECT_NE(text.find("heads"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(out)) << "nothing is written for a refused config";
  // A good key set the same way gets past the config to the data check.
  fs::remove(output);
  const auto good = runChild(program,
                             {"--config", "configs/mt/quick.json", "--data-dir",
                              (tmp / "no-data").string(), "--out", out, "--set",
                              "models.transformer_sru.config.heads=2"},
                             "", -1, output);
  EXPECT_EQ(good.exit_code, 2);
  EXPECT_NE(fileText(output).find("scripts/get-data.sh multi30k"), std::string::npos)
      << fileText(output);
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(tmp);
}

}  // namespace
