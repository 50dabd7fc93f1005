// The toy's task-specific driver: its units and result (ToyTask), trained on the tests' one toy
// model (tests/support/toy_regression.h).
#include "tests/experiments/harness/toy_task.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/atomic_file.h"
#include "common/json_options.h"
#include "experiments/training/trainer.h"
#include "tests/support/toy_regression.h"

namespace recurlab::experiments {
namespace {
struct ToyTask : Task {  // trials of a search (when trials > 1), then `seeds` final units
  nlohmann::json c;
  int64_t seed() const override { return c.value("seed", int64_t{1}); }
  bool dataParallel() const override { return true; }
  // A run-wide file, written once (atomically) by whichever process prepares first: with
  // --jobs the parent, before its workers start. Each worker logs who wrote it.
  std::string prepared_by;
  void prepare(const std::string& folder) override {
    const auto file = std::filesystem::path(folder) / "prepared.txt";
    if (!std::filesystem::exists(file))
      writeFileAtomically(file.string(),
                          [](const std::string& temporary) { std::ofstream(temporary) << ::getpid(); });
    std::ifstream(file) >> prepared_by;
  }
  void describeRun(Hdf5RunLog& log) const override {
    log.setAttribute("/", "prepared_by", prepared_by);
    log.setAttribute("/", "worker_pid", std::to_string(::getpid()));
  }
  std::vector<Unit> units() const override {
    std::vector<Unit> u;
    for (int t = 0; c.value("trials", 1) > 1 && t < c.value("trials", 1); ++t)
      u.push_back({Unit::Kind::Trial, "/toy/trials/" + std::to_string(t), "toy trial " + std::to_string(t), "toy", t, "trial/" + std::to_string(t)});
    for (int s = 0; s < c.value("seeds", 1); ++s)
      u.push_back({Unit::Kind::Final, "/toy/seeds/" + std::to_string(s), "toy seed " + std::to_string(s), "toy", 0, "seed/" + std::to_string(s)});
    return u;
  }
  nlohmann::json unitTemplate(const Unit&) const override { return c.at("train"); }
  SelectionMetric selection() const override { return {"best_dev_mse", false}; }
  UnitResult runUnit(const Unit&, UnitContext& ctx) override {
    JsonOptions j(ctx.config, "toy train");
    const OptimizerOptions opt = OptimizerOptions::read(j);
    const TrainerOptions loop = TrainerOptions::read(j);
    torch::manual_seed(ctx.seed);
    // y = sum of x, on fixed random data
    torch::nn::Sequential net(torch::nn::Linear(6, 1));
    auto x = torch::rand({j.getInt("examples", 64, 1, 1 << 20), 6});
    auto dev = torch::rand({16, 6});
    recurlab::testing::ToyRegression model(net, x, dev);
    model.batch_size = j.getInt("batch_size", 8, 1, 1 << 20);
    j.finish();
    const auto o = train(model, opt, loop, ctx.seed, {&ctx.log, ctx.group, ctx.checkpoints, ctx.config.dump(), ctx.progress, ctx.data_parallel});
    UnitResult r;
    r.diverged = o.diverged;
    r.stop_reason = o.stop_reason;
    r.metrics = {{"best_dev_mse", o.best.at("dev_mse")}};
    r.counts = {{"epochs", o.epochs}, {"resumed_from_checkpoint", o.resumed ? 1 : 0}};
    r.keep_checkpoints = c.value("keep_checkpoints", false);
    return r;
  }
};
}  // namespace
// ---- end of the toy's task-specific driver ----

std::unique_ptr<Task> makeToyTask(const nlohmann::json& config) {
  auto task = std::make_unique<ToyTask>();
  task->c = config;
  return task;
}

}  // namespace recurlab::experiments
