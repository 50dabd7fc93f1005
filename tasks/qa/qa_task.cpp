#include "tasks/qa/qa_task.h"

#include <torch/torch.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "common/atomic_file.h"
#include "experiments/data/vocabulary_file.h"
#include "experiments/data/word_vectors.h"
#include "common/runtime/kill_point.h"
#include "experiments/harness/noun_count.h"
#include "experiments/kept_model/kept_model.h"
#include "tasks/qa/document_reader.h"
#include "tasks/qa/reader_training.h"
#include "tasks/qa/squad_evaluation.h"
#include "experiments/search/seed_sequence.h"
#include "experiments/training/trainer.h"
#include "experiments/harness/unit_training.h"

namespace recurlab::experiments::qa {
namespace fs = std::filesystem;
namespace {

std::vector<int64_t> subsample(std::vector<int64_t> xs, int64_t keep, uint64_t seed) {
  if (keep <= 0 || static_cast<int64_t>(xs.size()) <= keep) return xs;
  const auto order = seededPermutation(xs.size(), seed);
  std::vector<size_t> picked(order.begin(), order.begin() + keep);
  std::sort(picked.begin(), picked.end());  // file order
  std::vector<int64_t> out;
  for (const auto i : picked) out.push_back(xs[i]);
  return out;
}

// The reader's vocabulary: the training questions' and paragraphs' words; with word vectors,
// DrQA's restricted vocabulary (only words with a vector) and its embedding matrix.
struct ReaderVocabulary {
  Vocabulary vocabulary;
  std::vector<float> pretrained;  // vocabulary x embed_dim, or empty: a random init
  int64_t tune_top = 0, pretrained_words = 0;
};

ReaderVocabulary readerVocabulary(const SquadDataset& train_data, const QaTokens& train_tokens,
                                  const std::vector<int64_t>& questions,
                                  const QaReaderOptions& reader, const std::string& embeddings,
                                  uint64_t seed) {
  ReaderVocabulary out;
  int64_t question_words = 0;
  auto& vocabulary = out.vocabulary;
  vocabulary = buildQaVocabulary(train_data, train_tokens, questions, reader.min_count,
                                 &question_words);
  if (embeddings.empty()) return out;
  // DrQA's restricted vocabulary: only words with a vector; the most frequent question words
  // (first in the vocabulary) are the ones fine-tuned.
  std::unordered_set<std::string> words;
  for (int64_t i = 2; i < vocabulary.size(); ++i) words.insert(vocabulary.word(i));
  WordVectorLoadOptions o;
  o.vocabulary = &words;
  const auto vectors = loadWordVectors(embeddings, o);
  if (vectors.dim != reader.embed_dim)
    throw std::invalid_argument("qa config: reader.embed_dim = " + std::to_string(reader.embed_dim) +
                                " but " + embeddings + " has dimension " + std::to_string(vectors.dim));
  Vocabulary restricted;
  int64_t kept_question_words = 0;
  for (int64_t i = 2; i < vocabulary.size(); ++i)
    if (vectors.find(vocabulary.word(i))) {
      restricted.add(vocabulary.word(i));
      if (i - 2 < question_words) ++kept_question_words;
    }
  vocabulary = restricted;
  torch::manual_seed(deriveSeed(seed, "unknown-vector"));
  const auto unk = torch::randn({reader.embed_dim});
  out.pretrained.assign(static_cast<size_t>(vocabulary.size() * reader.embed_dim), 0.0f);
  for (int64_t k = 0; k < reader.embed_dim; ++k) out.pretrained[static_cast<size_t>(reader.embed_dim + k)] = unk[k].item<float>();
  for (int64_t i = 2; i < vocabulary.size(); ++i) {
    const float* v = vectors.vector(*vectors.find(vocabulary.word(i)));
    std::copy(v, v + reader.embed_dim, out.pretrained.begin() + i * reader.embed_dim);
  }
  out.pretrained_words = vocabulary.size() - 2;
  out.tune_top = std::min(reader.tune_top, kept_question_words);
  return out;
}

// The best dev epoch's weights (those of the reported dev F1), or the last epoch's, and what
// rebuilds the reader (predict_command.h).
TrainedModel keptReader(const QaConfig& config, const QaModelSpec& spec,
                        const DocumentReaderOptions& o, int64_t max_span, int64_t batch_size,
                        const Vocabulary& vocabulary, const DocumentReader& model,
                        const TrainOutcome& outcome, const UnitResult& r, Hdf5RunLog& log,
                        const std::string& g) {
  TrainedModel kept;
  kept.task = "qa";
  kept.model = spec.name;
  kept.weights = keepModelNamed(config.keep_model);
  kept.best = {"dev_f1", r.metrics.at("best_dev_f1"), outcome.best_epoch};
  kept.last = lastEpochScore(log, g, "dev_f1", outcome.epochs);
  kept.config = {{"encoder", {{"encoder", spec.encoder.encoder},
                              {"config", spec.encoder.config},
                              {"concat_layers", spec.encoder.concat_layers},
                              {"layers", spec.encoder.layers},
                              {"layer_dropout", spec.encoder.layer_dropout}}},
                 {"embed_dim", o.embed_dim},
                 {"features", o.features},
                 {"embed_dropout", o.embed_dropout},
                 {"output_dropout", o.output_dropout},
                 {"tune_top", o.tune_top},
                 {"vocabulary", vocabulary.size()},
                 {"max_span", max_span},
                 {"batch_size", batch_size},
                 {"max_context_chars", config.data.max_context_chars}};
  kept.files.push_back({kQaVocabularyFile, [vocabulary](const std::string& path) {
                          writeVocabularyFile(vocabulary, path);
                        }});
  kept.module = model.ptr();
  return kept;
}

}  // namespace

QaSplit offlineSplit(const SquadDataset& data, const QaDataOptions& o) {
  const auto articles = data.titles.size();
  if (static_cast<size_t>(o.dev_articles) >= articles)
    throw std::invalid_argument("qa config: data.dev_articles = " + std::to_string(o.dev_articles) +
                                " leaves no training article: the dev file has " +
                                std::to_string(articles) + " articles (the offline protocol " +
                                "holds out that many and trains on the others)");
  const auto order = seededPermutation(articles, static_cast<uint64_t>(o.split_seed));
  std::set<int64_t> held_out;
  QaSplit s;
  s.protocol = "offline";
  for (int64_t k = 0; k < o.dev_articles; ++k) {
    held_out.insert(static_cast<int64_t>(order[static_cast<size_t>(k)]));
  }
  for (const auto a : held_out) s.dev_titles.push_back(data.titles[static_cast<size_t>(a)]);
  for (size_t q = 0; q < data.questions.size(); ++q) {
    const auto article = data.paragraphs[static_cast<size_t>(data.questions[q].paragraph)].article;
    (held_out.count(article) ? s.dev : s.train).push_back(static_cast<int64_t>(q));
  }
  const auto seed = static_cast<uint64_t>(o.split_seed);
  s.train = subsample(s.train, o.max_train_questions, deriveSeed(seed, "train-subsample"));
  s.dev = subsample(s.dev, o.max_dev_questions, deriveSeed(seed, "dev-subsample"));
  return s;
}

QaTask::QaTask(QaConfig config, std::string data_dir)
    : config_(std::move(config)), data_dir_(std::move(data_dir)) {}

QaTask::~QaTask() = default;

void QaTask::checkData() {
  const auto& d = config_.data;
  auto under_data = [&](const std::string& file) {
    return fs::path(file).is_absolute() ? file : data_dir_ + "/" + file;
  };
  const std::string dev_path = under_data(d.dev_file);
  const std::string train_path = under_data(d.train_file);
  if (!fs::exists(dev_path))
    throw std::runtime_error(dev_path + " not found: run scripts/get-data.sh squad (or name your "
                             "own SQuAD-format files in data.train and data.dev)");
  const bool have_train = fs::exists(train_path);
  if (d.protocol == "official" && !have_train)
    throw std::runtime_error(train_path + " not found (data.protocol = official): run "
                             "scripts/get-data.sh squad with network access, or use the offline protocol");
  SquadLoadOptions load;
  load.max_context_chars = d.max_context_chars;
  auto report = [](const SquadDataset& x) {
    std::cerr << x.path << ": " << x.titles.size() << " articles, " << x.paragraphs.size()
              << " paragraphs, " << x.questions.size() << " questions, " << x.answers << " answers\n";
    if (x.mismatched_answers > 0) {
      std::cerr << "warning: " << x.path << ": " << x.mismatched_answers
                << " answers do not equal the context at their answer_start (not trained on), "
                   "questions:";
      for (const auto& id : x.mismatched_ids) std::cerr << " " << id;
      std::cerr << "\n";
    }
    if (x.truncated_contexts > 0)
      std::cerr << "warning: " << x.path << ": " << x.truncated_contexts
                << " contexts truncated to data.max_context_chars, cutting off "
                << x.truncated_answers << " answers\n";
  };
  dev_data_ = std::make_unique<SquadDataset>(loadSquad(dev_path, load));
  report(*dev_data_);
  dev_tokens_ = std::make_unique<QaTokens>(tokenizeDataset(*dev_data_));
  if (d.protocol == "official" || (d.protocol == "auto" && have_train)) {
    train_data_ = std::make_unique<SquadDataset>(loadSquad(train_path, load));
    report(*train_data_);
    train_tokens_ = std::make_unique<QaTokens>(tokenizeDataset(*train_data_));
    split_.protocol = "official";
    for (size_t q = 0; q < train_data_->questions.size(); ++q) split_.train.push_back(static_cast<int64_t>(q));
    for (size_t q = 0; q < dev_data_->questions.size(); ++q) split_.dev.push_back(static_cast<int64_t>(q));
    const auto seed = static_cast<uint64_t>(d.split_seed);
    split_.train = subsample(split_.train, d.max_train_questions, deriveSeed(seed, "train-subsample"));
    split_.dev = subsample(split_.dev, d.max_dev_questions, deriveSeed(seed, "dev-subsample"));
  } else {
    split_ = offlineSplit(*dev_data_, d);
  }
  if (!config_.embeddings.empty() && !fs::is_regular_file(config_.embeddings))
    throw std::runtime_error("embeddings: " + config_.embeddings + " not found (GloVe text expected)");
}

std::string QaTask::describe() const {
  return "protocol " + split_.protocol +
         (split_.protocol == "offline"
              ? " (article-disjoint split of dev-v1.1.json; not comparable with published numbers)"
              : std::string()) +
         ", " + std::to_string(split_.train.size()) + " training and " +
         std::to_string(split_.dev.size()) + " dev questions, " +
         nounCount(config_.models.size(), "model");
}

void QaTask::prepare(const std::string& run_folder) {
  run_dir_ = run_folder;
  const std::string eval_data = run_folder + "/eval-data.json";
  if (fs::exists(eval_data)) return;
  writeFileAtomically(eval_data, [&](const std::string& temporary) {
    writeSquadSubset(*dev_data_, split_.dev, temporary);
  });
  killPoint("eval-data-written");
}

void QaTask::describeRun(Hdf5RunLog& log) const {
  log.setAttribute("/", "protocol", split_.protocol);
}

std::vector<Unit> QaTask::units() const {
  std::vector<Unit> us;
  for (const auto& m : config_.models)
    us.push_back({Unit::Kind::Final, "/" + m.name, "QA " + m.name, "qa/" + m.name, 0, "train/" + m.name});
  return us;
}

const QaModelSpec& QaTask::model(const Unit& unit) const {
  for (const auto& m : config_.models)
    if ("/" + m.name == unit.group) return m;
  throw std::invalid_argument("qa: no model for unit " + unit.group);
}

nlohmann::json QaTask::unitTemplate(const Unit& unit) const { return config_.unitJson(model(unit)); }

void QaTask::logUnitData(Hdf5RunLog& log, const std::string& g, const QaModelSpec& spec,
                         const UnitCounts& counts) const {
  log.setAttribute(g, "model", spec.name);
  log.setAttribute(g, "encoder", spec.encoder.encoder);
  log.setAttribute(g, "protocol", split_.protocol);
  log.setAttribute(g, "comparable_with_published", static_cast<int64_t>(split_.protocol == "official"));
  log.setAttribute(g, "split_seed", config_.data.split_seed);
  log.setAttribute(g, "train_questions", static_cast<int64_t>(split_.train.size()));
  log.setAttribute(g, "train_examples", counts.train_examples);
  log.setAttribute(g, "train_unaligned_skipped", counts.train_unaligned_skipped);
  log.setAttribute(g, "dev_questions", counts.dev_questions);
  log.setAttribute(g, "vocabulary", counts.vocabulary);
  log.setAttribute(g, "pretrained_words", counts.pretrained_words);
  log.setAttribute(g, "tuned_words", counts.tuned_words);
  log.setAttribute(g, "parameters", counts.parameters);
  log.setAttribute(g, "recurrent_parameters", counts.recurrent_parameters);
  const SquadDataset& train_data = train_data_ ? *train_data_ : *dev_data_;
  log.setAttribute(g, "mismatched_answers", train_data.mismatched_answers +
                                                (train_data_ ? dev_data_->mismatched_answers : 0));
  log.setAttribute(g, "truncated_contexts", train_data.truncated_contexts +
                                                (train_data_ ? dev_data_->truncated_contexts : 0));
  std::string held_out;
  for (const auto& t : split_.dev_titles) held_out += (held_out.empty() ? "" : ", ") + t;
  if (!held_out.empty()) log.setAttribute(g, "dev_articles", held_out);
}

UnitResult QaTask::runUnit(const Unit& unit, UnitContext& ctx) {
  const auto& spec = model(unit);
  const auto reader = config_.readerOptions(spec);
  const auto train_options = config_.trainOptions(spec);
  const SquadDataset& train_data = train_data_ ? *train_data_ : *dev_data_;
  const QaTokens& train_tokens = train_tokens_ ? *train_tokens_ : *dev_tokens_;

  ReaderVocabulary chosen =
      readerVocabulary(train_data, train_tokens, split_.train, reader, config_.embeddings, ctx.seed);
  const Vocabulary& vocabulary = chosen.vocabulary;
  const int64_t tune_top = chosen.tune_top, pretrained_words = chosen.pretrained_words;

  std::vector<QaExample> train_examples, dev_examples;
  int64_t unaligned = 0;
  for (const auto q : split_.train) {
    auto x = makeExample(train_data, train_tokens, q, vocabulary);
    if (x.start < 0) {
      ++unaligned;  // no answer on token boundaries: skipped in training (DrQA)
      continue;
    }
    train_examples.push_back(std::move(x));
  }
  for (const auto q : split_.dev) dev_examples.push_back(makeExample(*dev_data_, *dev_tokens_, q, vocabulary));

  torch::manual_seed(ctx.seed);  // model initialisation
  DocumentReaderOptions o;
  o.vocab_size = vocabulary.size();
  o.embed_dim = reader.embed_dim;
  o.features = kParagraphFeatures;
  o.embed_dropout = reader.embed_dropout;
  o.output_dropout = reader.output_dropout;
  o.encoder = spec.encoder;
  o.pretrained = std::move(chosen.pretrained);
  o.tune_top = tune_top;
  DocumentReader model(o);
  int64_t parameters = 0, recurrent_parameters = 0;
  for (const auto& p : model->named_parameters()) {
    parameters += p.value().numel();
    if (p.key().find("_encoder.") != std::string::npos) recurrent_parameters += p.value().numel();
  }

  auto& log = ctx.log;
  const auto& g = ctx.group;
  logUnitData(log, g, spec,
              {static_cast<int64_t>(train_examples.size()), unaligned,
               static_cast<int64_t>(dev_examples.size()), vocabulary.size(), pretrained_words,
               tune_top, parameters, recurrent_parameters});

  const std::string predictions = run_dir_.empty() ? "" : run_dir_ + "/predictions-" + spec.name + ".json";
  ReaderTraining training(model, train_examples, dev_examples, *dev_data_, *dev_tokens_, train_options.batch_size,
                          reader.max_span, ctx.seed, predictions, torch::Device(ctx.execution.device));
  const auto outcome = train(training, train_options.optimizer, train_options.trainer, ctx.seed,
      trainerContextFor(ctx, ctx.config.dump()));

  UnitResult r = unitResultOf(outcome);
  auto best = [&](const char* name) { return bestMetric(outcome, name, 0.0); };
  r.metrics["best_dev_em"] = best("dev_em");
  r.metrics["best_dev_f1"] = best("dev_f1");
  r.metrics["eval_seconds"] = outcome.times.evaluation;
  if (!predictions.empty() && fs::exists(predictions)) {
    // The file the official evaluator would read: scored again as a check of the whole path.
    const auto score = evaluateSquad(*dev_data_, split_.dev, loadPredictions(predictions));
    r.metrics["predictions_em"] = score.exact_match;
    r.metrics["predictions_f1"] = score.f1;
    r.texts["predictions_file"] = fs::path(predictions).filename().string();
  }
  r.kept_model = keptReader(config_, spec, o, reader.max_span, train_options.batch_size,
                            vocabulary, model, outcome, r, log, g);
  return r;
}

}  // namespace recurlab::experiments::qa
