// Question answering in bf16 (CPU autocast: the reader's attentions and bilinear scores in
// bfloat16, its SRU encoders up-cast at their entry): a tiny reader trained on real dev
// questions stays within 5% of the fp32 training loss, epoch by epoch.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "tasks/qa/document_reader.h"
#include "tasks/qa/qa_examples.h"
#include "tasks/qa/reader_training.h"
#include "tests/support/precision_comparison.h"
#include "tests/support/required.h"
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

TEST(ReaderPrecision, Bf16StaysWithinFivePercentOfFp32) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const auto& d = squadDev();
  const auto examples = devQuestionExamples(48, 8);
  const auto& tokens = examples.tokens;
  const auto& vocabulary = examples.vocabulary;
  const auto &train = examples.train, &dev = examples.dev;
  auto make = [&]() -> std::unique_ptr<TrainingModel> {
    torch::manual_seed(11);
    DocumentReaderOptions o;
    o.vocab_size = vocabulary.size();
    o.embed_dim = 8;
    o.embed_dropout = 0.0;
    o.output_dropout = 0.0;
    o.encoder.encoder = "sru";
    o.encoder.config = {{"layers", 2}, {"hidden", 4}, {"bidirectional", true}};
    return std::make_unique<ReaderTraining>(DocumentReader(o), train, dev, d, tokens, 16, 15, 11,
                                            "");
  };
  OptimizerOptions opt;
  opt.schedule = "constant";
  opt.lr = 0.03;  // fp32 moves by several times the tolerance within the 6 epochs
  TrainerOptions loop;
  loop.max_epochs = 6;
  recurlab::testing::expectBf16Near(recurlab::testing::trainInBothPrecisions(make, opt, loop, 11),
                                    0.05);
}

}  // namespace
}  // namespace recurlab::experiments::qa
