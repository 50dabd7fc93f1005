#include "tasks/lm/lm_task.h"

#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <stdexcept>

#include "experiments/harness/noun_count.h"
#include "experiments/kept_model/kept_model.h"
#include "tasks/lm/bptt_streams.h"
#include "tasks/lm/lm_kept_model.h"
#include "tasks/lm/language_model.h"
#include "tasks/lm/lm_metrics.h"
#include "tasks/lm/lm_training.h"
#include "tasks/lm/op_time_profile.h"
#include "tasks/lm/parameter_budget.h"
#include "experiments/training/meter.h"
#include "experiments/harness/unit_training.h"
#include "models/registry.h"

namespace recurlab::experiments {

std::shared_ptr<LanguageModelImpl> buildLanguageModel(const nlohmann::json& unit,
                                                      const LanguageModelOptions& options,
                                                      int64_t width) {
  nlohmann::json model = unit.at("config");
  if (width > 0) model["hidden"] = width;
  auto encoder = models::makeEncoder(unit.at("encoder").get<std::string>(), model, options.embed_dim);
  return std::make_shared<LanguageModelImpl>(options, encoder);
}

// Above every width where a layer changes shape: the widths the config names (embedding,
// projections) and one more.
int64_t budgetProbeWidth(const nlohmann::json& unit, const LanguageModelOptions& options) {
  int64_t widest = std::max(options.embed_dim, options.output_projection);
  for (const auto& [key, value] : unit.at("config").items())
    if (value.is_number_integer()) widest = std::max(widest, value.get<int64_t>());
  return widest + 1;
}

namespace {

// Step-time breakdown on a few real training steps (forward, backward; no update): the
// profile_* metrics of the unit.
void profileTrainingSteps(LanguageModelImpl& lm, const BpttStreams& train_streams,
                          const torch::Device& device, UnitResult& r) {
  const int64_t steps = std::min<int64_t>(4, train_streams.segments());
  models::SequenceState state;
  lm.train();
  Meter wall = Meter::time();
  std::map<std::string, double> seconds;
  {
    auto timing = wall.measure();
    OpTimeProfile profile;
    for (int64_t k = 0; k < steps; ++k) {
      const auto seg = train_streams.segment(k);
      auto [logits, next] = lm.forward(seg.inputs.to(device), state);
      auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(2)}),
                                                       seg.targets.to(device).reshape({-1}));
      lm.zero_grad();
      loss.backward();
      state = next.detached();
    }
    seconds = profile.seconds();
  }
  lm.zero_grad();
  r.metrics["profile_seconds"] = wall.value();
  r.counts["profile_steps"] = steps;
  for (const char* c : {"matmul", "recurrence", "other"})
    r.metrics[std::string("profile_") + c + "_seconds"] = seconds.count(c) ? seconds.at(c) : 0.0;
}

}  // namespace

LmTask::LmTask(LmConfig config, std::string data_dir)
    : config_(std::move(config)), data_dir_(std::move(data_dir)) {
  for (const auto& m : config_.models) {
    Unit u;
    u.kind = Unit::Kind::Final;
    u.group = "/" + config_.corpus.name + "/" + m.name;
    u.label = config_.corpus.name + " " + m.name;
    u.search = config_.corpus.name + "/" + m.name;
    u.seed_purpose = "train/" + config_.corpus.name + "/" + m.name;
    model_of_[u.group] = m.name;
    units_.push_back(u);
  }
}

std::string LmTask::describe() const {
  std::string text = "corpus " + config_.corpus.name;
  if (corpus_)
    text += " (" + std::to_string(corpus_->train.size()) + " / " +
            std::to_string(corpus_->valid.size()) + " / " + std::to_string(corpus_->test.size()) +
            " symbols, vocabulary " + std::to_string(corpus_->size()) + ")";
  return text + ", " + nounCount(config_.models.size(), "model") + ", budget " +
         std::to_string(config_.budget.parameters) + " parameters";
}

const LmCorpus& LmTask::corpus() {
  if (!corpus_) {
    corpus_ = std::make_unique<LmCorpus>(loadLmCorpus(config_.corpus.files(data_dir_)));
    if (corpus_->unknown_id >= 0)
      std::cerr << "warning: " << corpus_->unknown_valid << " valid and " << corpus_->unknown_test
                << " test symbols unseen in training map to <unk>\n";
  }
  return *corpus_;
}

void LmTask::checkData() {
  const auto& data = corpus();
  for (const auto& m : config_.models) {
    if (m.init_from.empty()) continue;
    try {
      checkKeptModelFitsCorpus(m.init_from, data.vocabulary, data.unknown_id, config_.corpus.format);
    } catch (const std::exception& e) {
      throw std::runtime_error("models." + m.name + ".init_from: " + e.what());
    }
  }
}

nlohmann::json LmTask::unitTemplate(const Unit& unit) const {
  return config_.unitTemplate(config_.model(model_of_.at(unit.group)));
}

int64_t LmTask::fittedWidth(const Unit& unit, const nlohmann::json& unit_json,
                            const LanguageModelOptions& lm_options, const LmBudget& budget) const {
  if (budget.parameters <= 0) return 0;
  const auto fit = fitWidthToBudget(
      [&](int64_t w) { return buildLanguageModel(unit_json, lm_options, w)->trainableParameters(); },
      budget.parameters, budget.tolerance,
      "budget (model " + model_of_.at(unit.group) + ")", 1 << 15,
      budgetProbeWidth(unit_json, lm_options));
  return fit.width;
}

UnitResult LmTask::runUnit(const Unit& unit, UnitContext& ctx) {
  const auto& unit_json = ctx.config;
  const auto options = lmUnitOptions(unit_json, "lm config: models." + model_of_.at(unit.group));
  const auto& data = corpus();
  const auto files = config_.corpus.files(data_dir_);
  const BpttStreams train_streams(data.train, options.lm.batch_size, options.lm.bptt,
                          "corpus.train (" + files.train + ")");
  const BpttStreams valid_streams(data.valid, options.lm.eval_batch_size, options.lm.bptt,
                          "corpus.valid (" + (files.valid.empty() ? files.train : files.valid) + ")");
  const BpttStreams test_streams(data.test, options.lm.eval_batch_size, options.lm.bptt,
                         "corpus.test (" + (files.test.empty() ? files.train : files.test) + ")");
  const auto lm_options = options.lm.model(data.size());

  const int64_t width = fittedWidth(unit, unit_json, lm_options, options.budget);
  torch::manual_seed(ctx.seed);  // model initialisation
  LanguageModel lm(buildLanguageModel(unit_json, lm_options, width));
  const int64_t parameters = lm->trainableParameters();

  auto& log = ctx.log;
  const std::string& g = ctx.group;
  const auto& metric = config_.corpus.metric;
  log.setAttribute(g, "corpus", config_.corpus.name);
  log.setAttribute(g, "model", model_of_.at(unit.group));
  log.setAttribute(g, "encoder", unit_json.at("encoder").get<std::string>());
  log.setAttribute(g, "metric", metric);
  log.setAttribute(g, "vocabulary", data.size());
  log.setAttribute(g, "parameters", parameters);
  log.setAttribute(g, "budget", options.budget.parameters);
  log.setAttribute(g, "hidden", width > 0 ? width : unit_json.at("config").value("hidden", int64_t{0}));
  log.setAttribute(g, "train_symbols", static_cast<int64_t>(data.train.size()));
  log.setAttribute(g, "valid_symbols", static_cast<int64_t>(data.valid.size()));
  log.setAttribute(g, "test_symbols", static_cast<int64_t>(data.test.size()));
  log.setAttribute(g, "train_targets_per_epoch", train_streams.targets());
  log.setAttribute(g, "valid_targets", valid_streams.targets());
  log.setAttribute(g, "test_targets", test_streams.targets());
  log.setAttribute(g, "unknown_valid", data.unknown_valid);
  log.setAttribute(g, "unknown_test", data.unknown_test);
  log.setAttribute(g, "segments_per_epoch", train_streams.segments());
  std::cerr << unit.label << ": " << parameters << " parameters"
            << (width > 0 ? ", hidden " + std::to_string(width) : std::string()) << ", "
            << train_streams.segments() << " segments of " << options.lm.batch_size << "x"
            << options.lm.bptt << " per epoch\n";
  if (const auto init = unit_json.find("init_from"); init != unit_json.end()) {
    // A resumed unit's checkpoint replaces these weights, as it replaces a random init.
    const std::string dir = init->get<std::string>();
    const auto manifest = initializeFromKeptModel(*lm, dir, data.vocabulary, data.unknown_id,
                                                  config_.corpus.format);
    log.setAttribute(g, "init_from", dir);
    log.setAttribute(g, "init_from_manifest", manifest.dump());
    std::cerr << unit.label << ": starts from the kept model " << dir << " ("
              << manifest.value("weights", std::string("?")) << " weights, "
              << manifest.value("metric", std::string("?")) << " "
              << manifest.value("value", 0.0) << ")\n";
  }

  const torch::Device device(ctx.execution.device);
  LmTraining training(lm, train_streams, valid_streams, test_streams, device);
  training.setSymbolName(metric == "ppl" ? "words" : "characters");
  const auto outcome = train(training, options.optimizer, options.trainer, ctx.seed,
      trainerContextFor(ctx, unit_json.dump()));

  UnitResult r = unitResultOf(outcome);
  auto best = [&](const char* name) { return bestMetric(outcome, name, NAN); };
  const double valid_nats = best("valid_nats");
  const double test_nats = best("test_nats_at_best");
  auto convert = [&](double nats) { return metric == "ppl" ? perplexity(nats) : bitsPerSymbol(nats); };
  r.metrics["best_valid_nats"] = valid_nats;
  r.metrics["test_nats"] = test_nats;
  r.metrics["best_valid_" + metric] = convert(valid_nats);
  r.metrics["test_" + metric] = convert(test_nats);
  r.metrics["symbols_per_second"] =
      outcome.train_seconds > 0
          ? static_cast<double>(train_streams.targets()) * static_cast<double>(outcome.epochs) / outcome.train_seconds
          : 0.0;

  if (!outcome.diverged) profileTrainingSteps(*lm, train_streams, device, r);
  r.kept_model = keptModel(unit, unit_json, width, training, outcome, r, log, g);
  return r;
}

TrainedModel LmTask::keptModel(const Unit& unit, const nlohmann::json& unit_json, int64_t width,
                               LmTraining& training,
                               const TrainOutcome& outcome, const UnitResult& r, Hdf5RunLog& log,
                               const std::string& g) const {
  const LmCorpus& data = *corpus_;  // loaded by runUnit
  const auto& metric = config_.corpus.metric;
  // The best valid epoch's weights (those the test number came from), or the last epoch's.
  TrainedModel kept;
  kept.task = "lm";
  kept.model = model_of_.at(unit.group);
  kept.weights = keepModelNamed(config_.keep_model);
  kept.best = {"test_" + metric, r.metrics.at("test_" + metric), outcome.best_epoch};
  kept.last = [&log, g, metric, epochs = outcome.epochs] {
    const double nats = log.readTable(g + "/epochs").column("valid_nats").back();
    return KeptScore{"valid_" + metric, metric == "ppl" ? perplexity(nats) : bitsPerSymbol(nats),
                     epochs};
  };
  nlohmann::json model_config = unit_json.at("config");
  if (width > 0) model_config["hidden"] = width;
  kept.config = {{"encoder", unit_json.at("encoder")},
                 {"config", model_config},
                 {"lm", unit_json.at("lm")},
                 {"vocabulary", data.size()},
                 {"format", lmFormatName(config_.corpus.format)},
                 {"metric", metric},
                 {"corpus", config_.corpus.name}};
  kept.files.push_back({kLmVocabularyFile, [&data](const std::string& path) {
                          writeLmVocabulary(data.vocabulary, data.unknown_id, path);
                        }});
  kept.checkpointed = training.sharedModule();  // its checkpoints hold the model as "lm"
  kept.module = training.lm().ptr();
  return kept;
}

}  // namespace recurlab::experiments
