#include "tasks/mt/parallel_corpus.h"

#include <zlib.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace recurlab::experiments {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string readGzip(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw std::runtime_error("cannot open " + path);
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(file.get(), buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(file.get(), &code);
      throw std::runtime_error(path + ": not a readable gzip file (" + message + ")");
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

std::string readPlain(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool isBlank(const std::string& line) {
  return line.find_first_not_of(" \t") == std::string::npos;
}

}  // namespace

std::vector<std::string> readCorpusLines(const std::string& path) {
  const std::string bytes = endsWith(path, ".gz") ? readGzip(path) : readPlain(path);
  std::vector<std::string> lines;
  size_t start = bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    std::string line = bytes.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos)
      throw std::runtime_error(path + ":" + std::to_string(lines.size() + 1) +
                               ": a NUL byte; expected UTF-8 text");
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

ParallelCorpus loadParallelCorpus(const std::string& source_path, const std::string& target_path,
                                  EmptyLinePolicy empty_lines) {
  auto source = readCorpusLines(source_path);
  auto target = readCorpusLines(target_path);
  if (source.size() != target.size())
    throw std::runtime_error("parallel files of different lengths: " + source_path + " has " +
                             std::to_string(source.size()) + " lines, " + target_path + " has " +
                             std::to_string(target.size()) +
                             "; line i of one must translate line i of the other");
  ParallelCorpus corpus;
  corpus.source_path = source_path;
  corpus.target_path = target_path;
  corpus.lines = static_cast<int64_t>(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    const bool blank_source = isBlank(source[i]), blank_target = isBlank(target[i]);
    if (blank_source || blank_target) {
      if (empty_lines == EmptyLinePolicy::Error)
        throw std::runtime_error((blank_source ? source_path : target_path) + ":" +
                                 std::to_string(i + 1) +
                                 ": an empty sentence (set data.empty_lines to \"skip\" to skip "
                                 "such pairs)");
      ++corpus.empty_pairs;
      continue;
    }
    corpus.pairs.push_back({std::move(source[i]), std::move(target[i]), static_cast<int64_t>(i + 1)});
  }
  return corpus;
}

}  // namespace recurlab::experiments
