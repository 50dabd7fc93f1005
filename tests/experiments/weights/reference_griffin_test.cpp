// The "rg_lru" encoder's reference layout (experiments/weights/reference_layouts.h): Griffin's
// residual blocks written by google-deepmind/recurrentgemma's own modules
// (tests/fixtures/reference_griffin, scripts/make-reference-griffin-fixture.py) imported into
// recurlab's rg_lru give the reference's outputs and export back bit for bit; an MLP half that
// is not zero, and options recurrentgemma cannot compute, are refused naming the tensor or the
// option.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <limits>
#include <string>

#include "experiments/weights/reference_layouts.h"
#include "experiments/weights/weights_exchange.h"
#include "models/registry.h"
#include "tests/support/same_safetensors.h"

namespace recurlab::experiments::weights {
namespace {

const std::string kFixtures =
    std::string(RECURLAB_SOURCE_DIR) + "/tests/fixtures/reference_griffin/";

class ReferenceGriffinTest : public ::testing::Test {
 protected:
  SafetensorsContents weights = readSafetensors(kFixtures + "rg_lru.safetensors");
  SafetensorsContents io = readSafetensors(kFixtures + "io.safetensors");
  int64_t width = std::stoll(weights.metadata.at("width"));

  std::shared_ptr<models::SequenceEncoder> fixtureModel() {
    return models::makeEncoder(
        "rg_lru",
        {{"layers", std::stoll(weights.metadata.at("layers"))}, {"hidden", width},
         {"conv_width", std::stoll(weights.metadata.at("conv1d_temporal_width"))}},
        width);
  }
};

TEST_F(ReferenceGriffinTest, ImportedWeightsGiveTheReferenceOutputs) {
  const torch::Tensor x = toTorchTensor(*io.find("input"));
  const torch::Tensor expected = toTorchTensor(*io.find("output"));
  for (const auto dtype : {torch::kFloat, torch::kDouble}) {
    auto model = fixtureModel();
    model->to(dtype);
    importEncoderWeights(*model, "rg_lru", weights, "fixture");
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor y = model->encode(x.to(dtype), torch::Tensor()).to(torch::kDouble);
    // Per step and layer some tens of roundings (norms over the width, the convolution, the
    // gates, the recurrence, the projections), relative to the outputs' largest magnitude:
    // 64·u·length·layers.
    const double u = dtype == torch::kFloat ? std::numeric_limits<float>::epsilon() / 2
                                            : std::numeric_limits<double>::epsilon() / 2;
    const double tolerance = 64 * u * x.size(0) * std::stoll(weights.metadata.at("layers")) *
                             expected.abs().max().item<double>();
    EXPECT_LE((y - expected).abs().max().item<double>(), tolerance) << c10::toString(dtype);
  }
}

TEST_F(ReferenceGriffinTest, ExportGivesTheReferenceFileBack) {
  auto model = fixtureModel();
  importEncoderWeights(*model, "rg_lru", weights, "fixture");
  recurlab::testing::expectSameSafetensors(exportEncoderWeights(*model, "rg_lru"), weights);
}

TEST_F(ReferenceGriffinTest, AnMlpHalfThatIsNotZeroIsRefusedNamingTheTensor) {
  SafetensorsContents changed = weights;
  for (auto& t : changed.tensors)
    if (t.name == "layers.1.mlp_block.ffw_down.bias") t.data[0] = 0x3c;  // a float's low byte
  auto model = fixtureModel();
  try {
    importEncoderWeights(*model, "rg_lru", changed, "w.safetensors");
    ADD_FAILURE() << "a non-zero MLP was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("layers.1.mlp_block.ffw_down.bias"), std::string::npos)
        << e.what();
  }
}

TEST(ReferenceGriffinOptions, OptionsRecurrentGemmaCannotComputeAreRefusedNamingTheOption) {
  for (const auto& [config, input, key] :
       std::vector<std::tuple<nlohmann::json, int64_t, std::string>>{
           {{{"layers", 2}, {"hidden", 6}}, 4, "hidden"},
           {{{"layers", 2}, {"hidden", 6}, {"decay_scale", 4.0}}, 6, "decay_scale"},
           {{{"layers", 2}, {"hidden", 6}, {"negative_eigenvalues", true}}, 6, "negative_eigenvalues"}}) {
    const auto model = models::makeEncoder("rg_lru", config, input);
    try {
      exportEncoderWeights(*model, "rg_lru");
      ADD_FAILURE() << "exported " << config.dump();
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace recurlab::experiments::weights
