#pragma once
// The DrQA document reader (Chen et al. 2017, §3.1) with its recurrent encoders taken from the
// registry (models/registry.h): word embeddings, paragraph features (exact match cased and
// lowercased, normalized term frequency) and the aligned question embedding feed a paragraph
// encoder; a question encoder is pooled by self-attention; bilinear layers score each paragraph
// token as the start and the end of the answer.
//
// Encoder stacks, both from one registry name:
//   concat_layers = true  (DrQA's bi-LSTM): `layers` separate one-layer encoders, dropout on
//     each layer's input, the outputs of all layers concatenated;
//   concat_layers = false (SRU, Lei et al. 2018 App. B.2): one registry encoder of `layers`
//     layers (its own dropout), the last layer's output only.
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/encoders/sequence_encoder.h"

namespace recurlab::experiments::qa {

struct ReaderEncoderSpec {
  std::string encoder = "sru";   // registry name
  nlohmann::json config;         // the registry encoder's keys
  bool concat_layers = false;
  int64_t layers = 1;            // concat_layers only: how many one-layer encoders
  double layer_dropout = 0.0;    // concat_layers only: dropout on each layer's input
};

struct DocumentReaderOptions {
  int64_t vocab_size = 2;
  int64_t embed_dim = 100;
  int64_t features = 3;
  double embed_dropout = 0.5;
  double output_dropout = 0.2;   // on the encoders' outputs
  ReaderEncoderSpec encoder;
  std::vector<float> pretrained;  // vocab_size x embed_dim, or empty
  int64_t tune_top = 0;          // > 0: only embedding rows 1..tune_top+1 (UNK and the top
                                 // words, ids 2..tune_top+1) are trained (DrQA's tune_partial)
};

// Time spent in the recurrent encoders (forward and, through autograd hooks, backward), as the
// union of intervals so that overlaps count once. Each mark holds the wall clock and the
// process's CPU time: on a shared machine the wall time of a model depends on what else ran
// meanwhile, while the CPU time (with --threads 1, the work itself) does not, so SRU/LSTM
// ratios are also given in CPU time.
class RecurrentTimer {
 public:
  using Clock = std::chrono::steady_clock;
  struct Mark {
    Clock::time_point wall;
    double cpu = 0;  // process CPU seconds (CLOCK_PROCESS_CPUTIME_ID)
    static Mark now();
  };
  struct Seconds {
    double wall = 0, cpu = 0;
  };
  void add(const Mark& begin, const Mark& end);
  Seconds take();  // the union since the last call, then reset
  double takeSeconds() { return take().wall; }
 private:
  std::vector<std::pair<Mark, Mark>> intervals_;
};

struct ReaderScores {
  at::Tensor start, end;  // (B, Lp) logits, -inf at pads
};

class EncoderStackImpl : public torch::nn::Module {
 public:
  EncoderStackImpl(const ReaderEncoderSpec& spec, int64_t input_size);
  // (B, L, D) batch-major in, (B, L, outputSize()) out.
  at::Tensor forward(const at::Tensor& input, const at::Tensor& pad);
  int64_t outputSize() const { return output_size_; }
 private:
  ReaderEncoderSpec spec_;
  std::vector<std::shared_ptr<models::SequenceEncoder>> encoders_;
  int64_t output_size_ = 0;
};
TORCH_MODULE(EncoderStack);

class DocumentReaderImpl : public torch::nn::Module {
 public:
  explicit DocumentReaderImpl(const DocumentReaderOptions& options);
  // paragraph (B, Lp) ids, features (B, Lp, F), question (B, Lq) ids; pads true.
  ReaderScores forward(const at::Tensor& paragraph, const at::Tensor& paragraph_pad,
                       const at::Tensor& features, const at::Tensor& question,
                       const at::Tensor& question_pad);
  void setTimer(std::shared_ptr<RecurrentTimer> timer) { timer_ = std::move(timer); }
  const DocumentReaderOptions& options() const { return options_; }
  torch::nn::Embedding embedding{nullptr};

 private:
  at::Tensor timed(EncoderStack& stack, const at::Tensor& input, const at::Tensor& pad);

  DocumentReaderOptions options_;
  torch::nn::Linear align{nullptr}, question_weight{nullptr}, start_weight{nullptr},
      end_weight{nullptr};
  EncoderStack paragraph_encoder{nullptr}, question_encoder{nullptr};
  std::shared_ptr<RecurrentTimer> timer_;
};
TORCH_MODULE(DocumentReader);

}  // namespace recurlab::experiments::qa
