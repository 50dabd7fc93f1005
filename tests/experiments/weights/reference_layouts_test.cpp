// The reference layouts of the linear recurrences (experiments/weights/reference_layouts.h):
// BorealisAI/minRNNs' minGRU/minLSTM weights written by that code itself
// (tests/fixtures/reference_linrec, scripts/make-reference-linrec-fixture.py) imported into
// recurlab's min_gru/min_lstm give the reference's outputs and export back bit for bit; every
// mapped encoder round-trips exactly; flash-linear-attention's names and shapes (read from its
// source: its layers need its GPU kernels) are those exported; bad files and options that the
// reference cannot compute are refused, naming the tensor or the option.
#include "experiments/weights/reference_layouts.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <limits>
#include <string>
#include <vector>

#include "experiments/weights/weights_exchange.h"
#include "models/encoders/sequence_encoder.h"
#include "models/registry.h"
#include "tests/support/same_safetensors.h"

namespace recurlab::experiments::weights {
namespace {

const std::string kFixtures =
    std::string(RECURLAB_SOURCE_DIR) + "/tests/fixtures/reference_linrec/";

std::shared_ptr<models::SequenceEncoder> encoder(const std::string& name,
                                                 const nlohmann::json& config, int64_t input) {
  return models::makeEncoder(name, config, input);
}

// The message of the error importing `contents` into `module` as `name`, or "" if none.
std::string importError(torch::nn::Module& module, const std::string& name,
                        const SafetensorsContents& contents) {
  try {
    importEncoderWeights(module, name, contents, "w.safetensors");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::string exportError(const torch::nn::Module& module, const std::string& name) {
  try {
    exportEncoderWeights(module, name);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Every parameter a distinct random value (a layout that swaps two blocks changes the model).
void randomize(torch::nn::Module& module, uint64_t seed) {
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  for (auto& p : module.parameters()) p.normal_(0.0, 0.5);
}

struct MappedCase {
  std::string name;
  nlohmann::json config;
  int64_t input;
};

// Several layers and the options that change the shapes, each the reference can compute.
std::vector<MappedCase> mappedCases() {
  return {{"min_gru", {{"layers", 3}, {"hidden", 6}, {"log_space", true}}, 6},
          {"min_lstm", {{"layers", 3}, {"hidden", 6}, {"log_space", true}}, 6},
          {"hgrn", {{"layers", 3}, {"hidden", 8}, {"norm", "gated_rms"}, {"bias", false}}, 8},
          {"gla",
           {{"layers", 2}, {"hidden", 8}, {"heads", 2}, {"expand_k", 1.0}, {"expand_v", 2.0},
            {"gate_rank", 3}, {"gate_normalizer", 8.0}, {"chunk", 4}},
           8}};
}

class ReferenceMinRnnTest : public ::testing::TestWithParam<std::string> {
 protected:
  SafetensorsContents weights = readSafetensors(kFixtures + GetParam() + ".safetensors");
  SafetensorsContents io = readSafetensors(kFixtures + "io.safetensors");

  std::shared_ptr<models::SequenceEncoder> fixtureModel() {
    const int64_t dim = toTorchTensor(*io.find("input")).size(2);
    const int64_t layers = std::stoll(weights.metadata.at("layers"));
    return encoder(GetParam(), {{"layers", layers}, {"hidden", dim}, {"log_space", true}}, dim);
  }
};

TEST_P(ReferenceMinRnnTest, ImportedWeightsGiveTheReferenceOutputs) {
  const torch::Tensor x = toTorchTensor(*io.find("input"));
  const torch::Tensor expected = toTorchTensor(*io.find(GetParam()));
  for (const auto dtype : {torch::kFloat, torch::kDouble}) {
    auto model = fixtureModel();
    model->to(dtype);
    importEncoderWeights(*model, GetParam(), weights, "fixture");
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor y = model->encode(x.to(dtype), torch::Tensor()).to(torch::kDouble);
    // 8 roundings (unit roundoff u) per step, relative to the outputs' largest magnitude: the
    // scan's error grows with the length (measured: 3.0e-7 and 2.2e-7 in float32 against 7.0e-6
    // and 4.8e-6 allowed; 1.8e-15 and 7.8e-16 in float64 against 1.3e-14 and 9.0e-15).
    const double u = dtype == torch::kFloat ? std::numeric_limits<float>::epsilon() / 2
                                            : std::numeric_limits<double>::epsilon() / 2;
    const double tolerance = 8 * u * x.size(0) * expected.abs().max().item<double>();
    EXPECT_LE((y - expected).abs().max().item<double>(), tolerance) << c10::toString(dtype);
  }
}

TEST_P(ReferenceMinRnnTest, ExportGivesTheReferenceFileBack) {
  auto model = fixtureModel();
  importEncoderWeights(*model, GetParam(), weights, "fixture");
  recurlab::testing::expectSameSafetensors(exportEncoderWeights(*model, GetParam()), weights);
}

INSTANTIATE_TEST_SUITE_P(MinRnns, ReferenceMinRnnTest, ::testing::Values("min_gru", "min_lstm"));

TEST(ReferenceLayoutsTest, ExportThenImportGivesTheSameWeightsAndOutputs) {
  for (const auto& c : mappedCases()) {
    SCOPED_TRACE(c.name);
    auto a = encoder(c.name, c.config, c.input);
    auto b = encoder(c.name, c.config, c.input);
    randomize(*a, 1);
    randomize(*b, 2);
    importEncoderWeights(*b, c.name, exportEncoderWeights(*a, c.name), "a.safetensors");
    const auto wa = namedWeights(*a), wb = namedWeights(*b);
    ASSERT_EQ(wa.size(), wb.size());
    for (size_t i = 0; i < wa.size(); ++i)
      EXPECT_TRUE(torch::equal(wa[i].second, wb[i].second)) << wa[i].first;
    a->eval();
    b->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor x = torch::randn({7, 2, c.input});
    EXPECT_TRUE(torch::equal(a->encode(x, torch::Tensor()), b->encode(x, torch::Tensor())));
  }
}

// The names and shapes of fla-org/flash-linear-attention's modules, read from its source
// (fla/layers/hgrn.py, fla/layers/gla.py, fla/models/hgrn/modeling_hgrn.py,
// fla/models/gla/modeling_gla.py, fla/modules/mlp.py): nn.Linear weights (out, in), no biases
// but gk_proj's second Linear's.
TEST(ReferenceLayoutsTest, FlaNamesAndShapesAreTheReferenceModules) {
  using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;
  const auto namesAndShapes = [](const SafetensorsContents& c) {
    Shapes out;
    for (const auto& t : c.tensors) out.emplace_back(t.name, t.shape);
    return out;
  };
  const auto cases = mappedCases();
  // HGRNModel's lower_bounds (layers, hidden); HGRNAttention(hidden_size 8, expand_ratio 1).
  Shapes hgrn = {{"lower_bounds", {3, 8}}};
  for (const std::string p : {"layers.0.", "layers.1.", "layers.2."}) {
    for (const char* proj : {"i_proj", "f_proj", "g_proj"})
      hgrn.push_back({p + proj + ".weight", {8, 8}});
    hgrn.push_back({p + "g_norm.weight", {8}});
    hgrn.push_back({p + "o_proj.weight", {8, 8}});
  }
  EXPECT_EQ(namesAndShapes(exportEncoderWeights(*encoder("hgrn", cases[2].config, 8), "hgrn")),
            hgrn);
  // GLAModel's GLABlocks (hidden_size 8) with GatedLinearAttention(expand_k 1, expand_v 2,
  // num_heads 2, gate_low_rank_dim 3): key_dim 8, value_dim 16, head_v_dim 8; GatedMLP's
  // intermediate_size 256·ceil(int(8·4·2/3) / 256) = 256; the model's final norm.
  Shapes gla;
  for (const std::string p : {"layers.0.", "layers.1."}) {
    const std::string a = p + "attn.";
    gla.push_back({p + "attn_norm.weight", {8}});
    gla.push_back({a + "q_proj.weight", {8, 8}});
    gla.push_back({a + "k_proj.weight", {8, 8}});
    gla.push_back({a + "v_proj.weight", {16, 8}});
    gla.push_back({a + "g_proj.weight", {16, 8}});
    gla.push_back({a + "gk_proj.0.weight", {3, 8}});
    gla.push_back({a + "gk_proj.1.weight", {8, 3}});
    gla.push_back({a + "gk_proj.1.bias", {8}});
    gla.push_back({a + "o_proj.weight", {8, 16}});
    gla.push_back({a + "g_norm_swish_gate.weight", {8}});
    gla.push_back({p + "mlp_norm.weight", {8}});
    gla.push_back({p + "mlp.gate_proj.weight", {256, 8}});
    gla.push_back({p + "mlp.up_proj.weight", {256, 8}});
    gla.push_back({p + "mlp.down_proj.weight", {8, 256}});
  }
  gla.push_back({"norm.weight", {8}});
  EXPECT_EQ(namesAndShapes(exportEncoderWeights(*encoder("gla", cases[3].config, 8), "gla")), gla);
}

TEST(ReferenceLayoutsTest, AFileThatDoesNotFitIsRefusedNamingTheTensorAndNothingIsCopied) {
  for (const auto& c : mappedCases()) {
    SCOPED_TRACE(c.name);
    auto source = encoder(c.name, c.config, c.input);
    randomize(*source, 3);
    const SafetensorsContents good = exportEncoderWeights(*source, c.name);
    auto model = encoder(c.name, c.config, c.input);
    const torch::Tensor before = model->parameters()[0].clone();
    const std::string name = good.tensors[1].name;

    SafetensorsContents missing = good;
    missing.tensors.erase(missing.tensors.begin() + 1);
    EXPECT_NE(importError(*model, c.name, missing).find("w.safetensors: no tensor '" + name + "'"),
              std::string::npos)
        << importError(*model, c.name, missing);

    SafetensorsContents wrong_shape = good;
    wrong_shape.tensors[1] = toSafetensorsTensor(name, torch::zeros({2, 3}));
    EXPECT_NE(importError(*model, c.name, wrong_shape)
                  .find("w.safetensors: tensor '" + name + "' has shape [2, 3]"),
              std::string::npos)
        << importError(*model, c.name, wrong_shape);

    SafetensorsContents extra = good;
    extra.tensors.push_back(toSafetensorsTensor("layers.9.weight", torch::zeros({2})));
    EXPECT_NE(importError(*model, c.name, extra)
                  .find("w.safetensors: tensor 'layers.9.weight' matches no tensor"),
              std::string::npos)
        << importError(*model, c.name, extra);

    EXPECT_TRUE(torch::equal(model->parameters()[0], before));
  }
}

TEST(ReferenceLayoutsTest, AMinRnnOutputProjectionOtherThanTheIdentityIsRefused) {
  for (const std::string name : {"min_gru", "min_lstm"}) {
    auto model = encoder(name, {{"layers", 2}, {"hidden", 4}, {"log_space", true}}, 4);
    SafetensorsContents file = exportEncoderWeights(*model, name);
    for (auto& t : file.tensors)
      if (t.name == "layers.1.to_out.weight")
        t = toSafetensorsTensor(t.name, 2 * torch::eye(4));
    EXPECT_NE(importError(*model, name, file)
                  .find("w.safetensors: tensor 'layers.1.to_out.weight' is not the identity "
                        "(recurlab's layer has no output projection"),
              std::string::npos)
        << importError(*model, name, file);
  }
}

TEST(ReferenceLayoutsTest, OptionsTheReferenceCannotComputeAreRefusedNamingTheOption) {
  const auto said = [](const std::string& name, const nlohmann::json& config, int64_t input) {
    return exportError(*encoder(name, config, input), name);
  };
  EXPECT_NE(said("min_gru", {{"hidden", 4}}, 4).find("set \"log_space\": true"),
            std::string::npos);
  EXPECT_NE(said("min_lstm", {{"hidden", 4}, {"log_space", true}, {"bidirectional", true}}, 4)
                .find("set \"bidirectional\": false"),
            std::string::npos);
  EXPECT_NE(said("min_gru", {{"hidden", 4}, {"log_space", true}}, 5)
                .find("layer 0 has input 5, set \"hidden\" to 5"),
            std::string::npos);
  EXPECT_NE(said("hgrn", {{"hidden", 4}}, 4).find("set \"norm\": \"gated_rms\""),
            std::string::npos);
  EXPECT_NE(said("hgrn", {{"hidden", 4}, {"norm", "gated_rms"}}, 4).find("set \"bias\": false"),
            std::string::npos);
  EXPECT_NE(said("hgrn",
                 {{"hidden", 4}, {"norm", "gated_rms"}, {"bias", false}, {"negative_eigenvalues", true}},
                 4)
                .find("set \"negative_eigenvalues\": false"),
            std::string::npos);
  EXPECT_NE(said("gla", {{"hidden", 8}}, 6).find("layer 0 has input 6, set \"hidden\" to 6"),
            std::string::npos);
  EXPECT_NE(said("gla", {{"hidden", 10}, {"heads", 4}}, 10).find("\"expand_k\" and \"heads\""),
            std::string::npos)
      << said("gla", {{"hidden", 10}, {"heads", 4}}, 10);
  // Without a reference layout: recurlab's own names, as before.
  EXPECT_FALSE(referenceLayout("sru_linear", *encoder("sru_linear", {{"hidden", 4}}, 4)));
}

}  // namespace
}  // namespace recurlab::experiments::weights
