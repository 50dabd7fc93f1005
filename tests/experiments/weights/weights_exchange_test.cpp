// Weights exchange with PyTorch: the reference SRU's weights (asappresearch/sru 2.6 names and
// layout, tests/fixtures/reference_sru, made by that package itself with
// scripts/make-reference-sru-fixture.py: its state_dict() and its own CPU forward) imported
// into recurlab's SRU give the reference's outputs; export gives the reference's names back;
// a file that does not fit the model is refused before anything is copied.
#include "experiments/weights/weights_exchange.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <string>

#include "models/layers/sru.h"
#include "models/registry.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments::weights {
namespace {

const std::string kFixtures = std::string(RECURLAB_SOURCE_DIR) + "/tests/fixtures/reference_sru/";

// The options the fixture's script wrote into the weights' metadata.
models::SruOptions fixtureOptions(const SafetensorsContents& weights) {
  const auto j = nlohmann::json::parse(weights.metadata.at("options"));
  models::SruOptions o;
  o.input_size = j.at("input_size");
  o.hidden_size = j.at("hidden_size");
  o.num_layers = j.at("num_layers");
  o.bidirectional = j.at("bidirectional");
  o.rescale = j.at("rescale");
  o.highway_bias = j.at("highway_bias");
  o.layer_norm = j.at("layer_norm");
  o.projection_size = j.at("projection_size");
  o.has_skip_term = j.at("has_skip_term");
  return o;
}

torch::Tensor ioTensor(const SafetensorsContents& io, const std::string& name) {
  const auto* t = io.find(name);
  if (!t) throw std::runtime_error("fixture io.safetensors lacks " + name);
  return toTorchTensor(*t);
}

// The message of the error importing `contents` into `module`, or "" if none.
std::string importError(torch::nn::Module& module, const SafetensorsContents& contents,
                        const std::string& prefix = "") {
  try {
    importModuleWeights(module, contents, "w.safetensors", prefix);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

class ReferenceSruTest : public ::testing::Test {
 protected:
  SafetensorsContents weights = readSafetensors(kFixtures + "weights.safetensors");
  SafetensorsContents io = readSafetensors(kFixtures + "io.safetensors");
  models::SruOptions options = fixtureOptions(weights);

  // recurlab's SRU with the fixture's weights, run on the fixture's input in `dtype`.
  std::pair<torch::Tensor, torch::Tensor> runImported(torch::ScalarType dtype) {
    torch::manual_seed(1);
    models::Sru sru(options);
    sru->to(dtype);
    importModuleWeights(*sru, weights, "weights.safetensors");
    sru->eval();
    torch::NoGradGuard no_grad;
    return sru->forward(ioTensor(io, "input").to(dtype), ioTensor(io, "c0").to(dtype),
                        ioTensor(io, "mask_pad").to(torch::kBool));
  }
};

TEST_F(ReferenceSruTest, ImportedWeightsGiveTheReferenceOutputs) {
  const torch::Tensor h_ref = ioTensor(io, "h"), c_ref = ioTensor(io, "c");
  ASSERT_EQ(options.layerOptions(0).numMatrices(), 4) << "the fixture should cover the learned skip (layer 0)";
  ASSERT_EQ(options.layerOptions(1).numMatrices(), 3) << "and the scaled skip (layer 1)";
  auto [h, c] = runImported(torch::kFloat);
  ASSERT_EQ(h.sizes(), h_ref.sizes());
  ASSERT_EQ(c.sizes(), c_ref.sizes());
  const double h_error = (h.to(torch::kDouble) - h_ref).abs().max().item<double>();
  const double c_error = (c.to(torch::kDouble) - c_ref).abs().max().item<double>();
  // float32 rounds each value to 6e-8 of itself; 1e-6 of the outputs' scale (|h| up to 3)
  // leaves room for the order a BLAS kernel sums in (measured: 8e-7 on h).
  EXPECT_LT(h_error, 1e-6 * std::max(1.0, h_ref.abs().max().item<double>()));
  EXPECT_LT(c_error, 1e-6 * std::max(1.0, c_ref.abs().max().item<double>()));
  auto [h64, c64] = runImported(torch::kDouble);  // F32 weights convert to a double model
  EXPECT_LT((h64 - h_ref).abs().max().item<double>(), 1e-12);
  EXPECT_LT((c64 - c_ref).abs().max().item<double>(), 1e-12);
  EXPECT_GT(h_ref.abs().max().item<double>(), 0.5) << "a fixture of zeros would prove nothing";
}

TEST_F(ReferenceSruTest, ExportGivesTheReferenceNamesAndValues) {
  models::Sru sru(options);
  importModuleWeights(*sru, weights, "weights.safetensors");
  const auto exported = exportModuleWeights(*sru);
  ASSERT_EQ(exported.tensors.size(), weights.tensors.size());
  for (const auto& t : weights.tensors) {
    const auto* mine = exported.find(t.name);
    ASSERT_NE(mine, nullptr) << t.name;
    EXPECT_EQ(mine->shape, t.shape) << t.name;
    EXPECT_EQ(mine->dtype, t.dtype) << t.name;
    // scale_x included: the reference stores α even where W's fourth sub-matrix carries it.
    EXPECT_EQ(mine->data, t.data) << t.name;
  }
}

TEST_F(ReferenceSruTest, TheSruEncoderTakesTheReferenceNamesUnderItsPrefix) {
  const nlohmann::json config = {{"layers", 2},       {"hidden", 3},       {"bidirectional", true},
                                 {"rescale", true},   {"highway_bias", -1}, {"layer_norm", true},
                                 {"projection", 2}};
  auto encoder = models::makeEncoder("sru", config, 5);
  EXPECT_EQ(referencePrefix("sru"), "sru.");
  EXPECT_EQ(importError(*encoder, weights, referencePrefix("sru")), "");
  const auto params = encoder->named_parameters();
  const auto stored = toTorchTensor(*weights.find("rnn_lst.1.weight"));
  EXPECT_TRUE(torch::equal(params["sru.rnn_lst.1.weight"], stored));
  EXPECT_NE(importError(*encoder, weights).find("no tensor 'sru.rnn_lst.0.weight_proj'"),
            std::string::npos)
      << "without the prefix the names do not match";
}

TEST_F(ReferenceSruTest, AFileThatDoesNotFitIsRefusedAndNothingIsCopied) {
  models::Sru sru(options);
  const torch::Tensor before = sru->named_parameters()["rnn_lst.0.bias"].clone();

  SafetensorsContents missing = weights;
  missing.tensors.erase(missing.tensors.begin() + 3);
  const std::string missing_name = weights.tensors[3].name;
  EXPECT_NE(importError(*sru, missing).find("w.safetensors: no tensor '" + missing_name + "'"),
            std::string::npos)
      << importError(*sru, missing);

  SafetensorsContents wrong_shape = weights;
  for (auto& t : wrong_shape.tensors)
    if (t.name == "rnn_lst.1.weight_c") {
      t.shape = {3, 4};
    }
  EXPECT_NE(importError(*sru, wrong_shape)
                .find("tensor 'rnn_lst.1.weight_c' has shape [3, 4], the model's "
                      "'rnn_lst.1.weight_c' has shape [12]"),
            std::string::npos)
      << importError(*sru, wrong_shape);

  SafetensorsContents wrong_dtype = weights;
  for (auto& t : wrong_dtype.tensors)
    if (t.name == "rnn_lst.0.bias") t.dtype = SafetensorsDtype::I32;
  EXPECT_NE(importError(*sru, wrong_dtype)
                .find("tensor 'rnn_lst.0.bias' has dtype I32, the model's 'rnn_lst.0.bias' is "
                      "Float"),
            std::string::npos)
      << importError(*sru, wrong_dtype);

  SafetensorsContents extra = weights;
  extra.tensors.push_back(toSafetensorsTensor("rnn_lst.2.weight", torch::zeros({2})));
  EXPECT_NE(importError(*sru, extra).find("tensor 'rnn_lst.2.weight' matches no parameter"),
            std::string::npos)
      << importError(*sru, extra);

  EXPECT_TRUE(torch::equal(sru->named_parameters()["rnn_lst.0.bias"], before));
}

TEST_F(ReferenceSruTest, AModelWithOtherRescaleOptionsIsRefused) {
  models::SruOptions other = options;
  other.rescale = false;  // the reference scales layer 1's skip by sqrt(1 + 2 e^-1)
  models::Sru sru(other);
  EXPECT_NE(importError(*sru, weights)
                .find("tensor 'rnn_lst.1.scale_x' (the skip scale) is 1.317"),
            std::string::npos)
      << importError(*sru, weights);
}

TEST(TensorArchiveTest, DottedNamesRoundTrip) {
  testing::TempRoot temp("tensor_archive");
  const std::string path = (temp.root / "weights.pt").string();
  const NamedTensors tensors = {{"sru.rnn_lst.0.weight", torch::randn({2, 3})},
                                {"head.bias", torch::arange(4, torch::kLong)}};
  writeTensorArchive(path, tensors);
  const auto back = readTensorArchive(path);
  ASSERT_EQ(back.size(), tensors.size());
  for (const auto& [name, tensor] : tensors) {
    bool found = false;
    for (const auto& [n, t] : back)
      if (n == name) {
        found = true;
        EXPECT_TRUE(torch::equal(t, tensor)) << name;
      }
    EXPECT_TRUE(found) << name;
  }
}

}  // namespace
}  // namespace recurlab::experiments::weights
