#include "tasks/mt/sentencepiece/sentencepiece_shim.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstring>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

void setError(char* error, size_t size, const std::string& message) {
  if (!error || size == 0) return;
  const size_t n = std::min(size - 1, message.size());
  std::memcpy(error, message.data(), n);
  error[n] = '\0';
}

class SentenceArray : public sentencepiece::SentenceIterator {
 public:
  SentenceArray(const char* const* sentences, size_t count) : sentences_(sentences), count_(count) {
    if (count_ > 0) current_ = sentences_[0];
  }
  bool done() const override { return index_ >= count_; }
  void Next() override {
    if (++index_ < count_) current_ = sentences_[index_];
  }
  const std::string& value() const override { return current_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const char* const* sentences_;
  size_t count_, index_ = 0;
  std::string current_;
};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int recurlab_sp_train(
    const char* const* sentences, size_t sentence_count, const char* const* keys,
    const char* const* values, size_t arg_count, const char* model_path,
    char* error, size_t error_size) {
  try {
    std::unordered_map<std::string, std::string> args;
    for (size_t i = 0; i < arg_count; ++i) args[keys[i]] = values[i];
    SentenceArray list(sentences, sentence_count);
    std::string proto;
    const auto status = sentencepiece::SentencePieceTrainer::Train(args, &list, &proto);
    if (!status.ok()) {
      setError(error, error_size, status.ToString());
      return 1;
    }
    std::ofstream out(model_path, std::ios::binary);
    out.write(proto.data(), static_cast<std::streamsize>(proto.size()));
    if (!out.flush()) {
      setError(error, error_size, std::string("cannot write ") + model_path);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    setError(error, error_size, e.what());
    return 1;
  }
}

__attribute__((visibility("default"))) int recurlab_sp_load(const char* model_path, void** handle,
                                                            char* error, size_t error_size) {
  auto* processor = new sentencepiece::SentencePieceProcessor();
  const auto status = processor->Load(model_path);
  if (!status.ok()) {
    delete processor;
    setError(error, error_size, status.ToString());
    return 1;
  }
  *handle = processor;
  return 0;
}

__attribute__((visibility("default"))) void recurlab_sp_free(void* handle) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(handle);
}

__attribute__((visibility("default"))) int recurlab_sp_encode(void* handle, const char* text,
                                                              size_t length, int* ids,
                                                              size_t capacity, size_t* count,
                                                              char* error, size_t error_size) {
  std::vector<int> out;
  const auto status = static_cast<sentencepiece::SentencePieceProcessor*>(handle)->Encode(
      std::string(text, length), &out);
  if (!status.ok()) {
    setError(error, error_size, status.ToString());
    return 1;
  }
  *count = out.size();
  if (out.size() <= capacity && !out.empty()) std::memcpy(ids, out.data(), out.size() * sizeof(int));
  return 0;
}

__attribute__((visibility("default"))) int recurlab_sp_decode(void* handle, const int* ids,
                                                              size_t count, char* text,
                                                              size_t capacity, size_t* length,
                                                              char* error, size_t error_size) {
  std::string out;
  const auto status = static_cast<sentencepiece::SentencePieceProcessor*>(handle)->Decode(
      std::vector<int>(ids, ids + count), &out);
  if (!status.ok()) {
    setError(error, error_size, status.ToString());
    return 1;
  }
  *length = out.size();
  if (out.size() <= capacity && !out.empty()) std::memcpy(text, out.data(), out.size());
  return 0;
}

__attribute__((visibility("default"))) int recurlab_sp_info(void* handle, int what) {
  const auto* p = static_cast<sentencepiece::SentencePieceProcessor*>(handle);
  switch (what) {
    case 0: return p->GetPieceSize();
    case 1: return p->pad_id();
    case 2: return p->unk_id();
    case 3: return p->bos_id();
    case 4: return p->eos_id();
    default: return -1;
  }
}

}
