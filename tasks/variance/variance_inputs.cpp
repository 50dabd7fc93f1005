#include "tasks/variance/variance_inputs.h"

#include <torch/torch.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "experiments/data/word_vectors.h"

namespace recurlab::experiments {

namespace {

// A generator per batch index, so a batch does not depend on which batches came before.
at::Generator batchGenerator(int64_t seed, int64_t index) {
  auto gen = at::detail::createCPUGenerator(static_cast<uint64_t>(seed) * 1000003ULL +
                                            static_cast<uint64_t>(index) + 17ULL);
  return gen;
}

class SyntheticInput : public VarianceInputSource {
 public:
  SyntheticInput(bool correlated, int64_t dim, int64_t length, int64_t samples, int64_t batch,
                 int64_t burn_in, double std, int64_t seed)
      : correlated_(correlated), dim_(dim), length_(length), samples_(samples),
        batch_(batch), burn_in_(burn_in), std_(std), seed_(seed) {
    TORCH_CHECK(burn_in < length, "variance input: burn_in (", burn_in,
                ") must be smaller than the length (", length, ")");
  }
  std::string name() const override { return correlated_ ? "correlated" : "iid"; }
  std::string description() const override {
    std::ostringstream s;
    s << (correlated_ ? "perfectly correlated x_t = x ~ N(0, " : "i.i.d. x_t ~ N(0, ") << std_
      << "^2), " << samples_ << " sequences of length " << length_ << ", first " << burn_in_
      << " steps not counted";
    return s.str();
  }
  int64_t dim() const override { return dim_; }
  int64_t numBatches() const override { return (samples_ + batch_ - 1) / batch_; }
  VarianceBatch batch(int64_t index) const override {
    const int64_t b = std::min(batch_, samples_ - index * batch_);
    auto gen = batchGenerator(seed_ + (correlated_ ? 7 : 0), index);
    VarianceBatch out;
    if (correlated_) {
      out.x = at::normal(0.0, std_, {1, b, dim_}, gen).expand({length_, b, dim_}).contiguous();
    } else {
      out.x = at::normal(0.0, std_, {length_, b, dim_}, gen);
    }
    out.weight = torch::ones({length_, b});
    out.weight.slice(0, 0, burn_in_).zero_();
    return out;
  }

 private:
  bool correlated_;
  int64_t dim_, length_, samples_, batch_, burn_in_;
  double std_;
  int64_t seed_;
};

// Sentences as rows of a lookup table; batches are runs of similar length (less padding).
class TableInput : public VarianceInputSource {
 public:
  TableInput(std::string name, std::string description, at::Tensor table,
             std::vector<std::vector<int64_t>> sentences, int64_t batch)
      : name_(std::move(name)), description_(std::move(description)), table_(std::move(table)),
        batch_(batch) {
    std::stable_sort(sentences.begin(), sentences.end(),
                     [](const auto& a, const auto& b) { return a.size() < b.size(); });
    sentences_ = std::move(sentences);
    TORCH_CHECK(!sentences_.empty(), "variance input '", name_, "': no sentences");
  }
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  int64_t dim() const override { return table_.size(1); }
  int64_t numBatches() const override {
    return (static_cast<int64_t>(sentences_.size()) + batch_ - 1) / batch_;
  }
  VarianceBatch batch(int64_t index) const override {
    const int64_t begin = index * batch_;
    const int64_t end = std::min<int64_t>(begin + batch_, sentences_.size());
    int64_t length = 0;
    for (int64_t i = begin; i < end; ++i)
      length = std::max<int64_t>(length, sentences_[i].size());
    const int64_t b = end - begin;
    auto ids = torch::zeros({length, b}, torch::kLong);
    auto pad = torch::ones({length, b}, torch::kBool);
    auto ids_a = ids.accessor<int64_t, 2>();
    auto pad_a = pad.accessor<bool, 2>();
    for (int64_t j = 0; j < b; ++j) {
      const auto& s = sentences_[begin + j];
      for (size_t t = 0; t < s.size(); ++t) {
        ids_a[t][j] = s[t];
        pad_a[t][j] = false;
      }
    }
    VarianceBatch out;
    out.x = table_.index_select(0, ids.reshape({-1})).view({length, b, table_.size(1)});
    out.x.masked_fill_(pad.unsqueeze(2), 0.0);
    out.mask_pad = pad;
    out.weight = pad.logical_not().to(torch::kFloat);
    return out;
  }

 private:
  std::string name_, description_;
  at::Tensor table_;
  std::vector<std::vector<int64_t>> sentences_;
  int64_t batch_;
};

}  // namespace

std::unique_ptr<VarianceInputSource> makeIidInput(int64_t dim, int64_t length, int64_t samples,
                                                  int64_t batch, int64_t burn_in, double std,
                                                  int64_t seed) {
  return std::make_unique<SyntheticInput>(false, dim, length, samples, batch, burn_in, std, seed);
}

std::unique_ptr<VarianceInputSource> makeCorrelatedInput(int64_t dim, int64_t length,
                                                         int64_t samples, int64_t batch,
                                                         int64_t burn_in, double std,
                                                         int64_t seed) {
  return std::make_unique<SyntheticInput>(true, dim, length, samples, batch, burn_in, std, seed);
}

SentenceSample readSentenceSample(const std::string& path, int64_t count, int64_t seed) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("sentences: cannot open " + path);
  SentenceSample sample;
  sample.source = path;
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream fields(line);
    std::string label, tok;
    if (!(fields >> label)) continue;  // blank line
    std::vector<std::string> tokens;
    while (fields >> tok) tokens.push_back(tok);
    if (tokens.empty())
      throw std::runtime_error("sentences " + path + ":" + std::to_string(line_no) +
                               ": expected \"LABEL tokens...\", got only '" + label + "'");
    sample.sentences.push_back(std::move(tokens));
  }
  if (sample.sentences.empty()) throw std::runtime_error("sentences: " + path + " is empty");
  std::mt19937_64 rng(static_cast<uint64_t>(seed));
  std::shuffle(sample.sentences.begin(), sample.sentences.end(), rng);
  if (count > 0 && static_cast<int64_t>(sample.sentences.size()) > count)
    sample.sentences.resize(static_cast<size_t>(count));
  return sample;
}

std::unique_ptr<VarianceInputSource> makeRandomEmbeddingInput(const SentenceSample& sample,
                                                              int64_t dim, int64_t batch,
                                                              double std, int64_t seed) {
  std::unordered_map<std::string, int64_t> vocab;
  std::vector<std::vector<int64_t>> ids;
  int64_t tokens = 0;
  for (const auto& s : sample.sentences) {
    std::vector<int64_t> row;
    for (const auto& w : s) row.push_back(vocab.emplace(w, vocab.size()).first->second);
    tokens += static_cast<int64_t>(row.size());
    ids.push_back(std::move(row));
  }
  auto gen = batchGenerator(seed + 31, 0);
  at::Tensor table = at::normal(0.0, std, {static_cast<int64_t>(vocab.size()), dim}, gen);
  std::ostringstream d;
  d << sample.sentences.size() << " MR sentences (" << tokens << " tokens, " << vocab.size()
    << " word types) from " << sample.source << " through a random embedding table N(0, " << std
    << "^2)";
  return std::make_unique<TableInput>("sentences", d.str(), table, std::move(ids), batch);
}

std::unique_ptr<VarianceInputSource> makePretrainedInput(const SentenceSample& sample,
                                                         const WordVectors& vectors,
                                                         const std::string& vectors_path,
                                                         int64_t batch) {
  TORCH_CHECK(vectors.size() > 0, "pretrained vectors ", vectors_path, " hold no words");
  std::vector<std::vector<int64_t>> ids;
  int64_t kept = 0, dropped = 0;
  for (const auto& s : sample.sentences) {
    std::vector<int64_t> row;
    for (const auto& w : s) {
      if (auto i = vectors.find(w)) {
        row.push_back(*i);
        ++kept;
      } else {
        ++dropped;
      }
    }
    if (!row.empty()) ids.push_back(std::move(row));
  }
  TORCH_CHECK(!ids.empty(), "pretrained vectors ", vectors_path,
              " cover none of the sampled sentences' words");
  at::Tensor table = torch::from_blob(const_cast<float*>(vectors.values.data()),
                                      {vectors.size(), vectors.dim}, torch::kFloat)
                         .clone();
  std::ostringstream d;
  d << ids.size() << " MR sentences through pretrained vectors " << vectors_path << " ("
    << vectors.dim << "d; " << kept << " tokens kept, " << dropped
    << " without a vector dropped)";
  return std::make_unique<TableInput>("pretrained", d.str(), table, std::move(ids), batch);
}

}  // namespace recurlab::experiments
