// Every config committed under configs/<experiment>/ is accepted whole by its task's program
// (`recurlab_<experiment> --config FILE --print-config`: every key checked, every model built
// where the task builds them when it reads the config), before any data is looked for. A config
// that only a long reference run reads would otherwise fail hours into a session.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace {

namespace fs = std::filesystem;

using recurlab::testing::fileText;

TEST(CommittedConfigs, EveryConfigIsAcceptedByItsProgram) {
  const fs::path tmp = recurlab::testing::perProcessTempPath("recurlab_configs_");
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  int checked = 0;
  for (const auto& folder : fs::directory_iterator("configs")) {
    if (!folder.is_directory()) continue;
    const std::string experiment = folder.path().filename().string();
    const std::string program = recurlab::testing::siblingBinary("recurlab_" + experiment);
    ASSERT_TRUE(fs::exists(program)) << "configs/" << experiment << "/ has no program " << program;
    for (const auto& file : fs::directory_iterator(folder.path())) {
      if (file.path().extension() != ".json") continue;
      SCOPED_TRACE(file.path().string());
      const fs::path output = tmp / (experiment + "-" + file.path().stem().string() + ".txt");
      const auto result = recurlab::testing::runChild(
          program,
          {"--config", file.path().string(), "--data-dir", (tmp / "no-data").string(),
           "--print-config"},
          "", -1, output.string());
      const std::string text = fileText(output);
      ASSERT_EQ(result.exit_code, 0) << text;
      // The printed config is the file's, checked: same experiment, same models.
      const auto printed = nlohmann::json::parse(text.substr(text.find('{')));
      const auto committed = nlohmann::json::parse(fileText(file.path()));
      EXPECT_EQ(printed.at("experiment"), experiment);
      EXPECT_EQ(printed.at("models").size(), committed.at("models").size());
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);  // the configs of classification, lm, mt and qa at least
  fs::remove_all(tmp);
}

}  // namespace
