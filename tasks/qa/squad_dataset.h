#pragma once
// SQuAD v1.1 JSON (rajpurkar.github.io/SQuAD-explorer) without torch:
//   {"data": [{"title", "paragraphs": [{"context", "qas": [{"id", "question",
//     "answers": [{"answer_start", "text"}]}]}]}], "version": "1.1"}
// `answer_start` counts Unicode code points (Python str indexes); it is mapped here to a UTF-8
// byte offset into the context, and every answer is checked to equal the context slice there.
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments::qa {

struct SquadAnswer {
  std::string text;
  int64_t char_start = 0;   // code points, as in the file
  int64_t byte_begin = -1;  // [byte_begin, byte_end) in the (possibly truncated) context
  int64_t byte_end = -1;
  bool matches = false;     // the context slice at the offset equals the text
  bool truncated = false;   // matched, but lies past a truncated context's end
};

struct SquadQuestion {
  std::string id;
  std::string question;
  int64_t paragraph = 0;  // index into SquadDataset::paragraphs
  std::vector<SquadAnswer> answers;
};

struct SquadParagraph {
  std::string context;   // UTF-8, truncated to max_context_chars when that is set
  int64_t article = 0;   // index into SquadDataset::titles
  int64_t original_chars = 0;
};

struct SquadLoadOptions {
  int64_t max_context_chars = 0;  // 0 = keep contexts whole; else cut and count
};

struct SquadDataset {
  std::string path;
  std::string version;
  std::vector<std::string> titles;        // one per article
  std::vector<SquadParagraph> paragraphs;
  std::vector<SquadQuestion> questions;   // file order
  int64_t answers = 0;
  std::vector<std::string> mismatched_ids;  // questions with an answer whose offset is wrong
  int64_t mismatched_answers = 0;
  int64_t truncated_contexts = 0;
  int64_t truncated_answers = 0;            // answers cut off by a truncation
};

// Throws std::runtime_error naming the file and, for malformed JSON, the byte offset; for a
// wrong layout the JSON path (data[3].paragraphs[0].qas[2].id) and what was expected.
SquadDataset loadSquad(const std::string& path, const SquadLoadOptions& options = {});
// The same from the file's bytes (`name` for errors).
SquadDataset parseSquad(const std::string& bytes, const std::string& name,
                        const SquadLoadOptions& options = {});

// Writes `questions` (a subset of `data`, with their paragraphs and articles, in order) as a
// SQuAD v1.1 file that the official evaluator reads; answers keep their original offsets.
void writeSquadSubset(const SquadDataset& data, const std::vector<int64_t>& questions,
                      const std::string& path);

}  // namespace recurlab::experiments::qa
