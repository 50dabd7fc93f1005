#include "tasks/qa/reader_training.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "common/atomic_file.h"
#include "experiments/training/trainer.h"
#include "tasks/qa/span_decoding.h"
#include "tasks/qa/squad_evaluation.h"
#include "experiments/search/seed_sequence.h"

namespace recurlab::experiments::qa {
namespace {

// The batch's tensors on `device`.
ReaderBatch onDevice(const ReaderBatch& b, const torch::Device& device) {
  ReaderBatch d;
  d.paragraph = b.paragraph.to(device);
  d.paragraph_pad = b.paragraph_pad.to(device);
  d.features = b.features.to(device);
  d.question = b.question.to(device);
  d.question_pad = b.question_pad.to(device);
  d.start = b.start.to(device);
  d.end = b.end.to(device);
  d.examples = b.examples;
  return d;
}

}  // namespace

ReaderBatch makeReaderBatch(const std::vector<const QaExample*>& examples) {
  const auto B = static_cast<int64_t>(examples.size());
  size_t lp = 1, lq = 1;
  for (const auto* x : examples) {
    lp = std::max(lp, x->paragraph_ids.size());
    lq = std::max(lq, x->question_ids.size());
  }
  const auto Lp = static_cast<int64_t>(lp), Lq = static_cast<int64_t>(lq);
  ReaderBatch b;
  b.paragraph = torch::zeros({B, Lp}, torch::kLong);
  b.paragraph_pad = torch::ones({B, Lp}, torch::kBool);
  b.features = torch::zeros({B, Lp, kParagraphFeatures});
  b.question = torch::zeros({B, Lq}, torch::kLong);
  b.question_pad = torch::ones({B, Lq}, torch::kBool);
  b.start = torch::zeros({B}, torch::kLong);
  b.end = torch::zeros({B}, torch::kLong);
  auto p = b.paragraph.accessor<int64_t, 2>();
  auto pp = b.paragraph_pad.accessor<bool, 2>();
  auto f = b.features.accessor<float, 3>();
  auto q = b.question.accessor<int64_t, 2>();
  auto qp = b.question_pad.accessor<bool, 2>();
  for (int64_t i = 0; i < B; ++i) {
    const auto& x = *examples[static_cast<size_t>(i)];
    for (size_t t = 0; t < x.paragraph_ids.size(); ++t) {
      p[i][static_cast<int64_t>(t)] = x.paragraph_ids[t];
      pp[i][static_cast<int64_t>(t)] = false;
      for (int64_t k = 0; k < kParagraphFeatures; ++k)
        f[i][static_cast<int64_t>(t)][k] = x.features[t * kParagraphFeatures + static_cast<size_t>(k)];
    }
    for (size_t t = 0; t < x.question_ids.size(); ++t) {
      q[i][static_cast<int64_t>(t)] = x.question_ids[t];
      qp[i][static_cast<int64_t>(t)] = false;
    }
    b.start[i] = std::max<int64_t>(x.start, 0);
    b.end[i] = std::max<int64_t>(x.end, 0);
  }
  b.examples = examples;
  return b;
}

std::unique_ptr<TrainBatch> ReaderBatch::part(int i, int n) const {
  const auto b = static_cast<int64_t>(examples.size()), from = b * i / n, to = b * (i + 1) / n;
  auto p = std::make_unique<ReaderBatch>();
  auto rows = [&](const at::Tensor& t) { return t.narrow(0, from, to - from); };
  p->paragraph = rows(paragraph);
  p->paragraph_pad = rows(paragraph_pad);
  p->features = rows(features);
  p->question = rows(question);
  p->question_pad = rows(question_pad);
  p->start = rows(start);
  p->end = rows(end);
  p->examples.assign(examples.begin() + from, examples.begin() + to);
  return p;
}

std::map<std::string, std::string> predictAnswers(DocumentReader& model,
                                                  const std::vector<QaExample>& examples,
                                                  const SquadDataset& data, const QaTokens& tokens,
                                                  int64_t max_span, int64_t batch_size) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const auto parameters = model->parameters();
  const torch::Device device =
      parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  // Batches of similar length waste little on padding.
  std::vector<size_t> order(examples.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return examples[a].paragraph_ids.size() < examples[b].paragraph_ids.size();
  });
  std::map<std::string, std::string> predictions;
  for (size_t i = 0; i < order.size(); i += static_cast<size_t>(batch_size)) {
    std::vector<const QaExample*> xs;
    for (size_t j = i; j < std::min(order.size(), i + static_cast<size_t>(batch_size)); ++j)
      xs.push_back(&examples[order[j]]);
    const auto b = onDevice(makeReaderBatch(xs), device);
    const auto s = model->forward(b.paragraph, b.paragraph_pad, b.features, b.question, b.question_pad);
    const auto ps = torch::softmax(s.start, 1).to(torch::kCPU, torch::kDouble).contiguous();
    const auto pe = torch::softmax(s.end, 1).to(torch::kCPU, torch::kDouble).contiguous();
    for (size_t k = 0; k < xs.size(); ++k) {
      const auto& x = *xs[k];
      const auto n = static_cast<int64_t>(x.paragraph_ids.size());
      const double* a = ps[static_cast<int64_t>(k)].data_ptr<double>();
      const double* e = pe[static_cast<int64_t>(k)].data_ptr<double>();
      const auto span = bestSpan(std::vector<double>(a, a + n), std::vector<double>(e, e + n), max_span);
      const auto& toks = tokens.paragraphs[static_cast<size_t>(x.paragraph)];
      const auto& context = data.paragraphs[static_cast<size_t>(x.paragraph)].context;
      std::string text;
      if (span.start >= 0) {
        const auto from = toks[static_cast<size_t>(span.start)].byte_begin;
        text = context.substr(static_cast<size_t>(from),
                              static_cast<size_t>(toks[static_cast<size_t>(span.end)].byte_end - from));
      }
      predictions[data.questions[static_cast<size_t>(x.question)].id] = text;
    }
  }
  if (was_training) model->train();
  return predictions;
}

ReaderTraining::ReaderTraining(DocumentReader model, const std::vector<QaExample>& train,
                               const std::vector<QaExample>& dev, const SquadDataset& data,
                               const QaTokens& tokens, int64_t batch_size, int64_t max_span,
                               uint64_t seed, std::string predictions_path, torch::Device device)
    : model_(std::move(model)), train_(train), dev_(dev), data_(data), tokens_(tokens),
      batch_size_(batch_size), max_span_(max_span), seed_(seed),
      predictions_path_(std::move(predictions_path)), device_(device),
      timer_(std::make_shared<RecurrentTimer>()) {
  model_->setTimer(timer_);
  std::vector<int64_t> dev_questions;
  for (const auto& x : dev_) dev_questions.push_back(x.question);
  // A resumed unit keeps the best predictions written before it was stopped.
  if (!predictions_path_.empty() && std::filesystem::exists(predictions_path_))
    best_f1_ = evaluateSquad(data_, dev_questions, loadPredictions(predictions_path_)).f1;
}

int64_t ReaderTraining::batchesPerEpoch() {
  return (static_cast<int64_t>(train_.size()) + batch_size_ - 1) / batch_size_;
}

std::unique_ptr<TrainBatch> ReaderTraining::batch(int64_t epoch, int64_t index) {
  if (batches_epoch_ != epoch) {
    train_cpu_timing_.reset();
    train_cpu_seconds_.reset();  // an epoch that was not evaluated (a data-parallel rank > 0)
    train_cpu_timing_.emplace(train_cpu_seconds_.measure());
    // DrQA's SortedBatchSampler: by length with a random tie order, cut, batches shuffled.
    const auto shuffle = seededPermutation(train_.size(), deriveSeed(seed_, "batches/" + std::to_string(epoch)));
    std::vector<size_t> order(shuffle.begin(), shuffle.end());
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return train_[a].paragraph_ids.size() > train_[b].paragraph_ids.size();
    });
    batches_.clear();
    for (size_t i = 0; i < order.size(); i += static_cast<size_t>(batch_size_))
      batches_.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(i),
                            order.begin() + static_cast<std::ptrdiff_t>(
                                std::min(order.size(), i + static_cast<size_t>(batch_size_))));
    const auto perm = seededPermutation(batches_.size(), deriveSeed(seed_, "batch-order/" + std::to_string(epoch)));
    std::vector<std::vector<size_t>> shuffled;
    for (const auto k : perm) shuffled.push_back(batches_[k]);
    batches_ = std::move(shuffled);
    batches_epoch_ = epoch;
  }
  std::vector<const QaExample*> xs;
  for (const auto i : batches_.at(static_cast<size_t>(index))) xs.push_back(&train_[i]);
  return std::make_unique<ReaderBatch>(makeReaderBatch(xs));
}

StepOutput ReaderTraining::forward(const TrainBatch& batch) {
  const auto b = onDevice(static_cast<const ReaderBatch&>(batch), device_);
  const auto s = model_->forward(b.paragraph, b.paragraph_pad, b.features, b.question, b.question_pad);
  const auto loss = torch::nll_loss(torch::log_softmax(s.start, 1), b.start) +
                    torch::nll_loss(torch::log_softmax(s.end, 1), b.end);
  return {loss, static_cast<int64_t>(b.examples.size()), {}};
}

std::vector<double> ReaderTraining::evaluate() {
  train_cpu_timing_.reset();  // the epoch's training part ends here
  const auto rnn = timer_->take();
  rnn_seconds_.addSeconds(rnn.wall);
  rnn_cpu_seconds_.addSeconds(rnn.cpu);
  const std::vector<double> times = {rnn_seconds_.value(), rnn_cpu_seconds_.value(),
                                     train_cpu_seconds_.value()};
  for (Meter* m : {&rnn_seconds_, &rnn_cpu_seconds_, &train_cpu_seconds_}) m->reset();
  const auto predictions = predictAnswers(model_, dev_, data_, tokens_, max_span_);
  std::vector<int64_t> questions;
  for (const auto& x : dev_) questions.push_back(x.question);
  const auto score = evaluateSquad(data_, questions, predictions);
  if (!predictions_path_.empty() && score.f1 > best_f1_) {
    best_f1_ = score.f1;
    writeFileAtomically(predictions_path_, [&](const std::string& temporary) {
      writePredictions(predictions, temporary);
    });
  }
  return {score.exact_match, score.f1, times[0], times[1], times[2]};
}

}  // namespace recurlab::experiments::qa
