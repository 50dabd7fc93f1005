#include "tasks/mt/mt_task.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "experiments/harness/noun_count.h"
#include "experiments/kept_model/kept_model.h"
#include "metrics/corpus_bleu.h"
#include "tasks/mt/mt_train_options.h"
#include "tasks/mt/parallel_corpus.h"
#include "experiments/search/seed_sequence.h"
#include "experiments/training/data_parallel.h"
#include "experiments/harness/unit_training.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::experiments {
namespace {

std::string joinLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

// The final model: the average of the last k epochs' weights (fairseq's average_checkpoints),
// else the last epoch's. Returns how many epochs' weights it holds.
int64_t averageLastEpochs(models::Seq2SeqModel& model, const CheckpointStore& checkpoints,
                          int64_t average_last) {
  if (average_last <= 1 || !checkpoints.enabled()) return 1;
  auto names = checkpoints.numbered("epoch-");
  if (static_cast<int64_t>(names.size()) > average_last)
    names.erase(names.begin(), names.end() - average_last);
  if (names.size() <= 1) return 1;
  std::vector<std::string> files;
  for (const auto& n : names) files.push_back(checkpoints.path(n));
  loadAveragedCheckpoints(model, files);
  return static_cast<int64_t>(files.size());
}

// Target tokens per second over the unit's training epochs (evaluation excluded).
double trainTokensPerSecond(const Hdf5RunLog& log, const std::string& g) {
  const auto table = log.readTable(g + "/epochs");
  const auto seconds = table.column("seconds");
  const auto speed = table.column("examples_per_second");
  double tokens = 0, total = 0;
  for (size_t i = 0; i < seconds.size(); ++i) {
    tokens += speed[i] * seconds[i];
    total += seconds[i];
  }
  return total > 0 ? tokens / total : 0.0;
}

}  // namespace

MtTask::MtTask(MtConfig config, std::string data_dir)
    : config_(std::move(config)), data_dir_(std::move(data_dir)) {
  for (const auto& m : config_.models) {
    Unit u;
    u.kind = Unit::Kind::Final;
    u.group = "/" + m.name;
    u.label = m.name;
    u.search = m.name;
    u.seed_purpose = "train/" + m.name;
    model_of_group_[u.group] = m.name;
    units_.push_back(u);
  }
}

MtTask::~MtTask() = default;

std::string MtTask::dataPath(const std::string& file) const {
  if (std::filesystem::path(file).is_absolute()) return file;
  return (std::filesystem::path(data_dir_) / file).string();
}

void MtTask::checkData() {
  for (const auto* pair : {&config_.train_files, &config_.valid_files, &config_.test_files})
    for (const auto* file : {&pair->source, &pair->target})
      if (!std::filesystem::is_regular_file(dataPath(*file)))
        throw std::runtime_error("data file " + dataPath(*file) +
                                 " not found: run scripts/get-data.sh multi30k (or name your "
                                 "own parallel files in the config's data.train/valid/test)");
}

std::string MtTask::describe() const {
  return nounCount(config_.models.size(), "model");
}

void MtTask::prepare(const std::string& run_folder) {
  const std::string subword_model_path =
      (std::filesystem::path(run_folder) / "subwords" / "joint.model").string();
  const auto policy = config_.empty_lines == "error" ? EmptyLinePolicy::Error : EmptyLinePolicy::Skip;
  auto load = [&](const MtFilePair& files) {
    return loadParallelCorpus(dataPath(files.source), dataPath(files.target), policy);
  };
  auto train = load(config_.train_files);
  auto valid = load(config_.valid_files);
  auto test = load(config_.test_files);
  counts_.train_lines = train.lines;
  counts_.train_empty = train.empty_pairs;
  counts_.valid_empty = valid.empty_pairs;
  counts_.test_empty = test.empty_pairs;

  // The joint subword model learns from the whole training text of both languages.
  std::vector<std::string> text;
  for (const auto& p : train.pairs) {
    text.push_back(p.source);
    text.push_back(p.target);
  }
  SubwordOptions options;
  options.type = config_.subword_type;
  options.vocabulary_size = config_.vocabulary_size;
  subwords_.emplace(SubwordModel::loadOrTrain(text, options, subword_model_path));
  data_.ids = {subwords_->padId(), subwords_->unkId(), subwords_->bosId(), subwords_->eosId()};

  // A seeded training subset (the quick config), then drop over-long pairs.
  std::vector<size_t> keep(train.pairs.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = i;
  if (config_.max_train_pairs > 0 && train.pairs.size() > static_cast<size_t>(config_.max_train_pairs)) {
    auto order = seededPermutation(train.pairs.size(),
                                   deriveSeed(static_cast<uint64_t>(config_.seed), "train-subset"));
    order.resize(static_cast<size_t>(config_.max_train_pairs));
    std::sort(order.begin(), order.end());
    counts_.train_subset_dropped = static_cast<int64_t>(train.pairs.size() - order.size());
    keep = order;
  }
  for (size_t i : keep) {
    EncodedPair e{subwords_->encode(train.pairs[i].source), subwords_->encode(train.pairs[i].target)};
    if (static_cast<int64_t>(std::max(e.source.size(), e.target.size())) > config_.max_length) {
      ++counts_.train_too_long;
      continue;
    }
    data_.train.push_back(std::move(e));
  }
  auto held_out = [&](const ParallelCorpus& corpus, int64_t limit, std::vector<EncodedPair>& pairs,
                      std::vector<std::string>& references, std::vector<std::string>* sources) {
    for (const auto& p : corpus.pairs) {
      if (limit > 0 && static_cast<int64_t>(pairs.size()) >= limit) break;
      pairs.push_back({subwords_->encode(p.source), subwords_->encode(p.target)});
      references.push_back(p.target);
      if (sources) sources->push_back(p.source);
    }
  };
  held_out(valid, config_.max_valid_pairs, data_.valid, data_.valid_references, nullptr);
  held_out(test, config_.max_test_pairs, data_.test, data_.test_references, &data_.test_sources);
  if (data_.train.empty()) throw std::runtime_error("no training pairs left after filtering");
  std::cout << "data: " << data_.train.size() << " training pairs (of " << counts_.train_lines
            << " lines; " << counts_.train_empty << " empty, " << counts_.train_too_long
            << " over " << config_.max_length << " subwords, " << counts_.train_subset_dropped
            << " outside the subset), " << data_.valid.size() << " valid, " << data_.test.size()
            << " test; subwords: " << subwords_->size() << " (" << config_.subword_type << ", "
            << subwords_->path() << ")" << std::endl;
}

nlohmann::json MtTask::unitTemplate(const Unit& unit) const {
  return config_.unitTemplate(config_.model(model_of_group_.at(unit.group)));
}

UnitResult MtTask::runUnit(const Unit& unit, UnitContext& ctx) {
  if (!subwords_) throw std::logic_error("MtTask::prepare must run before the units");
  const auto& unit_json = ctx.config;
  const auto options = MtTrainOptions::fromJson(unit_json.at("train"), unit.label + " train");
  const auto decode = MtDecodeOptions::fromJson(unit_json.at("decode"), unit.label + " decode");
  const uint64_t seed = ctx.seed;

  torch::manual_seed(seed);  // model initialisation
  const models::Seq2SeqSpecialIds ids{data_.ids.pad, data_.ids.unk, data_.ids.bos, data_.ids.eos};
  auto model = models::makeSeq2SeqModel(unit_json.at("model").get<std::string>(),
                                        unit_json.at("config"), subwords_->size(), ids);
  int64_t parameters = 0;
  for (const auto& p : model->parameters())
    if (p.requires_grad()) parameters += p.numel();

  auto& log = ctx.log;
  const std::string& g = ctx.group;
  logUnitData(log, g, unit_json.at("model").get<std::string>(), parameters);

  TranslationTrainingOptions to;
  to.max_tokens = options.max_tokens;
  to.label_smoothing = options.label_smoothing;
  to.test = decode;
  to.test_every_epoch = decode.test_every_epoch;
  TranslationTraining training(model, data_, *subwords_, to, seed,
                               torch::Device(ctx.execution.device));
  log.setAttribute(g, "batches_per_epoch", training.batchesPerEpoch());

  auto trainer = options.trainer;
  trainer.keep_last_epochs = std::max(trainer.keep_last_epochs, decode.average_last);
  const auto outcome = train(training, options.optimizer, trainer, seed,
      trainerContextFor(ctx, unit_json.dump()));

  UnitResult r = unitResultOf(outcome);
  r.metrics["best_valid_bleu"] = bestMetric(outcome, "valid_bleu", 0.0);
  if (outcome.diverged) return r;
  // Data-parallel: rank 0 alone averages its checkpoints, decodes the test set and writes the
  // log; the other ranks wait for it, then go on to the next unit together.
  DataParallelGroup* const ranks =
      ctx.data_parallel != nullptr && ctx.data_parallel->active() ? ctx.data_parallel : nullptr;
  if (ranks != nullptr && ranks->rank() > 0) {
    ranks->waitForRankZero("final test of " + unit.label);
    return r;
  }

  const int64_t averaged = averageLastEpochs(*model, ctx.checkpoints, decode.average_last);
  r.counts["checkpoints_averaged"] = averaged;

  r.metrics["final_valid_nll"] = training.meanNll(data_.valid);
  r.metrics["final_valid_ppl"] = std::exp(r.metrics["final_valid_nll"]);
  const auto translated = translateCorpus(*model, data_.test, data_.ids, to.test);
  writeTestScores(training.detokenize(translated.hypotheses), translated, decode, averaged, r,
                  log, g);
  if (!data_.test.empty())
    logAttention(*model, translated.hypotheses, decode.attention_sentence,
                 torch::Device(ctx.execution.device), log, g);
  r.kept_model = keptModel(unit, unit_json, model, decode, averaged, outcome, r, log, g);
  if (ranks != nullptr) ranks->waitForRankZero("final test of " + unit.label);
  return r;
}

void MtTask::logUnitData(Hdf5RunLog& log, const std::string& g, const std::string& model,
                         int64_t parameters) const {
  log.setAttribute(g, "model", model);
  log.setAttribute(g, "parameters", parameters);
  log.setAttribute(g, "vocabulary", subwords_->size());
  log.setAttribute(g, "subword_type", config_.subword_type);
  log.setAttribute(g, "train_lines", counts_.train_lines);
  log.setAttribute(g, "train_pairs", static_cast<int64_t>(data_.train.size()));
  log.setAttribute(g, "train_empty_pairs_skipped", counts_.train_empty);
  log.setAttribute(g, "train_too_long_dropped", counts_.train_too_long);
  log.setAttribute(g, "train_subset_dropped", counts_.train_subset_dropped);
  log.setAttribute(g, "max_length", config_.max_length);
  log.setAttribute(g, "valid_pairs", static_cast<int64_t>(data_.valid.size()));
  log.setAttribute(g, "test_pairs", static_cast<int64_t>(data_.test.size()));
  log.setAttribute(g, "valid_empty_pairs_skipped", counts_.valid_empty);
  log.setAttribute(g, "test_empty_pairs_skipped", counts_.test_empty);
  log.setAttribute(g, "source_language", config_.source_language);
  log.setAttribute(g, "target_language", config_.target_language);
}

void MtTask::writeTestScores(const std::vector<std::string>& text,
                             const CorpusTranslation& translated, const MtDecodeOptions& decode,
                             int64_t averaged, UnitResult& r, Hdf5RunLog& log,
                             const std::string& g) const {
  metrics::BleuOptions mixed, lowercase;
  lowercase.lowercase = true;
  const auto bleu = metrics::corpusBleu(text, {data_.test_references}, mixed);
  const auto bleu_lc = metrics::corpusBleu(text, {data_.test_references}, lowercase);
  r.metrics["test_bleu"] = bleu.score;
  r.metrics["test_bleu_lc"] = bleu_lc.score;
  if (metrics::mosesTokenizerSupports(config_.target_language)) {  // the papers' tokenized BLEU
    const auto tok_lc = metrics::tokenizedLowercasedBleuOptions(config_.target_language);
    const auto bleu_tok = metrics::corpusBleu(text, {data_.test_references}, tok_lc);
    r.metrics["test_bleu_tok_lc"] = bleu_tok.score;
    r.texts["test_bleu_tok_lc_line"] = metrics::formatBleu(bleu_tok, metrics::bleuSignature(tok_lc, 1), 2);
  }
  r.metrics["beam_sentences_per_second"] = translated.sentencesPerSecond();
  r.metrics["train_tokens_per_second"] = trainTokensPerSecond(log, g);
  r.texts["test_bleu_line"] =
      metrics::formatBleu(bleu, metrics::bleuSignature(mixed, 1), 2);
  r.texts["test_bleu_lc_line"] =
      metrics::formatBleu(bleu_lc, metrics::bleuSignature(lowercase, 1), 2);
  r.texts["test_decoding"] = "beam " + std::to_string(decode.beam) + ", " +
                             (decode.length_penalty == models::LengthPenalty::Gnmt ? "GNMT" : "fairseq") +
                             " length penalty alpha " + std::to_string(decode.alpha).substr(0, 4) +
                             ", average of the last " +
                             std::to_string(averaged) + " epoch checkpoints";
  log.writeText(g + "/test_translations", joinLines(text));
  log.writeText(g + "/test_references", joinLines(data_.test_references));
  log.writeText(g + "/test_sources", joinLines(data_.test_sources));
}

void MtTask::logAttention(models::Seq2SeqModel& model,
                          const std::vector<std::vector<int64_t>>& hypotheses,
                          int64_t attention_sentence, const torch::Device& device,
                          Hdf5RunLog& log, const std::string& g) const {
  const auto k = static_cast<size_t>(
      std::min<int64_t>(attention_sentence, static_cast<int64_t>(data_.test.size()) - 1));
  torch::NoGradGuard no_grad;
  model.eval();
  EncodedPair pair{data_.test[k].source, hypotheses[k]};
  const auto batch = makeTranslationBatch({pair}, {0}, data_.ids);
  const auto memory = model.encode(batch.source.to(device), batch.source_pad.to(device));
  const auto out = model.decode(batch.target_in.to(device), batch.target_pad.to(device), memory,
                                {}, true);
  std::vector<std::string> source_pieces, target_pieces;
  for (auto id : pair.source) source_pieces.push_back(subwords_->decode({id}));
  source_pieces.push_back("</s>");
  for (auto id : pair.target) target_pieces.push_back(subwords_->decode({id}));
  target_pieces.push_back("</s>");
  log.writeText(g + "/attention/source_pieces", joinLines(source_pieces));
  log.writeText(g + "/attention/target_pieces", joinLines(target_pieces));
  log.setAttribute(g + "/attention", "sentence", static_cast<int64_t>(k));
  for (size_t layer = 0; layer < out.attention.size(); ++layer) {
    const auto a = out.attention[layer].select(0, 0).to(torch::kDouble).cpu().contiguous();  // (T, S)
    std::vector<double> values(a.data_ptr<double>(), a.data_ptr<double>() + a.numel());
    log.writeArray(g + "/attention/layer_" + std::to_string(layer + 1), values,
                   {static_cast<uint64_t>(a.size(0)), static_cast<uint64_t>(a.size(1))});
  }
  log.setAttribute(g + "/attention", "layers", static_cast<int64_t>(out.attention.size()));
}

TrainedModel MtTask::keptModel(const Unit& unit, const nlohmann::json& unit_json,
                               const std::shared_ptr<models::Seq2SeqModel>& model,
                               const MtDecodeOptions& decode, int64_t averaged,
                               const TrainOutcome& outcome, const UnitResult& r, Hdf5RunLog& log,
                               const std::string& g) const {
  // The averaged model the test used, or the best or last epoch's (from their checkpoints).
  const models::Seq2SeqSpecialIds ids{data_.ids.pad, data_.ids.unk, data_.ids.bos, data_.ids.eos};
  TrainedModel kept;
  kept.task = "mt";
  kept.model = model_of_group_.at(unit.group);
  kept.weights = keepModelNamed(config_.keep_model);
  if (kept.weights == KeepModel::Averaged && averaged == 1)
    kept.weights = KeepModel::Last;  // what the test used
  const KeptScore tested{"test_bleu", r.metrics.at("test_bleu"), outcome.epochs};
  kept.best = kept.weights == KeepModel::Best
                  ? KeptScore{"valid_bleu", r.metrics.at("best_valid_bleu"), outcome.best_epoch}
                  : tested;
  kept.last = [&log, g, tested, averaged] {
    if (averaged == 1) return tested;
    // Not what the test used: its valid BLEU.
    return KeptScore{"valid_bleu", log.readTable(g + "/epochs").column("valid_bleu").back(),
                     tested.epoch};
  };
  kept.config = {{"model", unit_json.at("model")},
                 {"config", unit_json.at("config")},
                 {"vocabulary", subwords_->size()},
                 {"special_ids", {{"pad", ids.pad}, {"unk", ids.unk}, {"bos", ids.bos}, {"eos", ids.eos}}},
                 {"decode", decode.keptJson()},
                 {"source_language", config_.source_language},
                 {"target_language", config_.target_language},
                 {"subword_type", config_.subword_type}};
  kept.files.push_back({kMtSubwordFile, [subwords = subwords_->path()](const std::string& path) {
                          std::filesystem::copy_file(subwords, path);
                        }});
  kept.module = model;
  return kept;
}

}  // namespace recurlab::experiments
