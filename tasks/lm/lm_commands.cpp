#include "tasks/lm/lm_commands.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "experiments/harness/command_input.h"
#include "tasks/lm/bptt_streams.h"
#include "tasks/lm/lm_metrics.h"
#include "tasks/lm/lm_training.h"

namespace recurlab::experiments {
namespace {

// Where the model's weights are (the command's --device).
torch::Device deviceOf(const LanguageModel& model) {
  const auto parameters = model->parameters();
  return parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
}

}  // namespace

LmScore scoreSymbols(KeptLanguageModel& model, const std::vector<int64_t>& ids, int64_t streams,
                     const std::string& where) {
  const auto n = static_cast<int64_t>(ids.size());
  if (n < 2)
    throw std::runtime_error(where + ": " + std::to_string(n) +
                             " symbol(s), too short to score (at least 2)");
  LmScore s;
  s.symbols = n;
  s.streams = streams > 0 ? streams : model.eval_batch_size;
  s.segment_length = model.bptt;
  if (n - 1 < s.streams * s.segment_length) s.streams = std::max<int64_t>(1, std::min(s.streams, (n - 1) / s.segment_length));
  s.segment_length = std::min(s.segment_length, (n - 1) / s.streams);
  const BpttStreams text(ids, s.streams, s.segment_length, where);
  s.nats = meanNats(model.lm, text, deviceOf(model.lm));
  s.predicted = text.targets();
  return s;
}

std::vector<int64_t> sampleSymbols(KeptLanguageModel& model, const std::vector<int64_t>& seed_ids,
                                   const SampleOptions& options) {
  torch::NoGradGuard no_grad;
  model.lm->eval();
  std::vector<int64_t> out = seed_ids;
  if (out.empty()) {  // no seed text: start after a line end (words) or a newline (characters)
    const auto it = model.ids.find(model.format == LmCorpusFormat::Words ? "<eos>"
                                   : model.format == LmCorpusFormat::Chars ? "\n" : "10");
    out.push_back(it != model.ids.end() ? it->second : 0);
  }
  auto generator = at::make_generator<at::CPUGeneratorImpl>(options.seed);
  models::SequenceState state;
  const torch::Device device = deviceOf(model.lm);
  auto input = torch::tensor(out, torch::kLong).view({-1, 1}).to(device);
  for (int64_t k = 0; k < options.length; ++k) {
    auto [logits, next] = model.lm->forward(input, state);
    state = std::move(next);
    // Sampled on the CPU (its generator): the same seed gives the same text on every device.
    auto last = logits[-1][0].to(torch::kCPU, torch::kDouble) / options.temperature;  // (vocab)
    if (options.top_k > 0 && options.top_k < last.size(0)) {
      const auto kth = std::get<0>(last.topk(options.top_k)).min();
      last = last.masked_fill(last < kth, -std::numeric_limits<double>::infinity());
    }
    const auto probabilities = torch::softmax(last, 0);
    const int64_t id = torch::multinomial(probabilities, 1, false, generator).item<int64_t>();
    out.push_back(id);
    input = torch::full({1, 1}, id, torch::TensorOptions(torch::kLong).device(device));
  }
  if (seed_ids.empty()) out.erase(out.begin());
  return out;
}

namespace {

int runScore(const ModelCommandLine& cl) {
  auto model = loadKeptLanguageModel(cl.model);
  model.lm->to(torch::Device(cl.device));
  const auto text = readCommandInput(cl.input, model.format == LmCorpusFormat::Bytes);
  const auto score = scoreSymbols(model, model.encode(text, inputName(cl.input)), cl.batch_size,
                                  inputName(cl.input));
  const double value = model.metric == "ppl" ? perplexity(score.nats) : bitsPerSymbol(score.nats);
  char line[256];
  std::snprintf(line, sizeof line, "%s %.4f (%.6f nats per symbol; %lld of %lld symbols scored, %lld streams of %lld)\n",
                model.metric.c_str(), value, score.nats, static_cast<long long>(score.predicted),
                static_cast<long long>(score.symbols), static_cast<long long>(score.streams),
                static_cast<long long>(score.segment_length));
  writeCommandOutput(cl.output, line);
  return 0;
}

int runGenerate(const ModelCommandLine& cl) {
  auto model = loadKeptLanguageModel(cl.model);
  model.lm->to(torch::Device(cl.device));
  SampleOptions o;
  o.temperature = cl.temperature;
  o.top_k = cl.top_k;
  o.length = cl.length;
  o.seed = cl.seed;
  const auto ids = sampleSymbols(model, model.encode(cl.seed_text, "--seed-text"), o);
  std::string text = model.decode(ids);
  if (text.empty() || text.back() != '\n') text += "\n";
  writeCommandOutput(cl.output, text);
  return 0;
}

}  // namespace

ModelCommandSpec lmScoreCommand() {
  return {"score",
          "recurlab_lm score: bits per symbol (character and byte models) or perplexity (word\n"
          "models) of a text in the model's format, with the model's evaluation streams and\n"
          "segment length (those of the run's test number).",
          {"input,i", "output,o", "batch-size"}, runScore};
}

ModelCommandSpec lmGenerateCommand() {
  return {"generate",
          "recurlab_lm generate: continues --seed-text with --length sampled symbols (softmax at\n"
          "--temperature, among the --top-k most likely); the same --seed gives the same text.",
          {"output,o", "seed-text", "temperature", "top-k", "length", "seed"}, runGenerate};
}

}  // namespace recurlab::experiments
