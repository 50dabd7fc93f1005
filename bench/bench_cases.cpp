#include "bench/bench_cases.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>

#include "tasks/lm/language_model.h"
#include "tasks/lm/lm_task.h"
#include "tasks/lm/parameter_budget.h"
#include "tasks/mt/label_smoothed_loss.h"
#include "tasks/mt/mt_config.h"
#include "tasks/qa/document_reader.h"
#include "tasks/qa/qa_examples.h"
#include "experiments/training/adamax_optimizer.h"
#include "models/registry.h"
#include "models/seq2seq/beam_search.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::bench {
namespace qa = experiments::qa;
namespace {

nlohmann::json readConfig(const std::string& source_dir, const std::string& file) {
  const std::string path = source_dir + "/" + file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("recurlab_bench: cannot read " + path);
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error("recurlab_bench: " + path + " is not JSON: " + e.what());
  }
}

int64_t trainableParameters(torch::nn::Module& module) {
  int64_t n = 0;
  for (const auto& p : module.parameters())
    if (p.requires_grad()) n += p.numel();
  return n;
}

std::vector<int64_t> randomLengths(int64_t count, int64_t low, int64_t high, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> length(low, high);
  std::vector<int64_t> lengths(static_cast<size_t>(count));
  for (auto& n : lengths) n = length(rng);
  return lengths;
}

// (max length, B) int64: random ids in [first_id, vocabulary) for each column's length, `pad`
// after; and the pad mask (true = pad).
std::pair<torch::Tensor, torch::Tensor> paddedTokens(const std::vector<int64_t>& lengths,
                                                     int64_t first_id, int64_t vocabulary,
                                                     int64_t pad) {
  const int64_t T = *std::max_element(lengths.begin(), lengths.end());
  const int64_t B = static_cast<int64_t>(lengths.size());
  const torch::Tensor tokens = torch::randint(first_id, vocabulary, {T, B}, torch::kLong);
  const torch::Tensor mask = torch::arange(T, torch::kLong).unsqueeze(1) >=
                             torch::tensor(lengths, torch::kLong).unsqueeze(0);
  return {tokens.masked_fill(mask, pad), mask};
}

std::vector<torch::Tensor> trainable(torch::nn::Module& module) {
  std::vector<torch::Tensor> params;
  for (const auto& p : module.parameters())
    if (p.requires_grad()) params.push_back(p);
  return params;
}

// MT: the Transformer of configs/mt/multi30k.json at its 10k shared vocabulary, one batch of
// max_tokens padded target tokens (fairseq's count) of Multi30k-like lengths.
constexpr int64_t kMtVocabulary = 10000;
const models::Seq2SeqSpecialIds kMtIds{0, 1, 2, 3};

nlohmann::json mtShape(const nlohmann::json& config) {
  const auto& m = config.at("models").at("transformer").at("config");
  return {{"vocab", kMtVocabulary},
          {"d_model", m.at("d_model")},
          {"ffn", m.at("ffn_hidden")},
          {"heads", m.at("heads")},
          {"encoder_layers", m.at("encoder_layers")},
          {"decoder_layers", m.at("decoder_layers")},
          {"dropout", m.at("dropout")}};
}

BenchCase mtTrainCase(const nlohmann::json& config, std::mt19937_64& rng) {
  const auto& train = config.at("train");
  const int64_t max_tokens = train.at("max_tokens").get<int64_t>();
  // Sentences of 12-16 subwords (Multi30k's are about 13 on average), as many as fill the
  // batch's padded tokens; eos makes the target one longer.
  const int64_t longest = 16;
  const int64_t sentences = max_tokens / (longest + 1);
  const auto source_lengths = randomLengths(sentences, 12, longest, rng);
  const auto target_lengths = randomLengths(sentences, 12, longest, rng);
  auto model = models::makeSeq2SeqModel("transformer",
                                        config.at("models").at("transformer").at("config"),
                                        kMtVocabulary, kMtIds);
  model->train();
  auto [source, source_pad] = paddedTokens(source_lengths, 4, kMtVocabulary, kMtIds.pad);
  std::vector<int64_t> with_eos = target_lengths;
  for (auto& n : with_eos) ++n;
  auto [target, target_pad] = paddedTokens(with_eos, 4, kMtVocabulary, kMtIds.pad);
  torch::Tensor target_in = target.clone(), target_out = target.clone();
  target_in.slice(0, 1) = target.slice(0, 0, -1);
  target_in[0].fill_(kMtIds.bos);
  target_in.masked_fill_(target_pad, kMtIds.pad);
  target_out.masked_fill_(
      torch::arange(target.size(0)).unsqueeze(1) ==
          torch::tensor(target_lengths, torch::kLong).unsqueeze(0),
      kMtIds.eos);
  auto optimizer = std::make_shared<torch::optim::Adam>(
      trainable(*model), torch::optim::AdamOptions(1e-4).betas(
                             {train.at("beta1").get<double>(), train.at("beta2").get<double>()}));
  const double smoothing = train.at("label_smoothing").get<double>();
  BenchCase c;
  c.name = "mt_train";
  c.title = "MT Transformer training step";
  c.unit = "target tokens";
  c.baseline = "nn.Transformer";
  c.pytorch_case = "mt_train";
  c.shape = mtShape(config);
  c.shape["source_lengths"] = source_lengths;
  c.shape["target_lengths"] = target_lengths;
  c.shape["label_smoothing"] = smoothing;
  c.parameters = trainableParameters(*model);
  c.units_per_step = static_cast<double>(target_pad.logical_not().sum().item<int64_t>());
  c.step = [=, source = source, source_pad = source_pad, target_pad = target_pad]() {
    optimizer->zero_grad();
    const auto memory = model->encode(source, source_pad);
    const auto out = model->decode(target_in, target_pad, memory, {});
    const auto loss =
        experiments::labelSmoothedCrossEntropy(out.logits, target_out, target_pad, smoothing);
    (loss.loss / static_cast<double>(loss.tokens)).backward();
    optimizer->step();
  };
  return c;
}

BenchCase mtBeamCase(const nlohmann::json& config, std::mt19937_64& rng) {
  const auto& decode = config.at("decode");
  const int64_t sentences = 32;
  const auto source_lengths = randomLengths(sentences, 12, 16, rng);
  auto model = models::makeSeq2SeqModel("transformer",
                                        config.at("models").at("transformer").at("config"),
                                        kMtVocabulary, kMtIds);
  model->eval();
  auto [source, source_pad] = paddedTokens(source_lengths, 4, kMtVocabulary, kMtIds.pad);
  const models::BeamSearchOptions o =
      experiments::MtDecodeOptions::fromJson(decode, "bench: decode");
  BenchCase c;
  c.name = "mt_beam";
  c.title = "MT Transformer beam search";
  c.unit = "sentences";
  c.baseline = "nn.Transformer, batched beam";
  c.pytorch_case = "mt_beam";
  c.shape = mtShape(config);
  c.shape["source_lengths"] = source_lengths;
  c.shape["beam"] = o.beam;
  c.shape["alpha"] = o.alpha;
  c.shape["max_length_a"] = o.max_length_a;
  c.shape["max_length_b"] = o.max_length_b;
  c.parameters = trainableParameters(*model);
  c.units_per_step = static_cast<double>(sentences);
  c.step = [=, source = source, source_pad = source_pad]() {
    torch::NoGradGuard no_grad;
    models::beamSearch(*model, source, source_pad, o);
  };
  return c;
}

// PTB character LM of configs/lm/ptb-char.json: its SRU sized to the budget, one BPTT segment
// (batch x bptt characters), clipping and Adam as the config trains.
constexpr int64_t kPtbCharVocabulary = 50;

struct LmSetup {
  nlohmann::json unit;  // {"encoder", "config"}
  experiments::LanguageModelOptions options;
  int64_t batch = 0, bptt = 0, width = 0;
  double clip = 0, output_dropout = 0;
};

// Above every width where a layer changes shape, as the LM task probes (the embedding, the
// projection and every other width the config names).
int64_t probeWidth(const nlohmann::json& unit, const experiments::LanguageModelOptions& o) {
  int64_t widest = std::max(o.embed_dim, o.output_projection);
  for (const auto& [key, value] : unit.at("config").items())
    if (value.is_number_integer()) widest = std::max(widest, value.get<int64_t>());
  return widest + 1;
}

// `unit`: the config's SRU ("sru_proj"), or another encoder sized to the same budget.
LmSetup lmSetup(const nlohmann::json& config, const nlohmann::json& unit) {
  LmSetup s;
  const auto& lm = config.at("lm");
  s.unit = unit;
  s.options.vocab_size = kPtbCharVocabulary;
  s.options.embed_dim = lm.at("embed_dim").get<int64_t>();
  s.options.embed_dropout = lm.value("embed_dropout", 0.0);
  s.options.output_dropout = lm.value("output_dropout", 0.0);
  s.batch = lm.at("batch_size").get<int64_t>();
  s.bptt = lm.at("bptt").get<int64_t>();
  s.clip = config.at("train").value("clip", 0.0);
  const int64_t budget = config.at("budget").get<int64_t>();
  s.width = experiments::fitWidthToBudget(
                [&](int64_t w) {
                  return experiments::buildLanguageModel(s.unit, s.options, w)->trainableParameters();
                },
                budget, 0.05, "configs/lm/ptb-char.json budget", 1 << 15,
                probeWidth(s.unit, s.options))
                .width;
  return s;
}

// PyTorch's LSTM LM (embedding, one nn.LSTM layer, linear) of hidden h has
// V·E + 4h(E + h) + 8h + hV + V parameters: the h nearest `parameters`.
int64_t lstmWidthFor(int64_t parameters, int64_t V, int64_t E) {
  const double a = 4, b = 4.0 * E + 8 + V, c = static_cast<double>(V * E + V - parameters);
  return static_cast<int64_t>(std::llround((-b + std::sqrt(b * b - 4 * a * c)) / (2 * a)));
}

// minGRU (Feng et al. 2024) in its log-space form, three layers, against the paper's own way of
// running it in plain PyTorch: the log-space parallel scan (cumsum and logcumsumexp).
const nlohmann::json kMinGruUnit = {{"encoder", "min_gru"},
                                    {"config", {{"layers", 3}, {"log_space", true}}}};

// The linear recurrences against PyTorch's LSTM, each as configs/lm/ptb-char-linear-cpu.json
// builds it (4 layers), on the shape and budget of configs/lm/ptb-char.json: name, title, unit.
struct LinearRecurrenceLm {
  const char* name;
  const char* title;
  const char* encoder;
  nlohmann::json config;
};

std::vector<LinearRecurrenceLm> linearRecurrenceLms() {
  return {{"lm_hgrn_vs_lstm", "PTB char LM: HGRN vs LSTM, equal parameters", "hgrn", {{"layers", 4}}},
          {"lm_rg_lru_vs_lstm", "PTB char LM: RG-LRU (Griffin's block) vs LSTM, equal parameters",
           "rg_lru", {{"layers", 4}}},
          {"lm_gla_vs_lstm", "PTB char LM: gated linear attention vs LSTM, equal parameters", "gla",
           {{"layers", 4}, {"heads", 4}}}};
}

enum class LmBaseline { Lstm, PlainSru, PlainMinGru };

// `name` and `title` name a Lstm case (default: the SRU's).
BenchCase lmCase(const LmSetup& s, LmBaseline baseline,
                 const std::string& name = "lm_sru_vs_lstm",
                 const std::string& title = "PTB char LM: SRU vs LSTM, equal parameters") {
  auto lm = experiments::buildLanguageModel(s.unit, s.options, s.width);
  lm->train();
  const torch::Tensor inputs = torch::randint(0, kPtbCharVocabulary, {s.bptt, s.batch}, torch::kLong);
  const torch::Tensor targets = torch::randint(0, kPtbCharVocabulary, {s.bptt, s.batch}, torch::kLong);
  auto params = trainable(*lm);
  auto optimizer = std::make_shared<torch::optim::Adam>(params, torch::optim::AdamOptions(1e-4));
  const double clip = s.clip;
  BenchCase c;
  c.parameters = lm->trainableParameters();
  c.unit = "characters";
  c.units_per_step = static_cast<double>(s.bptt * s.batch);
  const auto& sru = s.unit.at("config");
  c.shape = {{"vocab", kPtbCharVocabulary}, {"embed", s.options.embed_dim},
             {"batch", s.batch},            {"bptt", s.bptt},
             {"dropout", s.options.output_dropout}};
  c.pytorch_case = "lm_train";
  if (baseline == LmBaseline::Lstm) {
    c.name = name;
    c.title = title;
    c.baseline = "nn.LSTM";
    c.shape["encoder"] = "lstm";
    c.shape["layers"] = 1;
    c.shape["hidden"] = lstmWidthFor(c.parameters, kPtbCharVocabulary, s.options.embed_dim);
  } else if (baseline == LmBaseline::PlainMinGru) {
    c.name = "lm_min_gru";
    c.title = "PTB char LM: minGRU vs plain-PyTorch minGRU, log-space scan";
    c.baseline = "minGRU in plain PyTorch (log-space parallel scan)";
    c.shape["encoder"] = "min_gru";
    c.shape["layers"] = s.unit.at("config").at("layers");
    c.shape["hidden"] = s.width;
  } else {
    c.name = "lm_sru";
    c.title = "PTB char LM: SRU vs plain-PyTorch SRU";
    c.baseline = "SRU in plain PyTorch (loop over steps)";
    c.shape["encoder"] = "sru";
    c.shape["layers"] = sru.at("layers");
    c.shape["projection"] = sru.value("projection", 0);
    c.shape["hidden"] = s.width;
  }
  c.step = [=]() {
    optimizer->zero_grad();
    const torch::Tensor logits = lm->forward(inputs, {}).first;
    torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.reshape(-1))
        .backward();
    if (clip > 0) torch::nn::utils::clip_grad_norm_(params, clip);
    optimizer->step();
  };
  return c;
}

// Classification: the SRU of configs/classification/quick.json (embedding, encoder, mean over
// time, linear), a batch of MR-like sentences (about 20 words).
class Classifier : public torch::nn::Module {
 public:
  Classifier(const nlohmann::json& unit, int64_t vocabulary, int64_t embed, int64_t classes) {
    embedding = register_module("embedding", torch::nn::Embedding(vocabulary, embed));
    encoder = register_module(
        "encoder", models::makeEncoder(unit.at("encoder").get<std::string>(), unit.at("config"), embed));
    head = register_module("head", torch::nn::Linear(encoder->outputSize(), classes));
  }
  torch::Tensor forward(const torch::Tensor& tokens) {
    return head(encoder->encode(embedding(tokens), {}).mean(0));
  }
  torch::nn::Embedding embedding{nullptr};
  std::shared_ptr<models::SequenceEncoder> encoder;
  torch::nn::Linear head{nullptr};
};

BenchCase classificationCase(const nlohmann::json& config) {
  const auto& unit = config.at("models").at("sru2");
  const auto& train = config.at("train");
  const int64_t vocabulary = 20000, classes = 2, length = 20;
  const int64_t batch = train.at("batch_size").get<int64_t>();
  const int64_t embed = train.at("embed_dim").get<int64_t>();
  auto model = std::make_shared<Classifier>(unit, vocabulary, embed, classes);
  model->train();
  const torch::Tensor tokens = torch::randint(0, vocabulary, {length, batch}, torch::kLong);
  const torch::Tensor labels = torch::randint(0, classes, {batch}, torch::kLong);
  auto optimizer = std::make_shared<torch::optim::Adam>(trainable(*model), torch::optim::AdamOptions(1e-4));
  BenchCase c;
  c.name = "cls_sru";
  c.title = "Classification SRU training step";
  c.unit = "sentences";
  c.baseline = "SRU in plain PyTorch (loop over steps)";
  c.pytorch_case = "cls_train";
  c.shape = {{"encoder", "sru"},
             {"vocab", vocabulary},
             {"embed", embed},
             {"hidden", unit.at("config").at("hidden")},
             {"layers", unit.at("config").at("layers")},
             {"classes", classes},
             {"length", length},
             {"batch", batch}};
  c.parameters = trainableParameters(*model);
  c.units_per_step = static_cast<double>(batch);
  c.step = [=]() {
    optimizer->zero_grad();
    torch::nn::functional::cross_entropy(model->forward(tokens), labels).backward();
    optimizer->step();
  };
  return c;
}

// QA: the DrQA reader of configs/qa/squad.json with its SRU encoder (5 bidirectional layers of
// 128), a batch of SQuAD-like questions (paragraphs of 100-160 tokens, questions of 8-14), the
// two span losses, clipping and Adamax as the config trains. The vocabulary is 1,002 words, all
// trained: the words DrQA fine-tunes (its 1,000 most frequent question words); the frozen rest
// of a GloVe vocabulary costs neither side anything in a step.
BenchCase qaCase(const nlohmann::json& config, std::mt19937_64& rng) {
  const auto& unit = config.at("models").at("sru");
  const auto& reader = config.at("reader");
  const int64_t batch = config.at("train").at("batch_size").get<int64_t>();
  const int64_t vocabulary = 1002, embed = reader.at("embed_dim").get<int64_t>();
  qa::DocumentReaderOptions o;
  o.vocab_size = vocabulary;
  o.embed_dim = embed;
  o.features = qa::kParagraphFeatures;
  o.embed_dropout = unit.at("reader").at("embed_dropout").get<double>();
  o.output_dropout = unit.at("reader").at("output_dropout").get<double>();
  o.encoder.encoder = unit.at("encoder").get<std::string>();
  o.encoder.config = unit.at("config");
  o.encoder.concat_layers = unit.value("concat_layers", false);
  auto model = std::make_shared<qa::DocumentReader>(o);
  (*model)->train();
  const auto paragraph_lengths = randomLengths(batch, 100, 160, rng);
  const auto question_lengths = randomLengths(batch, 8, 14, rng);
  // Batch-major (B, L) ids and pads, as the reader takes them.
  auto [paragraph, paragraph_pad] = paddedTokens(paragraph_lengths, 1, vocabulary, 0);
  auto [question, question_pad] = paddedTokens(question_lengths, 1, vocabulary, 0);
  paragraph = paragraph.t().contiguous(), paragraph_pad = paragraph_pad.t().contiguous();
  question = question.t().contiguous(), question_pad = question_pad.t().contiguous();
  const torch::Tensor features =
      torch::rand({batch, paragraph.size(1), qa::kParagraphFeatures}).masked_fill(paragraph_pad.unsqueeze(2), 0);
  std::vector<int64_t> starts, ends;
  for (const int64_t n : paragraph_lengths) {
    const int64_t start = std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
    starts.push_back(start);
    ends.push_back(std::min(n - 1, start + std::uniform_int_distribution<int64_t>(0, 14)(rng)));
  }
  const torch::Tensor start = torch::tensor(starts, torch::kLong), end = torch::tensor(ends, torch::kLong);
  auto params = trainable(**model);
  const double lr = unit.at("train").value("lr", config.at("train").at("lr").get<double>());
  auto optimizer = std::make_shared<experiments::Adamax>(params, experiments::AdamaxOptions(lr));
  const double clip = config.at("train").value("clip", 0.0);
  BenchCase c;
  c.name = "qa_reader";
  c.title = "QA DrQA reader training step: SRU vs LSTM encoders";
  c.unit = "questions";
  c.baseline = "DrQA reader with nn.LSTM (3 bi-LSTM layers of 128, concatenated)";
  c.pytorch_case = "qa_train";
  const auto& lstm = config.at("models").at("lstm");
  c.shape = {{"vocab", vocabulary},
             {"embed", embed},
             {"features", qa::kParagraphFeatures},
             {"paragraph_lengths", paragraph_lengths},
             {"question_lengths", question_lengths},
             {"starts", starts},
             {"ends", ends},
             {"hidden", lstm.at("config").at("hidden")},
             {"layers", lstm.at("config").at("layers")},
             {"layer_dropout", lstm.value("layer_dropout", 0.0)},
             {"embed_dropout", lstm.at("reader").at("embed_dropout")},
             {"output_dropout", lstm.at("reader").at("output_dropout")},
             {"lr", config.at("train").at("lr")},
             {"clip", clip}};
  c.parameters = trainableParameters(**model);
  c.units_per_step = static_cast<double>(batch);
  c.step = [=, paragraph = paragraph, paragraph_pad = paragraph_pad, question = question,
            question_pad = question_pad]() {
    optimizer->zero_grad();
    const auto s = (*model)->forward(paragraph, paragraph_pad, features, question, question_pad);
    (torch::nll_loss(torch::log_softmax(s.start, 1), start) +
     torch::nll_loss(torch::log_softmax(s.end, 1), end))
        .backward();
    if (clip > 0) torch::nn::utils::clip_grad_norm_(params, clip);
    optimizer->step();
  };
  return c;
}

}  // namespace

std::vector<std::string> benchCaseNames() {
  std::vector<std::string> names{"mt_train", "mt_beam", "lm_sru_vs_lstm", "lm_sru", "lm_min_gru"};
  for (const auto& l : linearRecurrenceLms()) names.push_back(l.name);
  names.insert(names.end(), {"cls_sru", "qa_reader"});
  return names;
}

std::vector<BenchCase> makeBenchCases(const std::string& source_dir,
                                      const std::vector<std::string>& only, uint64_t seed) {
  const auto names = benchCaseNames();
  for (const auto& n : only) {
    if (std::find(names.begin(), names.end(), n) == names.end()) {
      std::string known;
      for (const auto& k : names) known += (known.empty() ? "" : ", ") + k;
      throw std::invalid_argument("--cases: unknown case '" + n + "'; known: " + known);
    }
  }
  auto wanted = [&](const std::string& n) {
    return only.empty() || std::find(only.begin(), only.end(), n) != only.end();
  };
  std::mt19937_64 rng(seed);
  torch::manual_seed(seed);
  std::vector<BenchCase> cases;
  const auto mt = readConfig(source_dir, "configs/mt/multi30k.json");
  if (wanted("mt_train")) cases.push_back(mtTrainCase(mt, rng));
  if (wanted("mt_beam")) cases.push_back(mtBeamCase(mt, rng));
  const auto lm = readConfig(source_dir, "configs/lm/ptb-char.json");
  if (wanted("lm_sru_vs_lstm") || wanted("lm_sru")) {
    const auto setup = lmSetup(lm, lm.at("models").at("sru_proj"));
    if (wanted("lm_sru_vs_lstm")) cases.push_back(lmCase(setup, LmBaseline::Lstm));
    if (wanted("lm_sru")) cases.push_back(lmCase(setup, LmBaseline::PlainSru));
  }
  if (wanted("lm_min_gru")) cases.push_back(lmCase(lmSetup(lm, kMinGruUnit), LmBaseline::PlainMinGru));
  for (const auto& l : linearRecurrenceLms())
    if (wanted(l.name))
      cases.push_back(lmCase(lmSetup(lm, {{"encoder", l.encoder}, {"config", l.config}}),
                             LmBaseline::Lstm, l.name, l.title));
  if (wanted("cls_sru"))
    cases.push_back(classificationCase(readConfig(source_dir, "configs/classification/quick.json")));
  if (wanted("qa_reader")) cases.push_back(qaCase(readConfig(source_dir, "configs/qa/squad.json"), rng));
  return cases;
}

}  // namespace recurlab::bench
