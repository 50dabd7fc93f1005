// The toy's task-specific driver: its data and loss (ToyModel), its units and result (ToyTask).
#include "tests/experiments/harness/toy_task.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/atomic_file.h"
#include "common/json_options.h"
#include "experiments/training/trainer.h"
namespace recurlab::experiments {
namespace {
struct ToyBatch : TrainBatch {
  torch::Tensor x;
  explicit ToyBatch(torch::Tensor t) : x(std::move(t)) {}
  std::unique_ptr<TrainBatch> part(int i, int n) const override {  // rows i*B/n .. (i+1)*B/n
    const int64_t b = x.size(0), from = b * i / n, to = b * (i + 1) / n;
    return std::make_unique<ToyBatch>(x.narrow(0, from, to - from));
  }
};
struct ToyModel : TrainingModel {  // y = sum of x, on fixed random data
  torch::nn::Linear net{6, 1};
  int64_t bs;
  torch::Tensor x, dev_x = torch::rand({16, 6});
  ToyModel(int64_t n, int64_t batch_size) : bs(batch_size), x(torch::rand({n, 6})) {}
  torch::nn::Module& module() override { return *net; }
  int64_t batchesPerEpoch() override { return (x.size(0) + bs - 1) / bs; }
  std::unique_ptr<TrainBatch> batch(int64_t, int64_t i) override { return std::make_unique<ToyBatch>(x.narrow(0, i * bs, std::min(bs, x.size(0) - i * bs))); }
  StepOutput forward(const TrainBatch& b) override { const auto& t = static_cast<const ToyBatch&>(b).x; return {torch::mse_loss(net(t), t.sum(1, true)), t.size(0), {}}; }
  std::vector<std::string> evaluationNames() const override { return {"dev_mse"}; }
  std::vector<double> evaluate() override { torch::NoGradGuard g; return {torch::mse_loss(net(dev_x), dev_x.sum(1, true)).item<double>()}; }
  std::string selectionName() const override { return "dev_mse"; }
  bool higherIsBetter() const override { return false; }
};
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
    ToyModel model(j.getInt("examples", 64, 1, 1 << 20), j.getInt("batch_size", 8, 1, 1 << 20));
    j.finish();
    const auto o = train(model, opt, loop, ctx.seed, {&ctx.log, ctx.group, ctx.checkpoints, ctx.config.dump(), ctx.progress, ctx.data_parallel});
    return {o.diverged, o.stop_reason, {{"best_dev_mse", o.best.at("dev_mse")}}, {{"epochs", o.epochs}, {"resumed_from_checkpoint", o.resumed ? 1 : 0}}, {}, c.value("keep_checkpoints", false)};
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
