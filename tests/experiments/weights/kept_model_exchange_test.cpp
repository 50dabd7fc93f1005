// A kept model exported from its folder alone: the encoder's parameters under the PyTorch
// reference's names (an SRU classifier's "encoder.rnn_lst.0.weight"), the rest under recurlab's;
// the file imported back without --model gives weights.pt again, and a kept model with those
// weights labels sentences as the original does (the same logits, bit for bit).
#include "experiments/weights/kept_model_exchange.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <sstream>
#include <tuple>
#include <vector>

#include "tasks/classification/classify_command.h"
#include "experiments/kept_model/kept_model.h"
#include "experiments/weights/weights_command.h"
#include "models/heads/pooling.h"
#include "models/registry.h"
#include "tests/experiments/kept_model/kept_model_test_support.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments::weights {
namespace {

namespace fs = std::filesystem;

// An untrained classifier over the registry's `encoder`, kept as a run keeps it (random weights
// are as good a test).
std::string writeKeptClassifier(const fs::path& dir, const std::string& encoder,
                                const nlohmann::json& encoder_config, int64_t embed_dim) {
  torch::manual_seed(7);
  Vocabulary vocabulary;
  for (const char* w : {"a", "film", "plot", "great", "dull"}) vocabulary.add(w);
  models::TextClassifierOptions head;
  head.vocab_size = vocabulary.size();
  head.embed_dim = embed_dim;
  head.num_classes = 3;
  head.pooling = models::choosePooling("auto", encoder, encoder_config);
  models::TextClassifier model(head, models::makeEncoder(encoder, encoder_config, embed_dim));
  KeptModelSpec spec;
  spec.task = "classification";
  spec.model = encoder;
  spec.unit = "/toy/" + encoder;
  spec.metric = "test_acc";
  spec.config = {{"encoder", encoder}, {"config", encoder_config}, {"pooling", "auto"},
                 {"embed_dim", embed_dim}, {"classes", 3}, {"vocabulary", vocabulary.size()},
                 {"batch_size", 4}, {"dataset", "toy"}};
  spec.module = model.get();
  spec.files.push_back({kClassifierVocabularyFile, [&](const std::string& path) {
                          writeVocabularyFile(vocabulary, path);
                        }});
  writeKeptModel(dir.string(), spec);
  return dir.string();
}

std::string writeKeptSruClassifier(const fs::path& dir) {
  return writeKeptClassifier(dir, "sru", {{"layers", 2}, {"hidden", 4}, {"bidirectional", true}},
                             5);
}

torch::Tensor logitsOf(const std::string& dir) {
  auto classifier = loadKeptClassifier(dir);
  torch::NoGradGuard no_grad;
  const auto tokens = torch::tensor({2, 3, 4, 5, 6, 2, 1, 0}, torch::kLong).view({4, 2});
  const auto pad = tokens.eq(0);
  const auto lengths = torch::tensor({4, 3}, torch::kLong);
  return classifier.model->forward(tokens, pad, lengths);
}

int runCommand(const std::vector<std::string>& args, std::string* said) {
  std::ostringstream out, err;
  const int status = runWeightsCommand(args, out, err);
  *said = out.str() + err.str();
  return status;
}

TEST(KeptModelExchange, ExportFromTheFolderAloneThenImportGivesTheSameModel) {
  testing::TempRoot temp("recurlab_kept_exchange");
  const std::string kept = writeKeptSruClassifier(temp.root / "kept");
  const std::string file = (temp.root / "kept.safetensors").string();
  std::string said;
  ASSERT_EQ(runCommand({"export", kept, file}, &said), 0) << said;
  const auto contents = readSafetensors(file);
  // Reference names for the encoder, recurlab's for the rest; the kept config travels along.
  EXPECT_NE(contents.find("encoder.rnn_lst.0.weight"), nullptr);
  EXPECT_NE(contents.find("encoder.rnn_lst.1.weight_c"), nullptr);
  EXPECT_EQ(contents.find("encoder.sru.rnn_lst.0.weight"), nullptr);
  EXPECT_NE(contents.find("embedding.weight"), nullptr);
  EXPECT_EQ(contents.metadata.at("kept_model_task"), "classification");
  EXPECT_EQ(nlohmann::json::parse(contents.metadata.at("kept_model_config")).at("embed_dim"), 5);

  const std::string archive = (temp.root / "weights.pt").string();
  ASSERT_EQ(runCommand({"import", file, archive}, &said), 0) << said;
  const std::string copy = (temp.root / "copy").string();
  fs::copy(kept, copy);
  recurlab::testing::replaceKeptFile(copy, "weights.pt", recurlab::testing::fileText(archive));
  const auto original = logitsOf(kept), imported = logitsOf(copy);
  ASSERT_EQ(original.sizes(), imported.sizes());
  EXPECT_TRUE(torch::equal(original, imported)) << original << "\n" << imported;
}

// The linear recurrences' kept classifiers: the encoder under its reference's names behind
// "encoder." (docs/weights.md), and back to the same logits.
TEST(KeptModelExchange, LinearRecurrenceClassifiersExportUnderTheirReferencesNames) {
  const std::vector<std::tuple<std::string, nlohmann::json, std::string>> cases = {
      {"min_gru", {{"layers", 2}, {"hidden", 6}, {"log_space", true}},
       "encoder.layers.1.to_hidden_and_gate.weight"},
      {"hgrn", {{"layers", 2}, {"hidden", 6}, {"norm", "gated_rms"}, {"bias", false}},
       "encoder.layers.0.f_proj.weight"},
      {"gla", {{"layers", 2}, {"hidden", 6}, {"heads", 2}, {"expand_k", 1.0}},
       "encoder.layers.1.attn.gk_proj.0.weight"},
      {"rg_lru", {{"layers", 2}, {"hidden", 6}}, "encoder.layers.1.recurrent_block.rg_lru.a_param"}};
  for (const auto& [encoder, config, reference_name] : cases) {
    SCOPED_TRACE(encoder);
    testing::TempRoot temp("recurlab_kept_exchange_" + encoder);
    const std::string kept = writeKeptClassifier(temp.root / "kept", encoder, config, 6);
    const std::string file = (temp.root / "kept.safetensors").string();
    std::string said;
    ASSERT_EQ(runCommand({"export", kept, file}, &said), 0) << said;
    const auto contents = readSafetensors(file);
    EXPECT_NE(contents.find(reference_name), nullptr);
    EXPECT_NE(contents.find("embedding.weight"), nullptr);
    const std::string archive = (temp.root / "weights.pt").string();
    ASSERT_EQ(runCommand({"import", file, archive}, &said), 0) << said;
    const std::string copy = (temp.root / "copy").string();
    fs::copy(kept, copy);
    recurlab::testing::replaceKeptFile(copy, "weights.pt", recurlab::testing::fileText(archive));
    EXPECT_TRUE(torch::equal(logitsOf(kept), logitsOf(copy)));
  }
}

TEST(KeptModelExchange, ModelOptionsOrAConfigThatDoesNotFitTheWeightsAreRefused) {
  testing::TempRoot temp("recurlab_kept_exchange_bad");
  const std::string kept = writeKeptSruClassifier(temp.root / "kept");
  std::string said;
  EXPECT_EQ(runCommand({"export", kept, (temp.root / "x.safetensors").string(), "--model", "sru"},
                       &said),
            2);
  EXPECT_NE(said.find("export it without --model"), std::string::npos) << said;
  auto config = recurlab::testing::readJsonAt(kept + "/config.json");
  config["config"]["hidden"] = 5;  // the weights no longer fit the encoder the config names
  recurlab::testing::replaceKeptFile(kept, "config.json", config.dump());
  EXPECT_EQ(runCommand({"export", kept, (temp.root / "x.safetensors").string()}, &said), 2);
  EXPECT_NE(said.find(kept + "/weights.pt (its encoder)"), std::string::npos) << said;
}

}  // namespace
}  // namespace recurlab::experiments::weights
