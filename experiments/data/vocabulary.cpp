#include "experiments/data/vocabulary.h"

#include <stdexcept>

namespace recurlab::experiments {

Vocabulary::Vocabulary() {
  add("<pad>");
  add("<unk>");
}

int64_t Vocabulary::add(const std::string& word) {
  auto it = ids_.find(word);
  if (it != ids_.end()) return it->second;
  const int64_t id = size();
  ids_.emplace(word, id);
  words_.push_back(word);
  return id;
}

int64_t Vocabulary::id(const std::string& word) const {
  auto it = ids_.find(word);
  return it == ids_.end() ? kUnknown : it->second;
}

bool Vocabulary::contains(const std::string& word) const { return ids_.count(word) > 0; }

const std::string& Vocabulary::word(int64_t id) const {
  if (id < 0 || id >= size()) throw std::out_of_range("Vocabulary: id out of range");
  return words_[static_cast<size_t>(id)];
}

std::vector<int64_t> Vocabulary::encode(const std::vector<std::string>& tokens) const {
  std::vector<int64_t> ids;
  ids.reserve(tokens.size());
  for (const auto& t : tokens) ids.push_back(id(t));
  return ids;
}

}  // namespace recurlab::experiments
