#include "tasks/mt/translate_command.h"

#include <torch/torch.h>

#include <cstdio>
#include <stdexcept>

#include "experiments/harness/command_input.h"
#include "experiments/kept_model/kept_model.h"
#include "tasks/mt/mt_config.h"
#include "tasks/mt/mt_task.h"
#include "models/seq2seq/beam_search.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::experiments {

KeptTranslationModel loadKeptTranslationModel(const std::string& dir) {
  const auto kept = openKeptModel(dir, "mt", {kMtSubwordFile});
  const std::string config_path = kept.path("config.json");
  KeptTranslationModel m;
  m.subwords.emplace(SubwordModel::load(kept.path(kMtSubwordFile)));
  try {
    const auto& c = kept.config;
    const int64_t vocabulary = c.at("vocabulary").get<int64_t>();
    if (m.subwords->size() != vocabulary)
      throw std::runtime_error(kept.path(kMtSubwordFile) + ": " + std::to_string(m.subwords->size()) +
                               " pieces, the model's vocabulary has " + std::to_string(vocabulary));
    const auto& ids = c.at("special_ids");
    m.ids = {ids.at("pad").get<int64_t>(), ids.at("unk").get<int64_t>(), ids.at("bos").get<int64_t>(),
             ids.at("eos").get<int64_t>()};
    if (m.ids.pad != m.subwords->padId() || m.ids.unk != m.subwords->unkId() ||
        m.ids.bos != m.subwords->bosId() || m.ids.eos != m.subwords->eosId())
      throw std::runtime_error(kept.path(kMtSubwordFile) + ": its special ids differ from the model's");
    // Older models have no length_penalty: gnmt, the default.
    m.decode = MtDecodeOptions::fromJson(c.at("decode"), config_path + ": decode");
    m.model = models::makeSeq2SeqModel(c.at("model").get<std::string>(), c.at("config"), vocabulary,
                                       {m.ids.pad, m.ids.unk, m.ids.bos, m.ids.eos});
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(config_path + ": not an MT config (" + e.what() + ")");
  }
  loadKeptWeights(*m.model, kept);
  m.model->eval();
  return m;
}

std::vector<std::vector<std::pair<double, std::string>>> translateLines(
    KeptTranslationModel& model, const std::vector<std::string>& lines, const TranslationOptions& options) {
  std::vector<EncodedPair> pairs;
  pairs.reserve(lines.size());
  for (const auto& line : lines) pairs.push_back({model.subwords->encode(line), {}});
  const auto translated = translateCorpus(*model.model, pairs, model.ids, options);
  std::vector<std::vector<std::pair<double, std::string>>> out(lines.size());
  for (size_t i = 0; i < lines.size(); ++i)
    for (const auto& h : translated.nbest[i]) out[i].emplace_back(h.score, model.subwords->decode(h.tokens));
  return out;
}

namespace {

int runTranslate(const ModelCommandLine& cl) {
  auto model = loadKeptTranslationModel(cl.model);
  model.model->to(torch::Device(cl.device));  // translateCorpus follows the weights
  const auto lines = readCommandInputLines(cl.input);
  auto options = model.decode;
  if (cl.beam > 0) options.beam = cl.beam;
  if (cl.alpha >= 0) options.alpha = cl.alpha;
  if (!cl.length_penalty.empty())  // a bad name fails before any work
    options.length_penalty = models::parseLengthPenalty(cl.length_penalty);
  if (cl.batch_size > 0) options.batch_sentences = cl.batch_size;
  options.nbest = cl.nbest;
  if (options.nbest > options.beam)
    throw std::invalid_argument("--nbest " + std::to_string(options.nbest) + " exceeds the beam (" +
                                std::to_string(options.beam) + ")");
  const auto translations = translateLines(model, lines, options);
  std::string text;
  char score[32];
  for (size_t i = 0; i < translations.size(); ++i) {
    if (options.nbest == 1) {
      text += translations[i].front().second + "\n";
      continue;
    }
    for (const auto& [s, t] : translations[i]) {
      std::snprintf(score, sizeof score, "%.6f", s);
      text += std::to_string(i + 1) + "\t" + score + "\t" + t + "\n";
    }
  }
  writeCommandOutput(cl.output, text);
  return 0;
}

}  // namespace

ModelCommandSpec mtTranslateCommand() {
  return {"translate",
          "recurlab_mt translate: translates one sentence a line (raw text; the model's joint\n"
          "subwords encode it) with beam search; by default the run's own test decoding (beam,\n"
          "length penalty and alpha, length limits).",
          {"input,i", "output,o", "batch-size", "beam", "alpha", "length-penalty", "nbest"}, runTranslate};
}

}  // namespace recurlab::experiments
