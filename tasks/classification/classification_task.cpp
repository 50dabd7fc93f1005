#include "tasks/classification/classification_task.h"

#include <torch/torch.h>

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <unordered_set>

#include "tasks/classification/classification_train_options.h"
#include "tasks/classification/classifier_embeddings.h"
#include "tasks/classification/classifier_training.h"
#include "tasks/classification/classify_command.h"
#include "experiments/harness/noun_count.h"
#include "experiments/kept_model/kept_model.h"
#include "experiments/search/seed_sequence.h"
#include "experiments/harness/unit_training.h"
#include "models/registry.h"
#include "models/heads/text_classifier.h"

namespace recurlab::experiments {
namespace {

// At most `max_examples` training sentences (0: all), a seeded random subset.
void subsampleTraining(ClassificationSplit& split, int64_t max_examples, uint64_t seed) {
  if (max_examples <= 0 || split.train.size() <= static_cast<size_t>(max_examples)) return;
  const auto order = seededPermutation(split.train.size(), deriveSeed(seed, "subsample"));
  std::vector<LabeledSentence> kept;
  for (int64_t i = 0; i < max_examples; ++i) kept.push_back(split.train[order[i]]);
  split.train = std::move(kept);
}

// The best dev epoch's weights (those the test accuracy came from), or the last epoch's, and
// what rebuilds the classifier (classify_command.h).
TrainedModel keptClassifier(const std::string& keep_model, const ClassificationUnitPlace& u,
                            const nlohmann::json& unit_json, const ClassifierEmbedding& embedding,
                            int64_t classes, int64_t batch_size,
                            const models::TextClassifier& model, const TrainOutcome& outcome,
                            const UnitResult& r, Hdf5RunLog& log, const std::string& g) {
  TrainedModel kept;
  kept.task = "classification";
  kept.model = u.model;
  kept.weights = keepModelNamed(keep_model);
  kept.best = {"test_acc", r.metrics.at("test_acc"), outcome.best_epoch};
  kept.last = lastEpochScore(log, g, "dev_acc", outcome.epochs);
  kept.config = {{"encoder", unit_json.at("encoder")},
                 {"config", unit_json.at("config")},
                 {"pooling", unit_json.value("pooling", "auto")},
                 {"embed_dim", embedding.dim},
                 {"classes", classes},
                 {"vocabulary", embedding.vocabulary.size()},
                 {"batch_size", batch_size},
                 {"dataset", u.dataset}};
  kept.files.push_back({kClassifierVocabularyFile, [vocabulary = embedding.vocabulary](
                                                       const std::string& path) {
                          writeVocabularyFile(vocabulary, path);
                        }});
  kept.module = model.ptr();
  return kept;
}

}  // namespace

ClassificationTask::ClassificationTask(ClassificationConfig config, std::string data_dir)
    : config_(std::move(config)), data_dir_(std::move(data_dir)) {
  const auto& c = config_;
  auto add = [&](Unit u, ClassificationUnitPlace place) {
    places_[u.group] = place;
    units_.push_back(std::move(u));
  };
  if (c.searches())
    for (const auto& d : c.datasets)
      for (const auto& m : c.models)
        for (int64_t t = 0; t < c.trials; ++t)
          add({Unit::Kind::Trial, "/" + d + "/" + m.name + "/trials/" + std::to_string(t),
               d + " " + m.name + " trial " + std::to_string(t + 1) + "/" + std::to_string(c.trials),
               d + "/" + m.name, t, "train/" + d + "/" + m.name + "/trial/" + std::to_string(t)},
              {d, m.name, t, 0, 0});
  for (const auto& d : c.datasets) {
    const int64_t folds = c.datasetSpec(d).cross_validation ? c.folds : 1;
    for (const auto& m : c.models)
      for (int64_t f = 0; f < folds; ++f)
        for (int64_t s = 0; s < c.seeds; ++s) {
          const std::string where = "/folds/" + std::to_string(f) + "/seeds/" + std::to_string(s);
          add({Unit::Kind::Final, "/" + d + "/" + m.name + where,
               d + " " + m.name + " fold " + std::to_string(f) + " seed " + std::to_string(s),
               d + "/" + m.name, 0,
               "train/" + d + "/" + m.name + "/fold/" + std::to_string(f) + "/seed/" + std::to_string(s)},
              {d, m.name, 0, f, s});
        }
  }
}

ClassificationTask::~ClassificationTask() = default;

const ClassificationUnitPlace& ClassificationTask::place(const Unit& unit) const {
  return places_.at(unit.group);
}

nlohmann::json ClassificationTask::unitTemplate(const Unit& unit) const {
  return config_.unitTemplate(config_.model(place(unit).model));
}

std::string ClassificationTask::describe() const {
  return nounCount(config_.datasets.size(), "dataset") + ", " +
         nounCount(config_.models.size(), "model") + ", " + nounCount(units_.size(), "unit") +
         " of work";
}

void ClassificationTask::checkData() {
  for (const auto& d : config_.datasets)
    checkClassificationDatasetPresent(data_dir_, config_.datasetSpec(d));
  for (const auto& d : config_.datasets) data(d);
  if (!config_.embeddings.empty() && !std::filesystem::is_regular_file(config_.embeddings))
    throw std::runtime_error("embeddings: " + config_.embeddings +
                             " not found (word2vec binary/text or GloVe text expected)");
}

const ClassificationData& ClassificationTask::data(const std::string& dataset) {
  auto it = data_.find(dataset);
  if (it != data_.end()) return it->second;
  auto loaded = loadClassificationData(data_dir_, config_.datasetSpec(dataset), config_.empty_sentences);
  for (const auto& w : loaded.warnings) std::cerr << "warning: " << w << "\n";
  return data_.emplace(dataset, std::move(loaded)).first->second;
}

const WordVectors* ClassificationTask::wordVectors() {
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

UnitResult ClassificationTask::runUnit(const Unit& unit, UnitContext& ctx) {
  const auto& u = place(unit);
  const auto& unit_json = ctx.config;
  const auto options = ClassificationTrainOptions::fromJson(unit_json.at("train"), unit.label + " train");
  const auto& head_options = options.classifier;
  const auto& dataset = data(u.dataset);
  auto split = makeClassificationSplit(dataset, static_cast<int>(u.fold),
                                       static_cast<int>(config_.cv_folds),
                                       static_cast<uint64_t>(config_.split_seed),
                                       config_.dev_fraction);
  const uint64_t seed = ctx.seed;
  subsampleTraining(split, head_options.max_train_examples, seed);
  auto embedding = classifierEmbeddings(split, wordVectors(), head_options.embed_dim,
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
                                     unit_json.at("config"), embedding.dim);
  models::TextClassifierOptions head;
  head.vocab_size = embedding.vocabulary.size();
  head.embed_dim = embedding.dim;
  head.num_classes = split.num_classes;
  head.embed_dropout = head_options.embed_dropout;
  head.dropout = head_options.dropout;
  head.pretrained = embedding.pretrained;
  head.sparse_gradients = head_options.sparse_embedding;
  head.pooling = models::choosePooling(unit_json.value("pooling", "auto"),
                                       unit_json.at("encoder").get<std::string>(),
                                       unit_json.at("config"));
  models::TextClassifier model(head, encoder);
  int64_t parameters = 0;
  for (const auto& p : model->parameters())
    if (p.requires_grad()) parameters += p.numel();

  auto& log = ctx.log;
  const std::string& g = ctx.group;
  log.setAttribute(g, "dataset", u.dataset);
  log.setAttribute(g, "model", u.model);
  log.setAttribute(g, "encoder", unit_json.at("encoder").get<std::string>());
  log.setAttribute(g, "fold", u.fold);
  log.setAttribute(g, "seed_index", u.seed_index);
  log.setAttribute(g, "split_seed", config_.split_seed);
  log.setAttribute(g, "train_examples", static_cast<int64_t>(encoded.train.size()));
  log.setAttribute(g, "dev_examples", static_cast<int64_t>(encoded.dev.size()));
  log.setAttribute(g, "test_examples", static_cast<int64_t>(encoded.test.size()));
  log.setAttribute(g, "classes", static_cast<int64_t>(split.num_classes));
  log.setAttribute(g, "vocabulary", embedding.vocabulary.size());
  log.setAttribute(g, "pretrained_words", embedding.pretrained_words);
  log.setAttribute(g, "parameters", parameters);

  // The Trainer moves the model to the device; the batches follow it there.
  ClassifierTraining training(model, encoded, head_options.batch_size, seed,
                              torch::Device(ctx.execution.device));
  const auto outcome = train(training, options.optimizer, options.trainer, seed,
      trainerContextFor(ctx, unit_json.dump()));

  UnitResult r = unitResultOf(outcome);
  auto best = [&](const char* name) { return bestMetric(outcome, name, 0.0); };
  r.metrics["best_dev_acc"] = best("dev_acc");
  r.metrics["test_acc"] = best("test_acc");
  r.metrics["train_acc_at_best"] = best("train_acc");
  r.metrics["data_seconds"] = outcome.times.data;
  r.metrics["forward_seconds"] = outcome.times.forward;
  r.metrics["backward_seconds"] = outcome.times.backward;
  r.metrics["step_seconds"] = outcome.times.step;
  r.metrics["eval_seconds"] = outcome.times.evaluation;
  r.metrics["checkpoint_seconds"] = outcome.times.checkpoint;
  r.kept_model = keptClassifier(config_.keep_model, u, unit_json, embedding, split.num_classes,
                                head_options.batch_size, model, outcome, r, log, g);
  return r;
}

}  // namespace recurlab::experiments
