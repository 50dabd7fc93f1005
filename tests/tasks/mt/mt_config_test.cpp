// The MT config: the committed configs parse; unknown keys and bad values name the key.
#include "tasks/mt/mt_config.h"

#include <gtest/gtest.h>

#include "experiments/harness/experiment_command_line.h"
#include "tasks/mt/mt_train_options.h"

using namespace recurlab::experiments;

namespace {
nlohmann::json minimal() {
  return nlohmann::json::parse(R"({
    "data": {"train": ["a.en", "a.de"], "valid": ["b.en", "b.de"], "test": ["c.en", "c.de"]},
    "models": {"t": {"model": "transformer"}}
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
  j["decode"] = {{"length_penalty", "average"}};
  EXPECT_NE(errorOf(j).find("length_penalty"), std::string::npos) << errorOf(j);
  EXPECT_EQ(MtDecodeOptions::fromJson({{"length_penalty", "fairseq"}}, "decode").length_penalty,
            recurlab::models::LengthPenalty::Fairseq);
  j = minimal();
  j["train"] = {{"label_smoothing", 1.5}};
  EXPECT_NE(errorOf(j).find("label_smoothing"), std::string::npos) << errorOf(j);
  j = minimal();
  j["models"]["t"]["model"] = "transformr";
  EXPECT_NE(errorOf(j).find("models.t"), std::string::npos) << errorOf(j);
  EXPECT_NE(errorOf(j).find("transformer_sru"), std::string::npos) << errorOf(j);  // the known
  j = minimal();
  j["models"] = nlohmann::json::array({{{"name", "t"}, {"model", "transformer"}}});
  EXPECT_NE(errorOf(j).find("name -> {"), std::string::npos) << errorOf(j);
  j = minimal();
  j["models"]["t"]["train"] = {{"beta2", 0.998}, {"max_tokens", 2048}};
  const auto c = MtConfig::fromJson(j);
  const auto t = MtTrainOptions::fromJson(c.unitTemplate(c.models[0]).at("train"), "x");
  EXPECT_DOUBLE_EQ(t.optimizer.beta2, 0.998);
  EXPECT_EQ(t.max_tokens, 2048);
}

// A model's own keys are checked when the config is read (the model is built at the
// configured vocabulary size), not once the data and the subword model are ready.
TEST(MtConfig, ModelKeysAreCheckedWithTheConfig) {
  auto j = minimal();
  j["models"]["t"]["config"] = {{"d_modle", 16}};
  EXPECT_NE(errorOf(j).find("models.t.config"), std::string::npos) << errorOf(j);
  EXPECT_NE(errorOf(j).find("d_modle"), std::string::npos) << errorOf(j);
  j["models"]["t"]["config"] = {{"heads", 0}};
  EXPECT_NE(errorOf(j).find("heads"), std::string::npos) << errorOf(j);
  // --set reaches every key of a model in the map.
  auto committed = readJsonFile("configs/mt/quick.json");
  applyOverride(committed, "models.transformer_sru.config.d_model=64");
  EXPECT_EQ(MtConfig::fromJson(committed).model("transformer_sru").config.at("d_model"), 64);
  applyOverride(committed, "models.transformer_sru.config.ffn_hiden=64");
  EXPECT_NE(errorOf(committed).find("ffn_hiden"), std::string::npos) << errorOf(committed);
}
