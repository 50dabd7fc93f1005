#include "tasks/lm/lm_corpus.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace recurlab::experiments {
namespace {

std::string readFile(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error("lm corpus: " + path +
                             " not found (run scripts/get-data.sh, or fix the corpus path)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("lm corpus: cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void wordsOf(const std::string& text, std::vector<std::string>& out) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {  // one line per pass
    size_t end = text.find('\n', i);
    const bool last = end == std::string::npos;
    if (last) end = n;
    size_t j = i;
    while (j < end) {
      while (j < end && isSpace(text[j])) ++j;
      size_t k = j;
      while (k < end && !isSpace(text[k])) ++k;
      if (k > j) out.emplace_back(text.substr(j, k - j));
      j = k;
    }
    out.emplace_back("<eos>");
    i = last ? n : end + 1;
  }
}

void charsOf(const std::string& text, const std::string& where, std::vector<std::string>& out) {
  int64_t line = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 2;
    if (!ok)
      throw std::runtime_error("lm corpus: " + where + " line " + std::to_string(line) +
                               ": invalid UTF-8 at byte " + std::to_string(i) +
                               " (format 'chars' expects UTF-8 text; use 'bytes' for binary)");
    out.emplace_back(text.substr(i, len));
    line += c == '\n';
    i += len;
  }
}

}  // namespace

std::vector<std::string> lmSymbols(const std::string& text, LmCorpusFormat format,
                                   const std::string& where) {
  std::vector<std::string> out;
  switch (format) {
    case LmCorpusFormat::Words: wordsOf(text, out); break;
    case LmCorpusFormat::Chars: charsOf(text, where, out); break;
    case LmCorpusFormat::Bytes:
      out.reserve(text.size());
      for (char c : text) out.push_back(std::to_string(static_cast<unsigned char>(c)));
      break;
  }
  return out;
}

LmCorpus loadLmCorpus(const LmCorpusFiles& files) {
  LmCorpus corpus;
  std::unordered_map<std::string, int64_t> ids;
  auto encodeTrain = [&](const std::vector<std::string>& symbols, const std::string& where) {
    if (symbols.empty()) throw std::runtime_error("lm corpus: " + where + " is empty");
    int64_t n = static_cast<int64_t>(symbols.size());
    if (files.max_train_symbols > 0) n = std::min(n, files.max_train_symbols);
    corpus.train.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      auto [it, added] = ids.emplace(symbols[static_cast<size_t>(i)], corpus.size());
      if (added) corpus.vocabulary.push_back(it->first);
      corpus.train.push_back(it->second);
    }
  };
  auto encodeHeldOut = [&](const std::vector<std::string>& symbols, const std::string& where,
                           std::vector<int64_t>& to, int64_t& unknown) {
    if (symbols.empty()) throw std::runtime_error("lm corpus: " + where + " is empty");
    to.reserve(symbols.size());
    for (const auto& s : symbols) {
      auto it = ids.find(s);
      if (it != ids.end()) {
        to.push_back(it->second);
        continue;
      }
      if (corpus.unknown_id < 0) {  // "<unk>" of the training text, else a new symbol
        auto [u, added] = ids.emplace("<unk>", corpus.size());
        if (added) corpus.vocabulary.push_back("<unk>");
        corpus.unknown_id = u->second;
      }
      to.push_back(corpus.unknown_id);
      ++unknown;
    }
  };
  if (files.format == LmCorpusFormat::Bytes && files.valid.empty() && files.test.empty()) {
    // 100M bytes: encoded through a byte table, not 100M strings.
    const std::string text = readFile(files.train);
    if (static_cast<int64_t>(text.size()) != kEnwik8Bytes)
      throw std::runtime_error("lm corpus: " + files.train + " has " + std::to_string(text.size()) +
                               " bytes; the enwik8 split expects exactly 100,000,000 (or give "
                               "corpus.valid and corpus.test files)");
    std::vector<int64_t> id_of(256, -1);
    int64_t n = kEnwik8Train;
    if (files.max_train_symbols > 0) n = std::min(n, files.max_train_symbols);
    for (int64_t i = 0; i < n; ++i) {
      auto& id = id_of[static_cast<unsigned char>(text[static_cast<size_t>(i)])];
      if (id < 0) {
        id = corpus.size();
        corpus.vocabulary.push_back(std::to_string(static_cast<unsigned char>(text[static_cast<size_t>(i)])));
      }
      corpus.train.push_back(id);
    }
    auto heldOut = [&](int64_t from, int64_t to, std::vector<int64_t>& out, int64_t& unknown) {
      for (int64_t i = from; i < to; ++i) {
        int64_t id = id_of[static_cast<unsigned char>(text[static_cast<size_t>(i)])];
        if (id < 0) {
          if (corpus.unknown_id < 0) {
            corpus.unknown_id = corpus.size();
            corpus.vocabulary.push_back("<unk>");
          }
          id = corpus.unknown_id;
          ++unknown;
        }
        out.push_back(id);
      }
    };
    heldOut(kEnwik8Train, kEnwik8Train + kEnwik8Valid, corpus.valid, corpus.unknown_valid);
    heldOut(kEnwik8Train + kEnwik8Valid, kEnwik8Bytes, corpus.test, corpus.unknown_test);
    return corpus;
  }
  for (const auto* key : {&files.valid, &files.test})
    if (key->empty())
      throw std::runtime_error("lm corpus: corpus.valid and corpus.test must name files (only "
                               "format 'bytes' splits one 100M-byte file itself)");
  encodeTrain(lmSymbols(readFile(files.train), files.format, files.train), files.train);
  encodeHeldOut(lmSymbols(readFile(files.valid), files.format, files.valid), files.valid,
                corpus.valid, corpus.unknown_valid);
  encodeHeldOut(lmSymbols(readFile(files.test), files.format, files.test), files.test,
                corpus.test, corpus.unknown_test);
  return corpus;
}

}  // namespace recurlab::experiments
