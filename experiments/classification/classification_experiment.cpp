#include "experiments/classification/classification_experiment.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unordered_set>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "experiments/classification/classifier_embeddings.h"
#include "experiments/data/vocabulary.h"
#include "experiments/harness/run_log_folder.h"
#include "experiments/search/search_space.h"
#include "experiments/search/seed_sequence.h"
#include "experiments/training/classifier_trainer.h"
#include "models/registry.h"
#include "models/heads/text_classifier.h"

namespace recurlab::experiments {
namespace {

using Clock = std::chrono::steady_clock;

int64_t foldsOf(const ClassificationConfig& c, const std::string& dataset) {
  return classificationDataset(dataset).cross_validation ? c.folds : 1;
}

std::string duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  char buf[32];
  const long s = std::lround(seconds);
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

bool finished(const Hdf5RunLog& log, const std::string& group) {
  return log.exists(group) && log.attribute(group, "status").has_value();
}

}  // namespace

std::string ClassificationUnit::group() const {
  const std::string base = "/" + dataset + "/" + model;
  if (kind == Kind::Trial) return base + "/trials/" + std::to_string(trial);
  return base + "/folds/" + std::to_string(fold) + "/seeds/" + std::to_string(seed_index);
}

std::string ClassificationUnit::describe() const {
  if (kind == Kind::Trial) return dataset + " " + model + " trial " + std::to_string(trial);
  return dataset + " " + model + " fold " + std::to_string(fold) + " seed " +
         std::to_string(seed_index);
}

const std::vector<std::string>& classificationEpochColumns() {
  static const std::vector<std::string> columns = {
      "epoch", "train_loss", "train_acc", "dev_acc", "test_acc",
      "lr",    "seconds",    "examples_per_second"};
  return columns;
}

std::vector<ClassificationUnit> classificationUnits(const ClassificationConfig& c) {
  std::vector<ClassificationUnit> units;
  if (c.searches())
    for (const auto& d : c.datasets)
      for (const auto& m : c.models)
        for (int64_t t = 0; t < c.trials; ++t)
          units.push_back({ClassificationUnit::Kind::Trial, d, m.name, t, 0, 0});
  for (const auto& d : c.datasets)
    for (const auto& m : c.models)
      for (int64_t f = 0; f < foldsOf(c, d); ++f)
        for (int64_t s = 0; s < c.seeds; ++s)
          units.push_back({ClassificationUnit::Kind::Final, d, m.name, 0, f, s});
  return units;
}

ClassificationExperiment::ClassificationExperiment(ClassificationConfig config,
                                                   std::string data_dir, Shard shard)
    : config_(std::move(config)),
      data_dir_(std::move(data_dir)),
      shard_(shard),
      units_(classificationUnits(config_)) {}

ClassificationExperiment::~ClassificationExperiment() = default;

std::vector<ClassificationUnit> ClassificationExperiment::shardUnits() const {
  std::vector<ClassificationUnit> mine;
  for (size_t i = 0; i < units_.size(); ++i)
    if (shard_.owns(i)) mine.push_back(units_[i]);
  return mine;
}

void ClassificationExperiment::checkData() {
  for (const auto& d : config_.datasets)
    checkClassificationDatasetPresent(data_dir_, classificationDataset(d));
  for (const auto& d : config_.datasets) data(d);
  if (!config_.embeddings.empty() && !std::filesystem::is_regular_file(config_.embeddings))
    throw std::runtime_error("embeddings: " + config_.embeddings +
                             " not found (word2vec binary/text or GloVe text expected)");
}

const ClassificationData& ClassificationExperiment::data(const std::string& dataset) {
  auto it = data_.find(dataset);
  if (it != data_.end()) return it->second;
  auto loaded = loadClassificationData(data_dir_, dataset, config_.empty_sentences);
  for (const auto& w : loaded.warnings) std::cerr << "warning: " << w << "\n";
  return data_.emplace(dataset, std::move(loaded)).first->second;
}

const WordVectors* ClassificationExperiment::wordVectors() {
  if (config_.embeddings.empty()) return nullptr;
  if (!vectors_) {
    // Only the benchmark's words are kept, so a 3M-word file stays small in memory.
    std::unordered_set<std::string> words;
    for (const auto& d : config_.datasets) {
      const auto& x = data(d);
      for (const auto* part : {&x.all, &x.train, &x.dev, &x.test})
        for (const auto& s : *part) words.insert(s.tokens.begin(), s.tokens.end());
    }
    WordVectorLoadOptions options;
    options.vocabulary = &words;
    std::cerr << "loading word vectors from " << config_.embeddings << " ..." << std::endl;
    vectors_ = std::make_unique<WordVectors>(loadWordVectors(config_.embeddings, options));
    std::cerr << "word vectors: " << vectors_->size() << " of the benchmark's " << words.size()
              << " words, dimension " << vectors_->dim << "\n";
  }
  return vectors_.get();
}

std::vector<std::string> ClassificationExperiment::unfinishedGroups(const Hdf5RunLog& log) const {
  std::vector<std::string> groups;
  for (const auto& u : shardUnits())
    if (log.exists(u.group()) && !log.attribute(u.group(), "status")) groups.push_back(u.group());
  return groups;
}

uint64_t ClassificationExperiment::trainingSeed(const ClassificationUnit& u) const {
  const std::string base = "train/" + u.dataset + "/" + u.model;
  if (u.kind == ClassificationUnit::Kind::Trial)
    return deriveSeed(config_.seed, base + "/trial/" + std::to_string(u.trial));
  return deriveSeed(config_.seed,
                    base + "/fold/" + std::to_string(u.fold) + "/seed/" + std::to_string(u.seed_index));
}

nlohmann::json ClassificationExperiment::unitConfig(const ClassificationUnit& u,
                                                    const Hdf5RunLog& log,
                                                    const std::string& folder,
                                                    int64_t* chosen_trial) {
  const auto tmpl = config_.unitTemplate(config_.model(u.model));
  *chosen_trial = -1;
  if (u.kind == ClassificationUnit::Kind::Trial || !config_.searches()) {
    const int64_t t = u.kind == ClassificationUnit::Kind::Trial ? u.trial : 0;
    return sampleSearchSpaces(
        tmpl, deriveSeed(config_.seed, "config/" + u.dataset + "/" + u.model + "/" + std::to_string(t)));
  }
  // Final unit after a search: every trial must be finished in some log of the folder.
  std::vector<std::unique_ptr<Hdf5RunLog>> others;
  for (const auto& f : runLogFiles(folder)) {
    if (std::filesystem::equivalent(f, log.path())) continue;
    try {
      others.push_back(std::make_unique<Hdf5RunLog>(f, Hdf5RunLog::Mode::ReadOnly));
    } catch (const std::exception&) {
      // Another shard may be writing it right now; its trials count as not finished.
    }
  }
  double best = -1;
  nlohmann::json best_config;
  for (int64_t t = 0; t < config_.trials; ++t) {
    const ClassificationUnit trial{ClassificationUnit::Kind::Trial, u.dataset, u.model, t, 0, 0};
    const Hdf5RunLog* holder = finished(log, trial.group()) ? &log : nullptr;
    for (const auto& o : others)
      if (!holder && finished(*o, trial.group())) holder = o.get();
    if (!holder) return nullptr;
    if (holder->stringAttribute(trial.group(), "status") != "finished") continue;
    const double dev = holder->doubleAttribute(trial.group(), "best_dev_acc");
    if (dev > best) {
      best = dev;
      best_config = nlohmann::json::parse(holder->stringAttribute(trial.group(), "config"));
      *chosen_trial = t;
    }
  }
  if (*chosen_trial < 0)
    throw std::runtime_error(u.dataset + " " + u.model + ": every search trial diverged; "
                             "narrow the search ranges (e.g. a lower train.lr)");
  return best_config;
}

ClassificationRunReport ClassificationExperiment::run(Hdf5RunLog& log, const std::string& folder,
                                                      const ClassificationRunHooks& hooks) {
  std::ostream& out = hooks.progress ? *hooks.progress : std::cerr;
  ClassificationRunReport report;
  const auto mine = shardUnits();
  std::vector<ClassificationUnit> todo;
  for (const auto& u : mine) {
    if (finished(log, u.group()))
      ++report.already_finished;
    else
      todo.push_back(u);
  }
  if (report.already_finished)
    out << "resume: " << report.already_finished << " of " << mine.size()
        << " units already finished in " << log.path() << "\n";
  log.setAttribute("/", "units_total", static_cast<int64_t>(units_.size()));
  log.setAttribute("/", "units_in_shard", static_cast<int64_t>(mine.size()));

  const auto run_start = Clock::now();
  int64_t units_timed = 0;
  double unit_seconds = 0;
  for (size_t k = 0; k < todo.size(); ++k) {
    const auto& u = todo[k];
    int64_t chosen_trial = -1;
    const auto unit_json = unitConfig(u, log, folder, &chosen_trial);
    if (unit_json.is_null()) {
      out << u.describe() << ": waiting for search trials of other shards; run this shard "
          << "again once they are done\n";
      ++report.waiting;
      continue;
    }
    const auto unit_start = Clock::now();
    const auto train = TrainOptions::fromJson(unit_json.at("train"), u.describe() + " train");
    const auto& dataset = data(u.dataset);
    auto split = makeClassificationSplit(dataset, static_cast<int>(u.fold),
                                         static_cast<int>(config_.cv_folds),
                                         static_cast<uint64_t>(config_.split_seed),
                                         config_.dev_fraction);
    const uint64_t seed = trainingSeed(u);
    if (train.max_train_examples > 0 &&
        split.train.size() > static_cast<size_t>(train.max_train_examples)) {
      const auto order = seededPermutation(split.train.size(), deriveSeed(seed, "subsample"));
      std::vector<LabeledSentence> kept;
      for (int64_t i = 0; i < train.max_train_examples; ++i) kept.push_back(split.train[order[i]]);
      split.train = std::move(kept);
    }
    auto embedding = classifierEmbeddings(split, wordVectors(), train.embed_dim,
                                          deriveSeed(seed, "oov"));
    EncodedSplits encoded;
    auto encode = [&](const std::vector<LabeledSentence>& xs, std::vector<EncodedSentence>& to) {
      for (const auto& x : xs) to.push_back({embedding.vocabulary.encode(x.tokens), x.label});
    };
    encode(split.train, encoded.train);
    encode(split.dev, encoded.dev);
    encode(split.test, encoded.test);

    torch::manual_seed(seed);  // model initialisation
    auto encoder = models::makeEncoder(unit_json.at("encoder").get<std::string>(),
                                       unit_json.at("model"), embedding.dim);
    models::TextClassifierOptions head;
    head.vocab_size = embedding.vocabulary.size();
    head.embed_dim = embedding.dim;
    head.num_classes = split.num_classes;
    head.embed_dropout = train.embed_dropout;
    head.dropout = train.dropout;
    head.pretrained = embedding.pretrained;
    head.pooling = models::choosePooling(unit_json.value("pooling", "auto"),
                                         unit_json.at("encoder").get<std::string>(),
                                         unit_json.at("model"));
    models::TextClassifier model(head, encoder);
    int64_t parameters = 0;
    for (const auto& p : model->parameters())
      if (p.requires_grad()) parameters += p.numel();

    const std::string g = u.group();
    log.createGroup(g);
    log.setAttribute(g, "kind", std::string(u.kind == ClassificationUnit::Kind::Trial ? "trial" : "final"));
    log.setAttribute(g, "dataset", u.dataset);
    log.setAttribute(g, "model", u.model);
    log.setAttribute(g, "encoder", unit_json.at("encoder").get<std::string>());
    log.setAttribute(g, "trial", u.trial);
    log.setAttribute(g, "fold", u.fold);
    log.setAttribute(g, "seed_index", u.seed_index);
    log.setAttribute(g, "seed", static_cast<int64_t>(seed));
    log.setAttribute(g, "split_seed", config_.split_seed);
    log.setAttribute(g, "config", unit_json.dump());
    if (chosen_trial >= 0) log.setAttribute(g, "chosen_trial", chosen_trial);
    log.setAttribute(g, "train_examples", static_cast<int64_t>(encoded.train.size()));
    log.setAttribute(g, "dev_examples", static_cast<int64_t>(encoded.dev.size()));
    log.setAttribute(g, "test_examples", static_cast<int64_t>(encoded.test.size()));
    log.setAttribute(g, "classes", static_cast<int64_t>(split.num_classes));
    log.setAttribute(g, "vocabulary", embedding.vocabulary.size());
    log.setAttribute(g, "pretrained_words", embedding.pretrained_words);
    log.setAttribute(g, "parameters", parameters);
    log.setAttribute(g, "start_time", utcTimestamp());
    const std::string table = g + "/epochs";
    log.createTable(table, classificationEpochColumns());
    log.flush();

    const std::string label =
        u.kind == ClassificationUnit::Kind::Trial
            ? u.dataset + " " + u.model + " trial " + std::to_string(u.trial + 1) + "/" +
                  std::to_string(config_.trials)
            : u.dataset + " " + u.model + " fold " + std::to_string(u.fold) + " seed " +
                  std::to_string(u.seed_index);
    TrainHooks train_hooks;
    train_hooks.on_epoch = [&](const EpochRecord& r, const TrainOutcome& so_far) {
      log.appendRow(table, {static_cast<double>(r.epoch), r.train_loss, r.train_acc, r.dev_acc,
                            r.test_acc, r.lr, r.seconds, r.examples_per_second});
      const double elapsed_unit = std::chrono::duration<double>(Clock::now() - unit_start).count();
      const double per_epoch = elapsed_unit / static_cast<double>(r.epoch);
      const double unit_left = per_epoch * static_cast<double>(train.max_epochs - r.epoch);
      const double unit_total = elapsed_unit + unit_left;
      const double typical = units_timed ? unit_seconds / units_timed : unit_total;
      const double run_left = unit_left + typical * static_cast<double>(todo.size() - k - 1);
      char line[512];
      std::snprintf(line, sizeof line,
                    "[%zu/%zu] %s epoch %lld/%lld loss %.4f dev %.2f%% (best %.2f%%) "
                    "%.0f ex/s %.1fs/epoch ETA unit %s run %s",
                    static_cast<size_t>(k + 1), todo.size(), label.c_str(),
                    static_cast<long long>(r.epoch), static_cast<long long>(train.max_epochs),
                    r.train_loss, 100 * r.dev_acc, 100 * so_far.best_dev_acc,
                    r.examples_per_second, r.seconds, duration(unit_left).c_str(),
                    duration(run_left).c_str());
      out << line << std::endl;
      if (hooks.after_epoch) hooks.after_epoch(u, r.epoch);
    };
    const auto outcome = trainClassifier(model, encoded, train, seed, train_hooks);

    log.setAttribute(g, "stop_reason", outcome.stop_reason);
    log.setAttribute(g, "epochs", outcome.epochs);
    log.setAttribute(g, "best_epoch", outcome.best_epoch);
    log.setAttribute(g, "best_dev_acc", outcome.best_dev_acc);
    log.setAttribute(g, "test_acc", outcome.test_acc);
    log.setAttribute(g, "train_acc_at_best", outcome.train_acc_at_best);
    log.setAttribute(g, "train_seconds", outcome.train_seconds);
    log.setAttribute(g, "seconds_per_epoch",
                     outcome.epochs ? outcome.train_seconds / static_cast<double>(outcome.epochs) : 0.0);
    log.setAttribute(g, "final_lr", outcome.final_lr);
    log.setAttribute(g, "end_time", utcTimestamp());
    // Written last: the unit counts as finished from here on (resume skips it).
    log.setAttribute(g, "status", std::string(outcome.diverged ? "diverged" : "finished"));
    log.flush();
    if (outcome.diverged) {
      ++report.diverged;
      out << u.describe() << ": " << outcome.stop_reason << "; the search goes on\n";
    } else {
      out << u.describe() << ": test " << 100 * outcome.test_acc << "% at dev "
          << 100 * outcome.best_dev_acc << "% (epoch " << outcome.best_epoch << " of "
          << outcome.epochs << ", " << outcome.stop_reason << ")\n";
    }
    ++report.ran;
    ++units_timed;
    unit_seconds += std::chrono::duration<double>(Clock::now() - unit_start).count();
    if (hooks.after_unit) hooks.after_unit(u);
  }
  out << "done: " << report.ran << " units in "
      << duration(std::chrono::duration<double>(Clock::now() - run_start).count()) << "\n";
  return report;
}

}  // namespace recurlab::experiments
