#pragma once
// A parallel corpus: two plain-text files (optionally gzip-compressed, by the ".gz" name) with
// one sentence per line, line i of one the translation of line i of the other. Lines are split
// on '\n' only; a trailing '\r' and a leading UTF-8 byte-order mark are dropped.
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments {

struct SentencePair {
  std::string source, target;
  int64_t line = 0;  // 1-based line number in both files
};

struct ParallelCorpus {
  std::string source_path, target_path;
  std::vector<SentencePair> pairs;
  int64_t lines = 0;        // lines read from each file
  int64_t empty_pairs = 0;  // pairs skipped because one side (or both) was blank
};

enum class EmptyLinePolicy { Skip, Error };

// Reads both files. Different line counts -> std::runtime_error naming both files and their
// counts; a pair with a blank side is skipped and counted (Skip) or an error naming the file
// and line (Error); a file that cannot be opened or decompressed is an error naming it.
ParallelCorpus loadParallelCorpus(const std::string& source_path, const std::string& target_path,
                                  EmptyLinePolicy empty_lines = EmptyLinePolicy::Skip);

// The lines of one text file (gzip when the name ends in ".gz"), as loadParallelCorpus reads
// them (blank lines kept).
std::vector<std::string> readCorpusLines(const std::string& path);

}  // namespace recurlab::experiments
