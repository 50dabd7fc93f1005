// The recurrent state size the registry gives each encoder: measured from the state encode()
// returns when the entry has no function of its own, the entry's function otherwise.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "models/registry.h"

namespace recurlab::models {
namespace {

TEST(EncoderStateSize, IsWhatTheRecurrenceCarriesPerSequence) {
  // LSTM: h and c of each layer.
  EXPECT_EQ(encoderStateSize("lstm", {{"layers", 2}, {"hidden", 8}}, 4, 10), 2 * 2 * 8);
  // SRU: the cell c of each layer.
  EXPECT_EQ(encoderStateSize("sru", {{"layers", 3}, {"hidden", 8}}, 4, 10), 3 * 8);
  // A causal gated convolution of width 3: the last 2 inputs of each layer, whatever the length.
  const nlohmann::json conv = {{"layers", 1}, {"hidden", 8}, {"width", 3}, {"causal", true}};
  EXPECT_EQ(encoderStateSize("gated_conv", conv, 8, 10), encoderStateSize("gated_conv", conv, 8, 50));
  EXPECT_GT(encoderStateSize("gated_conv", conv, 8, 10), 0);
}

TEST(EncoderStateSize, EveryRegisteredEncoderHasOne) {
  for (const auto& name : encoderNames()) {
    if (name == "cnn") continue;  // no "hidden": a pooling sentence encoder, not a mixer
    SCOPED_TRACE(name);
    EXPECT_GE(encoderStateSize(name, {{"hidden", 4}}, 4, 6), 0);
  }
}

TEST(EncoderStateSize, AnEntrysOwnFunctionIsUsed) {
  // Not registered: the registry's coverage tests would find an encoder without cases.
  EncoderEntry entry{"state_size_probe", "test encoder",
                     [](const nlohmann::json& config, int64_t input_size) {
                       return makeEncoder("lstm", config, input_size);
                     },
                     [](const nlohmann::json&, int64_t input_size, int64_t length) {
                       return input_size * length;
                     }};
  EXPECT_EQ(encoderStateSize(entry, {{"hidden", 8}}, 3, 7), 21);
  entry.state_size = {};
  EXPECT_EQ(encoderStateSize(entry, {{"hidden", 8}}, 3, 7), 2 * 8);
  EXPECT_THROW(encoderStateSize("no_such_encoder", {}, 3, 7), std::invalid_argument);
}

}  // namespace
}  // namespace recurlab::models
