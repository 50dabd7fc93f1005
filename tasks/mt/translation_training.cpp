#include "tasks/mt/translation_training.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "experiments/training/trainer.h"
#include "metrics/corpus_bleu.h"
#include "tasks/mt/label_smoothed_loss.h"
#include "tasks/mt/subword_model.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::experiments {
namespace {

struct TranslationTrainBatch : TrainBatch {
  TranslationBatch batch;

  // Sentences i*B/n .. (i+1)*B/n (columns) for data-parallel rank i of n, padded to the whole
  // batch's lengths. The Trainer weighs each rank's gradient of its mean token loss by its
  // target tokens: the sum over the ranks is the gradient of the whole batch's summed loss,
  // divided by its token count, as one process computes it.
  std::unique_ptr<TrainBatch> part(int i, int n) const override {
    const int64_t b = batch.source.size(1), from = b * i / n, to = b * (i + 1) / n;
    auto p = std::make_unique<TranslationTrainBatch>();
    auto columns = [&](const at::Tensor& t) { return t.narrow(1, from, to - from); };
    p->batch.source = columns(batch.source);
    p->batch.source_pad = columns(batch.source_pad);
    p->batch.target_in = columns(batch.target_in);
    p->batch.target_out = columns(batch.target_out);
    p->batch.target_pad = columns(batch.target_pad);
    p->batch.target_tokens = p->batch.target_pad.logical_not().sum().item<int64_t>();
    p->batch.indices.assign(batch.indices.begin() + from, batch.indices.begin() + to);
    return p;
  }
  bool empty() const override { return batch.source.size(1) == 0; }
};

// The batch's tensors on `device` (its host counts as they are).
TranslationBatch onDevice(TranslationBatch b, const torch::Device& device) {
  for (auto* t : {&b.source, &b.source_pad, &b.target_in, &b.target_out, &b.target_pad})
    *t = t->to(device);
  return b;
}

}  // namespace

TranslationTraining::TranslationTraining(std::shared_ptr<models::Seq2SeqModel> model,
                                         const TranslationData& data, const SubwordModel& subwords,
                                         const TranslationTrainingOptions& options, uint64_t seed,
                                         torch::Device device)
    : model_(std::move(model)), data_(data), subwords_(subwords), options_(options), seed_(seed),
      device_(device) {
  if (data_.train.empty()) throw std::invalid_argument("translation training: no training pairs");
  batches_ = cutTokenBatches(data_.train, options_.max_tokens, seed_);
}

torch::nn::Module& TranslationTraining::module() { return *model_; }

std::unique_ptr<TrainBatch> TranslationTraining::batch(int64_t epoch, int64_t index) {
  if (order_epoch_ != epoch) {
    order_ = batchOrder(static_cast<int64_t>(batches_.size()), seed_, epoch);
    order_epoch_ = epoch;
  }
  auto b = std::make_unique<TranslationTrainBatch>();
  b->batch = makeTranslationBatch(data_.train, batches_.at(static_cast<size_t>(order_.at(index))),
                                  data_.ids);
  return b;
}

StepOutput TranslationTraining::forward(const TrainBatch& batch) {
  const auto b = onDevice(static_cast<const TranslationTrainBatch&>(batch).batch, device_);
  const auto memory = model_->encode(b.source, b.source_pad);
  const auto out = model_->decode(b.target_in, b.target_pad, memory, {});
  const auto loss = labelSmoothedCrossEntropy(out.logits, b.target_out, b.target_pad,
                                              options_.label_smoothing, b.target_tokens);
  StepOutput step;
  step.loss = loss.loss / static_cast<double>(loss.tokens);
  step.examples = loss.tokens;
  step.tally_values = loss.nll.to(torch::kDouble).reshape({1});
  return step;
}

std::vector<std::string> TranslationTraining::evaluationNames() const {
  return {"valid_loss", "valid_ppl", "valid_bleu", "test_bleu", "test_bleu_lc",
          "test_sentences_per_second"};
}

double TranslationTraining::meanNll(const std::vector<EncodedPair>& pairs) {
  if (pairs.empty()) return 0.0;
  torch::NoGradGuard no_grad;
  const bool was_training = model_->is_training();
  model_->eval();
  // Summed on the device in float64, read once.
  auto nll = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device_));
  int64_t tokens = 0;
  for (const auto& indices : cutTokenBatches(pairs, options_.max_tokens, seed_)) {
    const auto b = onDevice(makeTranslationBatch(pairs, indices, data_.ids), device_);
    const auto memory = model_->encode(b.source, b.source_pad);
    const auto out = model_->decode(b.target_in, b.target_pad, memory, {});
    const auto loss =
        labelSmoothedCrossEntropy(out.logits, b.target_out, b.target_pad, 0.0, b.target_tokens);
    nll += loss.nll.to(torch::kDouble);
    tokens += loss.tokens;
  }
  model_->train(was_training);
  return nll.item<double>() / static_cast<double>(std::max<int64_t>(tokens, 1));
}

std::vector<std::string> TranslationTraining::detokenize(
    const std::vector<std::vector<int64_t>>& hypotheses) const {
  std::vector<std::string> text;
  text.reserve(hypotheses.size());
  for (const auto& h : hypotheses) text.push_back(subwords_.decode(h));
  return text;
}

std::vector<double> TranslationTraining::evaluate() {
  const double valid_nll = meanNll(data_.valid);
  TranslationOptions greedy = options_.test;
  greedy.beam = 1;
  const auto valid = translateCorpus(*model_, data_.valid, data_.ids, greedy);
  const double valid_bleu =
      metrics::corpusBleu(detokenize(valid.hypotheses), {data_.valid_references}).score;
  double test_bleu = 0, test_bleu_lc = 0, speed = 0;
  if (options_.test_every_epoch != "none") {
    TranslationOptions test = options_.test;
    if (options_.test_every_epoch == "greedy") test.beam = 1;
    const auto translated = translateCorpus(*model_, data_.test, data_.ids, test);
    const auto text = detokenize(translated.hypotheses);
    metrics::BleuOptions lowercase;
    lowercase.lowercase = true;
    test_bleu = metrics::corpusBleu(text, {data_.test_references}).score;
    test_bleu_lc = metrics::corpusBleu(text, {data_.test_references}, lowercase).score;
    speed = translated.sentencesPerSecond();
  }
  return {valid_nll, std::exp(valid_nll), valid_bleu, test_bleu, test_bleu_lc, speed};
}

}  // namespace recurlab::experiments
