// Language modelling in bf16 (CPU autocast; the SRU and QRNN recurrences up-cast at their
// entry, the carried state kept across segments): a few epochs stay within 5% of the fp32
// training loss, epoch by epoch.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "tasks/lm/bptt_streams.h"
#include "tasks/lm/lm_task.h"
#include "tasks/lm/lm_training.h"
#include "tests/support/precision_comparison.h"

namespace recurlab::experiments {
namespace {

std::vector<int64_t> symbols(int64_t n, int64_t seed) {
  torch::manual_seed(seed);
  const auto t = torch::randint(0, 9, {n}, torch::kLong);
  std::vector<int64_t> v(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + n);
  for (size_t i = 2; i < v.size(); i += 3) v[i] = (v[i - 1] + 1) % 9;  // something to learn
  return v;
}

TEST(LmPrecision, Bf16StaysWithinFivePercentOfFp32) {
  const BpttStreams train(symbols(400, 1), 4, 10, "train"), valid(symbols(120, 2), 2, 10, "valid"),
      test(symbols(120, 3), 2, 10, "test");
  for (const auto& [encoder, config] :
       {std::pair{"sru", nlohmann::json{{"layers", 2}, {"hidden", 16}}},
        std::pair{"qrnn", nlohmann::json{{"layers", 1}, {"hidden", 16}, {"window", 2}}}}) {
    auto make = [&, encoder = encoder, config = config]() -> std::unique_ptr<TrainingModel> {
      torch::manual_seed(3);
      LanguageModelOptions o;
      o.vocab_size = 9;
      o.embed_dim = 8;
      nlohmann::json unit = {{"encoder", encoder}, {"config", config}};
      return std::make_unique<LmTraining>(LanguageModel(buildLanguageModel(unit, o, 0)), train,
                                          valid, test);
    };
    OptimizerOptions opt;
    opt.lr = 0.05;  // fp32 moves by several times the tolerance within the 3 epochs
    TrainerOptions loop;
    loop.max_epochs = 3;
    SCOPED_TRACE(encoder);
    recurlab::testing::expectBf16Near(
        recurlab::testing::trainInBothPrecisions(make, opt, loop, 4), 0.05);
  }
}

}  // namespace
}  // namespace recurlab::experiments
