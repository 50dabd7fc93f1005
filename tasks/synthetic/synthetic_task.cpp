#include "tasks/synthetic/synthetic_task.h"

#include <torch/torch.h>

#include <chrono>

#include "experiments/harness/noun_count.h"
#include "experiments/harness/unit_training.h"
#include "experiments/kept_model/kept_model.h"
#include "experiments/search/seed_sequence.h"
#include "models/registry.h"
#include "tasks/synthetic/recall_questions.h"
#include "tasks/synthetic/synthetic_training.h"

namespace recurlab::experiments {
namespace {

std::string unitPath(const SyntheticUnitPlace& u) {
  return u.task + "/" + u.model + "/w" + std::to_string(u.width) + "/lr" +
         std::to_string(u.lr_index);
}

// Recall tasks: each test question's outcome, item and lag (recall_questions.h), for accuracy
// by the answer's place in the context and by its distance, and the item its answer named (a
// wrong answer that is another pair's value, or none of the sequence's answers).
void writeRecallQuestions(UnitContext& ctx, const SyntheticSplit& test, const SequenceScores& scores) {
  const auto questions = recallQuestions(test);
  if (questions.empty()) return;
  const auto write = [&](const std::string& name, std::vector<double> values) {
    const size_t n = values.size();
    ctx.log.writeArray(ctx.group + "/" + name, values, {n});
  };
  write("test_question_correct", {scores.question_correct.begin(), scores.question_correct.end()});
  write("test_question_item", {questions.item.begin(), questions.item.end()});
  write("test_question_lag", {questions.lag.begin(), questions.lag.end()});
  const auto answered = answeredItems(test, scores.question_prediction);
  write("test_question_answered_item", {answered.begin(), answered.end()});
}

// The weights keep_model names and what rebuilds the model (evaluate_command.h): the task, so
// that the kept model can be scored on fresh sequences of any length.
TrainedModel keptMixer(const std::string& keep_model, const SyntheticUnitPlace& u,
                       const SyntheticTaskSpec& spec, const nlohmann::json& unit_json,
                       int64_t batch_size, const TokenMixerModel& model, const TrainOutcome& outcome,
                       const UnitResult& r, Hdf5RunLog& log, const std::string& g) {
  TrainedModel kept;
  kept.task = "synthetic";
  kept.model = u.model;
  kept.weights = keepModelNamed(keep_model);
  kept.best = {"test_acc", r.metrics.at("test_acc"), outcome.best_epoch};
  kept.last = lastEpochScore(log, g, "dev_acc", outcome.epochs);
  kept.config = {{"task_name", spec.name},
                 {"task", spec.toJson()},
                 {"encoder", unit_json.at("encoder")},
                 {"config", unit_json.at("config")},
                 {"width", u.width},
                 {"input_vocabulary", spec.inputVocabulary()},
                 {"output_classes", spec.outputClasses()},
                 {"batch_size", batch_size}};
  kept.module = model.ptr();
  return kept;
}

}  // namespace

SyntheticTask::SyntheticTask(SyntheticConfig config) : config_(std::move(config)) {
  const auto& c = config_;
  const int64_t rates = static_cast<int64_t>(c.learning_rates.size());
  for (const auto& t : c.tasks)
    for (const auto& m : c.models)
      for (const auto w : c.widths)
        for (int64_t i = 0; i < rates; ++i)
          for (int64_t s = 0; s < c.seeds; ++s) {
            const SyntheticUnitPlace place{t.name, m.name, w, i, s};
            const std::string path = unitPath(place);
            Unit u{Unit::Kind::Final, "/" + path + "/seeds/" + std::to_string(s),
                   t.name + " " + m.name + " width " + std::to_string(w) + " lr " +
                       std::to_string(i + 1) + "/" + std::to_string(rates) + " seed " +
                       std::to_string(s),
                   path, 0, "train/" + path + "/seed/" + std::to_string(s)};
            places_[u.group] = place;
            units_.push_back(std::move(u));
          }
}

std::string SyntheticTask::describe() const {
  return nounCount(config_.tasks.size(), "task") + ", " +
         nounCount(config_.models.size(), "model") + ", " +
         nounCount(config_.widths.size(), "width") + ", " +
         nounCount(config_.learning_rates.size(), "learning rate") + ", " +
         nounCount(units_.size(), "unit") + " of work";
}

nlohmann::json SyntheticTask::unitTemplate(const Unit& unit) const {
  const auto& u = place(unit);
  return config_.unitTemplate(config_.model(u.model), u.width, config_.learning_rates.at(u.lr_index));
}

uint64_t SyntheticTask::dataSeed(const std::string& task, int64_t seed_index) const {
  return deriveSeed(static_cast<uint64_t>(config_.seed),
                    "data/" + task + "/seed/" + std::to_string(seed_index));
}

void SyntheticTask::describeUnit(const SyntheticUnitPlace& u, const nlohmann::json& unit_json,
                                 int64_t parameters, UnitContext& ctx) const {
  const auto& spec = config_.task(u.task);
  const auto& encoder = unit_json.at("encoder").get<std::string>();
  auto& log = ctx.log;
  const auto& g = ctx.group;
  log.setAttribute(g, "task", u.task);
  log.setAttribute(g, "kind", spec.kind);
  log.setAttribute(g, "model", u.model);
  log.setAttribute(g, "encoder", encoder);
  log.setAttribute(g, "width", u.width);
  log.setAttribute(g, "lr", config_.learning_rates.at(u.lr_index));
  log.setAttribute(g, "lr_index", u.lr_index);
  log.setAttribute(g, "seed_index", u.seed_index);
  for (const auto& [prefix, split] : spec.namedSplits()) {
    log.setAttribute(g, prefix + "_length", split->length);
    log.setAttribute(g, prefix + "_min_length", split->min_length);
  }
  log.setAttribute(g, "parameters", parameters);
  // The Transformer's state (its keys and values) grows with the length: at both lengths.
  for (const auto& [name, length] : {std::pair<const char*, int64_t>{"state_size", spec.test.length},
                                     {"state_size_train", spec.train.length}})
    log.setAttribute(g, name, models::encoderStateSize(encoder, unit_json.at("config"), u.width, length));
}

UnitResult SyntheticTask::runUnit(const Unit& unit, UnitContext& ctx) {
  const auto started = std::chrono::steady_clock::now();
  const auto& u = place(unit);
  const auto& spec = config_.task(u.task);
  const auto& unit_json = ctx.config;
  const auto options = SyntheticTrainOptions::fromJson(unit_json.at("train"), unit.label + " train");
  const auto data = makeSyntheticData(spec, dataSeed(u.task, u.seed_index));

  torch::manual_seed(ctx.seed);  // model initialisation
  auto encoder = models::makeEncoder(unit_json.at("encoder").get<std::string>(),
                                     unit_json.at("config"), u.width);
  TokenMixerModel model(spec.inputVocabulary(), u.width, spec.outputClasses(), encoder);
  int64_t parameters = 0;
  for (const auto& p : model->parameters()) parameters += p.numel();
  describeUnit(u, unit_json, parameters, ctx);

  const torch::Device device(ctx.execution.device);
  SyntheticTraining training(model, data, options.batch_size, ctx.seed, device);
  const auto outcome = train(training, options.optimizer, options.trainer, ctx.seed,
                             trainerContextFor(ctx, unit_json.dump()));
  UnitResult r = unitResultOf(outcome);
  r.metrics["best_dev_acc"] = bestMetric(outcome, "dev_acc", 0.0);
  r.metrics["dev_exact"] = bestMetric(outcome, "dev_exact", 0.0);
  r.metrics["train_acc_at_best"] = bestMetric(outcome, "train_acc", 0.0);

  // The test split, scored once at the best epoch: its accuracies, and each sequence's for the
  // paired tests between models.
  const bool best = ctx.checkpoints.enabled() && ctx.checkpoints.has("best");
  if (best) selectKeptWeights(KeepModel::Best, ctx.checkpoints, *model);
  const auto scores = scoreSplit(model, data.test, options.batch_size, device);
  r.metrics["test_acc"] = scores.accuracy();
  r.metrics["test_exact"] = scores.exactMatch();
  const auto per_sequence = scores.perSequenceAccuracy();
  ctx.log.writeArray(ctx.group + "/test_sequence_acc", per_sequence, {per_sequence.size()});
  // Each test sequence's length beside its accuracy: accuracy against length, where it varies.
  const auto& lengths = data.test.lengths;
  ctx.log.writeArray(ctx.group + "/test_sequence_length",
                     std::vector<double>(lengths.begin(), lengths.end()), {lengths.size()});
  writeRecallQuestions(ctx, data.test, scores);
  ctx.log.setAttribute(ctx.group, "test_scores_from", std::string(best ? "best" : "last"));
  r.kept_model = keptMixer(config_.keep_model, u, spec, unit_json, options.batch_size, model,
                           outcome, r, ctx.log, ctx.group);
  r.metrics["unit_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace recurlab::experiments
