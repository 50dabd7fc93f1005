#pragma once
// Word <-> id. Id 0 is padding, id 1 the unknown word.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace recurlab::experiments {

class Vocabulary {
 public:
  static constexpr int64_t kPad = 0;
  static constexpr int64_t kUnknown = 1;

  Vocabulary();
  int64_t add(const std::string& word);  // returns the id (existing or new)
  int64_t id(const std::string& word) const;  // kUnknown when absent
  bool contains(const std::string& word) const;
  const std::string& word(int64_t id) const;
  int64_t size() const { return static_cast<int64_t>(words_.size()); }
  std::vector<int64_t> encode(const std::vector<std::string>& tokens) const;

 private:
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::string> words_;
};

}  // namespace recurlab::experiments
