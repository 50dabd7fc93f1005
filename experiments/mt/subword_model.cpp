#include "experiments/mt/subword_model.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

namespace recurlab::experiments {
namespace {

// Feeds the in-memory training text to the trainer.
class SentenceList : public sentencepiece::SentenceIterator {
 public:
  explicit SentenceList(const std::vector<std::string>& sentences) : sentences_(sentences) {}
  bool done() const override { return index_ >= sentences_.size(); }
  void Next() override { ++index_; }
  const std::string& value() const override { return sentences_[index_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& sentences_;
  size_t index_ = 0;
};

}  // namespace

SubwordModel::SubwordModel(SubwordModel&&) noexcept = default;
SubwordModel& SubwordModel::operator=(SubwordModel&&) noexcept = default;
SubwordModel::~SubwordModel() = default;

SubwordModel SubwordModel::load(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error("subword model " + path + " not found (a sentencepiece .model file "
                             "is expected; delete the run's subwords/ folder to train it again)");
  SubwordModel model;
  model.processor_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = model.processor_->Load(path);
  if (!status.ok())
    throw std::runtime_error("subword model " + path + " cannot be loaded: " + status.ToString());
  model.path_ = path;
  return model;
}

SubwordModel SubwordModel::train(const std::vector<std::string>& sentences,
                                 const SubwordOptions& options, const std::string& path) {
  if (options.type != "bpe" && options.type != "unigram")
    throw std::invalid_argument("subwords.type: '" + options.type + "'; expected bpe or unigram");
  if (sentences.empty()) throw std::invalid_argument("subwords: no training text");
  sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned>(options.seed));
  const std::unordered_map<std::string, std::string> args = {
      {"model_type", options.type},
      {"vocab_size", std::to_string(options.vocabulary_size)},
      {"character_coverage", std::to_string(options.character_coverage)},
      {"pad_id", "0"}, {"unk_id", "1"}, {"bos_id", "2"}, {"eos_id", "3"},
      {"num_threads", "1"},                 // deterministic
      {"input_sentence_size", "0"},         // every sentence, no sampling
      {"shuffle_input_sentence", "false"},
      {"max_sentence_length", "8192"},
      {"hard_vocab_limit", "true"},
      {"minloglevel", "2"}};
  SentenceList list(sentences);
  std::string proto;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &list, &proto);
  if (!status.ok())
    throw std::runtime_error("training the subword model (" + options.type + ", vocabulary " +
                             std::to_string(options.vocabulary_size) + ") failed: " +
                             status.ToString());
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string temporary = path + ".part";
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(proto.data(), static_cast<std::streamsize>(proto.size()));
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary);
  }
  std::filesystem::rename(temporary, path);
  return load(path);
}

SubwordModel SubwordModel::loadOrTrain(const std::vector<std::string>& sentences,
                                       const SubwordOptions& options, const std::string& path) {
  if (!std::filesystem::exists(path)) return train(sentences, options, path);
  auto model = load(path);
  if (model.size() != options.vocabulary_size)
    throw std::runtime_error("subword model " + path + " has " + std::to_string(model.size()) +
                             " pieces but the config asks for subwords.vocabulary_size = " +
                             std::to_string(options.vocabulary_size) +
                             " (another run's model? use a new --run-id)");
  if (model.padId() != 0 || model.unkId() != 1 || model.bosId() != 2 || model.eosId() != 3)
    throw std::runtime_error("subword model " + path +
                             ": special ids pad/unk/bos/eos must be 0/1/2/3");
  return model;
}

std::vector<int64_t> SubwordModel::encode(const std::string& text) const {
  std::vector<int> ids;
  const auto status = processor_->Encode(text, &ids);
  if (!status.ok()) throw std::runtime_error("subword encoding failed: " + status.ToString());
  return {ids.begin(), ids.end()};
}

std::string SubwordModel::decode(const std::vector<int64_t>& ids) const {
  std::vector<int> narrow;
  for (auto id : ids)
    if (id >= 0 && id < size()) narrow.push_back(static_cast<int>(id));
  std::string text;
  const auto status = processor_->Decode(narrow, &text);
  if (!status.ok()) throw std::runtime_error("subword decoding failed: " + status.ToString());
  return text;
}

int64_t SubwordModel::size() const { return processor_->GetPieceSize(); }
int64_t SubwordModel::padId() const { return processor_->pad_id(); }
int64_t SubwordModel::unkId() const { return processor_->unk_id(); }
int64_t SubwordModel::bosId() const { return processor_->bos_id(); }
int64_t SubwordModel::eosId() const { return processor_->eos_id(); }

}  // namespace recurlab::experiments
