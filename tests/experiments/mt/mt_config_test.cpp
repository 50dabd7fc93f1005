// The MT config: the committed configs parse; unknown keys and bad values name the key.
#include "experiments/mt/mt_config.h"

#include <gtest/gtest.h>

#include "experiments/config/experiment_command_line.h"
#include "experiments/mt/mt_train_options.h"

using namespace recurlab::experiments;

namespace {
nlohmann::json minimal() {
  return nlohmann::json::parse(R"({
    "data": {"train": ["a.en", "a.de"], "valid": ["b.en", "b.de"], "test": ["c.en", "c.de"]},
    "models": [{"name": "t", "model": "transformer"}]
  })");
}
std::string errorOf(const nlohmann::json& j) {
  try {
    MtConfig::fromJson(j);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(MtConfig, CommittedConfigsParse) {
  for (const char* path : {"configs/mt/quick.json", "configs/mt/multi30k.json"}) {
    const auto c = MtConfig::fromJson(readJsonFile(path));
    EXPECT_FALSE(c.models.empty()) << path;
    for (const auto& m : c.models) {
      const auto unit = c.unitTemplate(m);
      const auto train = MtTrainOptions::fromJson(unit.at("train"), path);
      EXPECT_GT(train.max_tokens, 0);
    }
  }
  const auto full = MtConfig::fromJson(readJsonFile("configs/mt/multi30k.json"));
  EXPECT_EQ(MtDecodeOptions::fromJson(full.decode, "decode").average_last, 10);
  EXPECT_EQ(MtDecodeOptions::fromJson(full.decode, "decode").beam, 5);
}

TEST(MtConfig, BadKeysAndValuesNameTheKey) {
  auto j = minimal();
  EXPECT_EQ(errorOf(j), "");
  j["data"]["tset"] = 1;
  EXPECT_NE(errorOf(j).find("tset"), std::string::npos) << errorOf(j);
  j = minimal();
  j["data"]["train"] = "a.en";
  EXPECT_NE(errorOf(j).find("'train'"), std::string::npos) << errorOf(j);
  j = minimal();
  j["decode"] = {{"beam", 0}};
  EXPECT_NE(errorOf(j).find("beam"), std::string::npos) << errorOf(j);
  j = minimal();
  j["train"] = {{"label_smoothing", 1.5}};
  EXPECT_NE(errorOf(j).find("label_smoothing"), std::string::npos) << errorOf(j);
  j = minimal();
  j["models"].push_back({{"name", "t"}, {"model", "convs2s"}});
  EXPECT_NE(errorOf(j).find("used twice"), std::string::npos) << errorOf(j);
  j = minimal();
  j["models"][0]["train"] = {{"beta2", 0.998}, {"max_tokens", 2048}};
  const auto c = MtConfig::fromJson(j);
  const auto t = MtTrainOptions::fromJson(c.unitTemplate(c.models[0]).at("train"), "x");
  EXPECT_DOUBLE_EQ(t.optimizer.beta2, 0.998);
  EXPECT_EQ(t.max_tokens, 2048);
}
