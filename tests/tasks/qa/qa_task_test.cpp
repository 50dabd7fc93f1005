#include "tasks/qa/qa_task.h"

#include <gtest/gtest.h>

#include <set>

#include "experiments/harness/experiment_command_line.h"
#include "tasks/qa/qa_config.h"
#include "tests/support/gradient_check.h"
#include "tests/support/required.h"
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

TEST(QaTask, OfflineSplitIsArticleDisjointAndSeeded) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const auto& d = squadDev();
  QaDataOptions o;
  o.dev_articles = 10;
  const auto a = offlineSplit(d, o), b = offlineSplit(d, o);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.dev, b.dev);
  EXPECT_EQ(a.train.size() + a.dev.size(), d.questions.size());
  EXPECT_EQ(a.dev_titles.size(), 10u);
  std::set<int64_t> train_articles, dev_articles;
  for (const auto q : a.train) train_articles.insert(d.paragraphs[d.questions[q].paragraph].article);
  for (const auto q : a.dev) dev_articles.insert(d.paragraphs[d.questions[q].paragraph].article);
  EXPECT_EQ(dev_articles.size(), 10u);
  EXPECT_EQ(train_articles.size(), 38u);
  for (const auto x : dev_articles) EXPECT_EQ(train_articles.count(x), 0u);
  o.split_seed = 2;
  EXPECT_NE(offlineSplit(d, o).dev, a.dev);
  o.split_seed = 1;
  o.max_train_questions = 100;
  o.max_dev_questions = 50;
  const auto small = offlineSplit(d, o);
  EXPECT_EQ(small.train.size(), 100u);
  EXPECT_EQ(small.dev.size(), 50u);
  EXPECT_TRUE(std::is_sorted(small.train.begin(), small.train.end()));
  for (const auto q : small.dev)
    EXPECT_EQ(dev_articles.count(d.paragraphs[d.questions[q].paragraph].article), 1u);
}

TEST(QaTask, OfflineSplitHoldsOutUpToAllButOneArticleOfTheFile) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const auto& d = squadDev();
  const auto articles = static_cast<int64_t>(d.titles.size());
  ASSERT_EQ(articles, 48);
  QaDataOptions o;
  o.dev_articles = articles - 1;  // one article left to train on
  const auto split = offlineSplit(d, o);
  EXPECT_EQ(split.dev_titles.size(), 47u);
  EXPECT_FALSE(split.train.empty());
  o.dev_articles = articles;
  EXPECT_TRUE(testing::throwsWith([&] { offlineSplit(d, o); }, "the dev file has 48 articles"));
  // The config takes any count; the file decides (a user's dev file may have more articles).
  auto config = readJsonFile("configs/qa/reference.json");
  config["data"]["dev_articles"] = 60;
  EXPECT_EQ(QaConfig::fromJson(config).data.dev_articles, 60);
}

TEST(QaConfig, CommittedConfigsParseAndBadKeysAreNamed) {
  for (const char* file : {"configs/qa/quick.json", "configs/qa/squad.json"}) {
    const auto c = QaConfig::fromJson(readJsonFile(file));
    EXPECT_EQ(c.models.size(), 2u) << file;
  }
  const auto comparison = QaConfig::fromJson(readJsonFile("configs/qa/sru-vs-lstm.json"));
  EXPECT_EQ(comparison.models.size(), 4u);  // the LSTM and SRUs of 3, 4 and 5 layers
  auto bad = readJsonFile("configs/qa/quick.json");
  bad["models"]["sru"]["config"]["hiden"] = 3;
  EXPECT_TRUE(testing::throwsWith([&] { QaConfig::fromJson(bad); }, "hiden"));
  bad = readJsonFile("configs/qa/quick.json");
  bad["reader"]["max_span"] = 0;
  EXPECT_TRUE(testing::throwsWith([&] { QaConfig::fromJson(bad); }, "max_span"));
  bad = readJsonFile("configs/qa/quick.json");
  bad["data"]["protocol"] = "online";
  EXPECT_TRUE(testing::throwsWith([&] { QaConfig::fromJson(bad); }, "protocol"));
}

}  // namespace
}  // namespace recurlab::experiments::qa
