#include "experiments/data/word_vectors.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "experiments/data/text_lines.h"

namespace recurlab::experiments {

std::optional<int64_t> WordVectors::find(const std::string& word) const {
  const auto it = index.find(word);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

std::string toString(WordVectorFormat format) {
  switch (format) {
    case WordVectorFormat::Auto: return "auto";
    case WordVectorFormat::Word2VecBinary: return "word2vec binary";
    case WordVectorFormat::Word2VecText: return "word2vec text";
    case WordVectorFormat::GloveText: return "GloVe text";
  }
  return "?";
}

namespace {

constexpr int64_t kMaxDimension = 100000;

std::vector<std::string> splitWhitespace(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string tok;
  while (in >> tok) out.push_back(tok);
  return out;
}

bool parseInt(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long r = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *v = r;
  return true;
}

bool parseFloat(const std::string& s, float* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const float r = std::strtof(s.c_str(), &end);
  if (errno == ERANGE && r != 0.0f) return false;
  if (*end) return false;
  *v = r;
  return true;
}

// "N D" with two positive integers.
bool parseHeader(const std::string& line, int64_t* n, int64_t* d) {
  const auto f = splitWhitespace(line);
  return f.size() == 2 && parseInt(f[0], n) && parseInt(f[1], d) && *n >= 0 && *d > 0;
}

// "word v1 ... vD" with exactly `dim` numbers (dim < 0: any count >= 1).
bool parseTextEntry(const std::string& line, int64_t dim, std::string* word,
                    std::vector<float>* vec, std::string* why) {
  const auto f = splitWhitespace(line);
  if (f.size() < 2) {
    *why = "expected a word followed by numbers";
    return false;
  }
  if (dim >= 0 && static_cast<int64_t>(f.size()) - 1 != dim) {
    *why = "expected " + std::to_string(dim) + " values after the word '" + f[0] + "', got " +
           std::to_string(f.size() - 1);
    return false;
  }
  *word = f[0];
  vec->resize(f.size() - 1);
  for (size_t i = 1; i < f.size(); ++i) {
    if (!parseFloat(f[i], &(*vec)[i - 1])) {
      *why = "value " + std::to_string(i) + " of '" + f[0] + "' ('" + f[i] +
             "') is not a number";
      return false;
    }
  }
  return true;
}

class Loader {
 public:
  Loader(const std::string& path, const WordVectorLoadOptions& o) : path_(path), opt_(o) {}

  void add(const std::string& word, const float* v) {
    if (opt_.vocabulary && !opt_.vocabulary->count(word)) return;
    if (out.index.count(word)) return;
    out.index.emplace(word, out.size());
    out.words.push_back(word);
    out.values.insert(out.values.end(), v, v + out.dim);
  }
  bool enough(int64_t entries) const { return opt_.max_words > 0 && entries >= opt_.max_words; }
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw std::runtime_error("word vectors " + path_ + ":" + where + ": " + what);
  }

  WordVectors out;

 private:
  std::string path_;
  const WordVectorLoadOptions& opt_;
};

void readText(TextLines& lines, Loader& ld, int64_t expected_count) {
  std::string line, word, why;
  std::vector<float> vec;
  int64_t entries = 0;
  while (lines.next(line)) {
    if (!parseTextEntry(line, ld.out.dim, &word, &vec, &why))
      ld.fail(std::to_string(lines.number()), why);
    ld.add(word, vec.data());
    if (ld.enough(++entries)) return;
  }
  if (expected_count >= 0 && entries != expected_count)
    ld.fail(std::to_string(lines.number()),
            "the header announces " + std::to_string(expected_count) + " words, the file has " +
                std::to_string(entries));
}

void readBinary(std::istream& in, Loader& ld, int64_t count) {
  std::vector<float> vec(static_cast<size_t>(ld.out.dim));
  for (int64_t e = 0; e < count; ++e) {
    std::string word;
    int ch;
    while ((ch = in.get()) == '\n' || ch == '\r') {
    }
    while (ch != EOF && ch != ' ') {
      word += static_cast<char>(ch);
      if (word.size() > 10000)
        ld.fail("entry " + std::to_string(e + 1), "word longer than 10000 bytes (not word2vec "
                                                  "binary?)");
      ch = in.get();
    }
    if (ch == EOF)
      ld.fail("entry " + std::to_string(e + 1),
              "file ends; the header announces " + std::to_string(count) + " words");
    in.read(reinterpret_cast<char*>(vec.data()),
            static_cast<std::streamsize>(vec.size() * sizeof(float)));
    if (in.gcount() != static_cast<std::streamsize>(vec.size() * sizeof(float)))
      ld.fail("entry " + std::to_string(e + 1) + " ('" + word + "')",
              "file ends inside the vector (expected " + std::to_string(ld.out.dim) +
                  " float32 values)");
    ld.add(word, vec.data());
    if (ld.enough(e + 1)) return;
  }
}

}  // namespace

WordVectors loadWordVectors(const std::string& path, const WordVectorLoadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("word vectors " + path + ": cannot open the file");
  Loader ld(path, options);
  TextLines lines(in);
  std::string first;
  if (!lines.next(first)) ld.fail("1", "the file is empty (or holds only blank lines)");

  int64_t n = 0, d = 0;
  const bool has_header = parseHeader(first, &n, &d);
  WordVectorFormat format = options.format;
  if (format == WordVectorFormat::Auto) {
    if (!has_header) {
      format = WordVectorFormat::GloveText;
    } else {
      // Text if the first entry parses as "word" + D numbers on one line; binary otherwise.
      const auto pos = in.tellg();
      std::string line, word, why;
      std::vector<float> vec;
      TextLines probe(in, lines.number() + 1);
      const bool text = n == 0 || (probe.next(line) && parseTextEntry(line, d, &word, &vec, &why));
      in.clear();
      in.seekg(pos);
      format = text ? WordVectorFormat::Word2VecText : WordVectorFormat::Word2VecBinary;
    }
  }
  ld.out.format = format;
  switch (format) {
    case WordVectorFormat::Word2VecBinary:
    case WordVectorFormat::Word2VecText:
      if (!has_header)
        ld.fail(std::to_string(lines.number()), "expected a header line \"<words> <dimension>\", got '" +
                         first.substr(0, 80) + "'");
      // Real vectors have a few hundred dimensions; a huge header value (a corrupt or
      // non-vector file) would otherwise be one giant allocation before any check.
      if (d > kMaxDimension)
        ld.fail(std::to_string(lines.number()), "the header announces dimension " +
                                                    std::to_string(d) + ", more than " +
                                                    std::to_string(kMaxDimension));
      ld.out.dim = d;
      if (format == WordVectorFormat::Word2VecText)
        readText(lines, ld, options.max_words > 0 ? -1 : n);
      else
        readBinary(in, ld, n);
      break;
    case WordVectorFormat::GloveText: {
      std::string word, why;
      std::vector<float> vec;
      if (!parseTextEntry(first, -1, &word, &vec, &why)) ld.fail(std::to_string(lines.number()), why);
      ld.out.dim = static_cast<int64_t>(vec.size());
      ld.add(word, vec.data());
      if (!ld.enough(1)) readText(lines, ld, -1);
      break;
    }
    case WordVectorFormat::Auto:
      break;
  }
  return std::move(ld.out);
}

}  // namespace recurlab::experiments
