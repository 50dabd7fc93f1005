#include "tasks/qa/document_reader.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "common/log/hdf5_run_log.h"
#include "experiments/training/trainer.h"
#include "tasks/qa/qa_examples.h"
#include "tasks/qa/reader_training.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

// Bit-exact text of a double (so that equal strings mean equal bits).
std::string hexFloat(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", v);
  return buffer;
}

DocumentReaderOptions tinyOptions(const std::string& encoder, int64_t vocab) {
  DocumentReaderOptions o;
  o.vocab_size = vocab;
  o.embed_dim = 8;
  o.embed_dropout = 0.0;
  o.output_dropout = 0.0;
  o.encoder.encoder = encoder;
  if (encoder == "lstm") {
    o.encoder.concat_layers = true;
    o.encoder.layers = 2;
    o.encoder.config = {{"hidden", 4}, {"bidirectional", true}};
  } else {
    o.encoder.config = {{"layers", 2}, {"hidden", 4}, {"bidirectional", true}};
  }
  return o;
}

TEST(QaExamples, FeaturesAndTargetSpan) {
  const auto p = tokenizeText("The cat saw the Cat.");
  const auto q = tokenizeText("which cat?");
  const auto f = paragraphFeatures(p, q);
  ASSERT_EQ(f.size(), 6u * 3u);
  // "The" "cat" "saw" "the" "Cat" ".": cased match only "cat"; lowercased "cat" and "Cat".
  const float cased[] = {0, 1, 0, 0, 0, 0}, lower[] = {0, 1, 0, 0, 1, 0};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(f[i * 3 + 0], cased[i]) << i;
    EXPECT_EQ(f[i * 3 + 1], lower[i]) << i;
  }
  EXPECT_FLOAT_EQ(f[0 * 3 + 2], 2.0f / 6.0f);  // "the" twice in 6 tokens
  EXPECT_FLOAT_EQ(f[2 * 3 + 2], 1.0f / 6.0f);
  SquadQuestion question;
  SquadAnswer a;
  a.matches = true;
  a.byte_begin = 5;  // "at" inside "cat": not on token boundaries, skipped
  a.byte_end = 7;
  SquadAnswer b = a;
  b.byte_begin = 4;  // "cat saw"
  b.byte_end = 11;
  question.answers = {a, b};
  EXPECT_EQ(targetSpan(question, p), (std::pair<int64_t, int64_t>{1, 2}));
}

TEST(DocumentReader, ScoresMaskPadsAndIgnorePaddingForSru) {
  torch::manual_seed(3);
  DocumentReader reader(tinyOptions("sru", 20));
  reader->eval();
  QaExample shorter, longer;
  shorter.paragraph_ids = {2, 3, 4};
  shorter.question_ids = {3, 5};
  shorter.features.assign(9, 0.5f);
  longer.paragraph_ids = {2, 3, 4, 5, 6, 7};
  longer.question_ids = {3, 5, 6};
  longer.features.assign(18, 0.25f);
  const auto alone = makeReaderBatch({&shorter});
  const auto both = makeReaderBatch({&shorter, &longer});
  torch::NoGradGuard no_grad;
  const auto a = reader->forward(alone.paragraph, alone.paragraph_pad, alone.features,
                                 alone.question, alone.question_pad);
  const auto b = reader->forward(both.paragraph, both.paragraph_pad, both.features, both.question,
                                 both.question_pad);
  ASSERT_EQ(b.start.sizes(), (std::vector<int64_t>{2, 6}));
  for (int64_t i = 3; i < 6; ++i) EXPECT_TRUE(std::isinf(b.start[0][i].item<float>()));
  EXPECT_TRUE(torch::allclose(a.start[0], b.start[0].slice(0, 0, 3), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(a.end[0], b.end[0].slice(0, 0, 3), 1e-5, 1e-6));
}

TEST(DocumentReader, LstmStackConcatenatesEveryLayer) {
  torch::manual_seed(3);
  DocumentReader reader(tinyOptions("lstm", 20));
  int64_t layers = 0;
  for (const auto& m : reader->named_modules())
    if (m.key().rfind("paragraph_encoder.layer", 0) == 0 && m.key().find('.', 18) == std::string::npos) ++layers;
  EXPECT_EQ(layers, 2);
  // start_weight is (2 layers x 2 directions x 4)^2: every layer's output reaches the scores.
  const auto params = reader->named_parameters();
  EXPECT_EQ(params["start_weight.weight"].sizes(), (std::vector<int64_t>{16, 16}));
}

TEST(DocumentReader, PartialTuningKeepsOtherRowsFixed) {
  torch::manual_seed(3);
  auto o = tinyOptions("sru", 10);
  o.pretrained.assign(10 * 8, 0.5f);
  o.tune_top = 3;  // UNK (1) and ids 2..4 train; 5..9 stay
  DocumentReader reader(o);
  torch::optim::Adam adam(reader->parameters(), torch::optim::AdamOptions(0.1));
  QaExample x;
  x.paragraph_ids = {2, 3, 6, 7, 1};
  x.question_ids = {4, 8};
  x.features.assign(15, 0.0f);
  x.start = 1;
  x.end = 2;
  const auto b = makeReaderBatch({&x});
  for (int step = 0; step < 2; ++step) {
    adam.zero_grad();
    const auto s = reader->forward(b.paragraph, b.paragraph_pad, b.features, b.question, b.question_pad);
    (torch::nll_loss(torch::log_softmax(s.start, 1), b.start) +
     torch::nll_loss(torch::log_softmax(s.end, 1), b.end)).backward();
    adam.step();
  }
  const auto w = reader->embedding->weight;
  for (int64_t i : {5, 6, 7, 8, 9}) EXPECT_TRUE(torch::all(w[i] == 0.5f).item<bool>()) << i;
  for (int64_t i : {2, 3, 4}) EXPECT_FALSE(torch::all(w[i] == 0.5f).item<bool>()) << i;
}

// Overlapping intervals count once, in wall and in CPU time: [0, 2] and [1, 3] cover 3 s of
// wall time; their CPU time is 1 (first) + 0.8 (the second's part after the first's end mark).
TEST(RecurrentTimer, UnionOfIntervalsInWallAndCpuTime) {
  using Mark = RecurrentTimer::Mark;
  const auto t0 = RecurrentTimer::Clock::time_point{};
  auto at = [&](double wall, double cpu) {
    return Mark{t0 + std::chrono::duration_cast<RecurrentTimer::Clock::duration>(
                         std::chrono::duration<double>(wall)),
                cpu};
  };
  RecurrentTimer timer;
  timer.add(at(5, 3.0), at(6, 3.2));
  timer.add(at(1, 0.5), at(3, 1.8));
  timer.add(at(0, 0.0), at(2, 1.0));
  timer.add(at(1.5, 0.7), at(2.5, 1.4));  // inside the others: adds nothing
  const auto s = timer.take();
  EXPECT_NEAR(s.wall, 4.0, 1e-9);
  EXPECT_NEAR(s.cpu, 1.0 + 0.8 + 0.2, 1e-9);
  EXPECT_EQ(timer.take().wall, 0.0);  // reset
}

// A tiny reader trained twice from one seed on real dev questions: the same losses and scores
// bit for bit, and a rnn_seconds column that is positive.
TEST(ReaderTraining, DeterministicOnRealQuestions) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const auto& d = squadDev();
  const auto examples = devQuestionExamples(48, 16);
  const auto& tokens = examples.tokens;
  const auto& vocabulary = examples.vocabulary;
  const auto &train = examples.train, &dev = examples.dev;
  // Each run logs its per-step losses and its epochs table; both must be bit-identical.
  recurlab::testing::TempRoot tmp("recurlab_reader_determinism");
  auto run = [&](const std::string& name, std::string& tables) {
    torch::manual_seed(11);
    DocumentReader reader(tinyOptions("sru", vocabulary.size()));
    ReaderTraining training(reader, train, dev, d, tokens, 16, 15, 11, "");
    OptimizerOptions opt;
    opt.schedule = "constant";
    TrainerOptions t;
    t.max_epochs = 2;
    t.checkpoints = false;
    t.log_every_steps = 1;
    Hdf5RunLog log((tmp.root / (name + ".h5")).string(), Hdf5RunLog::Mode::Create);
    TrainerContext context;
    context.log = &log;
    context.group = "/reader";
    const auto outcome = recurlab::experiments::train(training, opt, t, 11, context);
    for (const char* table : {"/reader/steps", "/reader/epochs"}) {
      const auto rows = log.readTable(table);
      tables += std::string(table) + " " + std::to_string(rows.rows.size()) + " rows:";
      for (const auto& row : rows.rows)
        for (size_t j = 0; j < row.size(); ++j)
          if (rows.columns[j].find("second") == std::string::npos)
            tables += " " + rows.columns[j] + "=" + hexFloat(row[j]);
      tables += "\n";
    }
    return outcome;
  };
  std::string tables_a, tables_b;
  const auto a = run("a", tables_a), b = run("b", tables_b);
  EXPECT_EQ(a.epochs, 2);
  EXPECT_EQ(tables_a, tables_b);
  // Every step's loss is there.
  EXPECT_GE(a.steps, 4);
  EXPECT_EQ(tables_a.rfind("/reader/steps " + std::to_string(a.steps) + " rows", 0), 0u)
      << tables_a;
  EXPECT_NE(tables_a.find("train_loss="), std::string::npos) << tables_a;
  EXPECT_EQ(a.best.at("dev_f1"), b.best.at("dev_f1"));
  EXPECT_EQ(a.best.at("dev_em"), b.best.at("dev_em"));
  EXPECT_GE(a.best.at("dev_f1"), 0.0);
  EXPECT_LE(a.best.at("dev_f1"), 100.0);
  EXPECT_GT(a.best.at("rnn_seconds"), 0.0);
  EXPECT_GT(a.best.at("rnn_cpu_seconds"), 0.0);
  // The encoders are part of the training: their CPU time is a share of the epoch's.
  EXPECT_LT(a.best.at("rnn_cpu_seconds"), a.best.at("train_cpu_seconds"));
}

}  // namespace
}  // namespace recurlab::experiments::qa
