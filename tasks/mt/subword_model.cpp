#include "tasks/mt/subword_model.h"

#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <utility>

#include "common/atomic_file.h"
#include "common/runtime/kill_point.h"
#include "experiments/harness/run_folder.h"
#include "tasks/mt/sentencepiece/sentencepiece_shim.h"

namespace recurlab::experiments {
namespace {

constexpr size_t kErrorSize = 1024;

// The shim's functions, resolved once.
struct Shim {
  decltype(&recurlab_sp_train) train;
  decltype(&recurlab_sp_load) load;
  decltype(&recurlab_sp_free) free;
  decltype(&recurlab_sp_encode) encode;
  decltype(&recurlab_sp_decode) decode;
  decltype(&recurlab_sp_info) info;
};

const Shim& shim() {
  static const Shim loaded = [] {
    if (const auto why = SubwordModel::unavailableReason(); !why.empty())
      throw std::runtime_error(why);
    const std::string name = "librecurlab_sentencepiece.so";
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("RECURLAB_SENTENCEPIECE_SHIM")) candidates.push_back(env);
    const auto here = executableDirectory();
    if (!here.empty()) candidates.push_back(here + "/" + name);
#ifdef RECURLAB_BINARY_DIR
    candidates.push_back(std::string(RECURLAB_BINARY_DIR) + "/" + name);
#endif
    std::string tried;
    for (const auto& path : candidates) {
      if (!std::filesystem::exists(path)) {
        tried += " " + path;
        continue;
      }
      void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      if (!library) throw std::runtime_error("cannot load " + path + ": " + dlerror());
      auto symbol = [&](const char* s) {
        void* f = dlsym(library, s);
        if (!f) throw std::runtime_error(path + " lacks " + s);
        return f;
      };
      Shim shim;
      shim.train = reinterpret_cast<decltype(shim.train)>(symbol("recurlab_sp_train"));
      shim.load = reinterpret_cast<decltype(shim.load)>(symbol("recurlab_sp_load"));
      shim.free = reinterpret_cast<decltype(shim.free)>(symbol("recurlab_sp_free"));
      shim.encode = reinterpret_cast<decltype(shim.encode)>(symbol("recurlab_sp_encode"));
      shim.decode = reinterpret_cast<decltype(shim.decode)>(symbol("recurlab_sp_decode"));
      shim.info = reinterpret_cast<decltype(shim.info)>(symbol("recurlab_sp_info"));
      return shim;
    }
    throw std::runtime_error("the sentencepiece module " + name + " was not found (looked at" +
                             tried + "); build the target recurlab_sentencepiece");
  }();
  return loaded;
}

}  // namespace

std::string SubwordModel::unavailableReason() {
#if defined(__SANITIZE_ADDRESS__)
  return "sentencepiece subwords are not available in an AddressSanitizer build: ASan's runtime "
         "refuses dlopen(RTLD_DEEPBIND), which keeps sentencepiece's own protobuf apart from "
         "LibTorch's (tasks/mt/sentencepiece/sentencepiece_shim.h); use a normal build";
#else
  return {};
#endif
}

struct SubwordModel::Handle {
  void* processor = nullptr;
  ~Handle() {
    if (processor) shim().free(processor);
  }
};

SubwordModel::SubwordModel(SubwordModel&&) noexcept = default;
SubwordModel& SubwordModel::operator=(SubwordModel&&) noexcept = default;
SubwordModel::~SubwordModel() = default;

SubwordModel SubwordModel::load(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error("subword model " + path + " not found (a sentencepiece .model file "
                             "is expected; delete the run's subwords/ folder to train it again)");
  SubwordModel model;
  model.handle_ = std::make_unique<Handle>();
  char error[kErrorSize] = "";
  if (shim().load(path.c_str(), &model.handle_->processor, error, sizeof error) != 0)
    throw std::runtime_error("subword model " + path + " cannot be loaded: " + error);
  model.path_ = path;
  return model;
}

SubwordModel SubwordModel::train(const std::vector<std::string>& sentences,
                                 const SubwordOptions& options, const std::string& path) {
  if (options.type != "bpe" && options.type != "unigram")
    throw std::invalid_argument("subwords.type: '" + options.type + "'; expected bpe or unigram");
  if (sentences.empty()) throw std::invalid_argument("subwords: no training text");
  const std::vector<std::pair<std::string, std::string>> args = {
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
  std::vector<const char*> keys, values, text;
  for (const auto& [k, v] : args) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  for (const auto& s : sentences) text.push_back(s.c_str());
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  // A killed run never leaves half a model, and two processes never write one file.
  writeFileAtomically(path, [&](const std::string& temporary) {
    char error[kErrorSize] = "";
    if (shim().train(text.data(), text.size(), keys.data(), values.data(), keys.size(),
                     temporary.c_str(), error, sizeof error) != 0)
      throw std::runtime_error("training the subword model (" + options.type + ", vocabulary " +
                               std::to_string(options.vocabulary_size) + ") failed: " + error);
    killPoint("subwords-part-written");
  });
  killPoint("subwords-written");
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
  std::vector<int> ids(text.size() + 8);
  size_t count = 0;
  char error[kErrorSize] = "";
  for (;;) {
    if (shim().encode(handle_->processor, text.data(), text.size(), ids.data(), ids.size(), &count,
                      error, sizeof error) != 0)
      throw std::runtime_error("subword encoding failed: " + std::string(error));
    if (count <= ids.size()) break;
    ids.resize(count);
  }
  return {ids.begin(), ids.begin() + static_cast<int64_t>(count)};
}

std::string SubwordModel::decode(const std::vector<int64_t>& ids) const {
  std::vector<int> narrow;
  for (auto id : ids)
    if (id >= 0 && id < size()) narrow.push_back(static_cast<int>(id));
  std::string text(narrow.size() * 8 + 16, '\0');
  size_t length = 0;
  char error[kErrorSize] = "";
  for (;;) {
    if (shim().decode(handle_->processor, narrow.data(), narrow.size(), text.data(), text.size(),
                      &length, error, sizeof error) != 0)
      throw std::runtime_error("subword decoding failed: " + std::string(error));
    if (length <= text.size()) break;
    text.resize(length);
  }
  text.resize(length);
  return text;
}

int64_t SubwordModel::size() const { return shim().info(handle_->processor, 0); }
int64_t SubwordModel::padId() const { return shim().info(handle_->processor, 1); }
int64_t SubwordModel::unkId() const { return shim().info(handle_->processor, 2); }
int64_t SubwordModel::bosId() const { return shim().info(handle_->processor, 3); }
int64_t SubwordModel::eosId() const { return shim().info(handle_->processor, 4); }

}  // namespace recurlab::experiments
