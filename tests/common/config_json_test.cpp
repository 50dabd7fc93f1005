// The UTF-8 check of command-line text and --set (common/config_json.h): bytes a
// JSON config cannot hold give an error naming the option and the byte offset at parse time,
// not a JSON library exception when the config is written into the log after the data loaded.
#include "common/config_json.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

TEST(Utf8Check, FindsTheFirstByteThatIsNotWellFormedUtf8) {
  EXPECT_EQ(firstInvalidUtf8(""), std::nullopt);
  EXPECT_EQ(firstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(firstInvalidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), std::nullopt);  // é € 😀
  EXPECT_EQ(firstInvalidUtf8("caf\xE9"), 3u);               // Latin-1 é
  EXPECT_EQ(firstInvalidUtf8("ab\x80"), 2u);                // a lone continuation byte
  EXPECT_EQ(firstInvalidUtf8("\xC0\xAF"), 0u);              // overlong '/'
  EXPECT_EQ(firstInvalidUtf8("x\xE0\x80\xAF"), 1u);         // overlong 3-byte
  EXPECT_EQ(firstInvalidUtf8("\xED\xA0\x80"), 0u);          // a UTF-16 surrogate
  EXPECT_EQ(firstInvalidUtf8("\xF4\x90\x80\x80"), 0u);      // above U+10FFFF
  EXPECT_EQ(firstInvalidUtf8("ok\xE2\x82"), 2u);            // cut off mid-character
  EXPECT_EQ(firstInvalidUtf8("\xFF"), 0u);
}

TEST(Utf8Check, SetWithALatin1ValueNamesTheOptionAndTheOffset) {
  nlohmann::json config = nlohmann::json::object();
  try {
    applyOverride(config, "data.name=caf\xE9");
    FAIL() << "a non-UTF-8 --set was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--set 'data.name=caf\\xE9' is not valid UTF-8: byte 0xE9 at offset 13"),
              std::string::npos) << msg;
  }
  EXPECT_EQ(config, nlohmann::json::object());  // nothing half-applied
  // The same value in UTF-8 is fine, and the config can be written out.
  applyOverride(config, "data.name=caf\xC3\xA9");
  EXPECT_NO_THROW(config.dump());
}

TEST(Utf8Check, NonUtf8PathOptionIsRefusedAtParseTime) {
  std::vector<std::string> args = {"recurlab_exp", "--config", "", "--data-dir",
                                   "/tmp/d\xFFta"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    parseExperimentCommandLine(static_cast<int>(argv.size()), argv.data(), {"exp", "", "", {}});
    FAIL() << "a non-UTF-8 --data-dir was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--data-dir '/tmp/d\\xFFta' is not valid UTF-8: byte 0xFF at offset 6"),
              std::string::npos) << msg;
  }
  args = {"recurlab_exp", "--config", "", "--set", "a=1", "--set", "b=\xC3"};
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  try {
    parseExperimentCommandLine(static_cast<int>(argv.size()), argv.data(), {"exp", "", "", {}});
    FAIL() << "a non-UTF-8 --set was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--set (its 2. value) 'b=\\xC3' is not valid UTF-8: byte 0xC3 at offset 2"),
              std::string::npos) << msg;
  }
}

// Found by fuzz/config_fuzzer: a number beyond a 64-bit float made nlohmann::json throw
// out_of_range (not parse_error), which escaped as a JSON library exception.
TEST(ConfigJson, OutOfRangeNumberInSetOrFileIsANamedError) {
  nlohmann::json config = nlohmann::json::object();
  try {
    applyOverride(config, "train.lr=1e400");
    FAIL() << "1e400 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--set 'train.lr=1e400': the value is out of range"),
              std::string::npos) << e.what();
  }
  const recurlab::testing::TempRoot temp;
  const std::string path = temp.file("config-1e400.json");
  {
    std::ofstream out(path);
    out << "{\"train\": {\"lr\": 1e400}}";
  }
  try {
    readJsonFile(path);
    FAIL() << "1e400 in a config file was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("config file " + path + ": a number is out of range"),
              std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace recurlab::experiments
