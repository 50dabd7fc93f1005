// The op-time profile behind the LM report's "where a training step's time goes": ops land in
// the category the docs name, times are self times (a nested op is not counted twice), and the
// per-op and per-category totals agree.
#include "tasks/lm/op_time_profile.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "models/registry.h"

namespace recurlab::experiments {
namespace {

TEST(OpTimeProfile, OpsFallIntoTheCategoriesTheReportNames) {
  for (const char* op : {"aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear"})
    EXPECT_EQ(opCategory(op, false), "matmul") << op;
  for (const char* op : {"recurlab::sru_recurrence", "recurlab::sru_recurrence_backward",
                         "recurlab::qrnn_pooling_recurrence"})
    EXPECT_EQ(opCategory(op, false), "recurrence") << op;
  EXPECT_EQ(opCategory("aten::sigmoid", true), "recurrence");  // inside an LSTM op
  EXPECT_EQ(opCategory("aten::sigmoid", false), "other");
  EXPECT_EQ(opCategory("aten::add", false), "other");
  EXPECT_EQ(opCategory("recurlab::something_else", false), "other");
}

TEST(OpTimeProfile, SelfTimesOfARealStepAddUpWithoutCountingNestedOpsTwice) {
  torch::manual_seed(1);
  auto encoder =
      models::makeEncoder("sru", nlohmann::json{{"layers", 2}, {"hidden", 64}}, 32);
  const auto x = torch::randn({60, 8, 32});
  std::map<std::string, double> categories, ops;
  double wall = 0;
  {
    OpTimeProfile profile;
    const auto start = std::chrono::steady_clock::now();
    for (int step = 0; step < 4; ++step) {
      // aten::linear calls aten::matmul calls aten::mm: inclusive times would count it thrice.
      const auto h = encoder->encode(x, torch::Tensor());
      torch::nn::functional::linear(h, torch::ones({16, 64})).sum().backward();
    }
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    categories = profile.seconds();
    ops = profile.byOp();
  }
  EXPECT_GT(categories["matmul"], 0);
  EXPECT_GT(categories["recurrence"], 0);
  EXPECT_GT(categories["other"], 0);
  EXPECT_GT(ops["recurlab::sru_recurrence"], 0);
  EXPECT_GT(ops["recurlab::sru_recurrence_backward"], 0);
  double by_category = 0, by_op = 0;
  for (const auto& [name, seconds] : categories) by_category += seconds;
  for (const auto& [name, seconds] : ops) by_op += seconds;
  EXPECT_NEAR(by_op, by_category, 1e-9 * by_category);
  EXPECT_LE(by_category, wall) << "self times of one thread cannot exceed the wall time";
  OpTimeProfile again;  // a new profile starts from nothing
  EXPECT_TRUE(again.seconds().empty());
}

}  // namespace
}  // namespace recurlab::experiments
