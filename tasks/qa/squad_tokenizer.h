#pragma once
// The tokenizer of the reader, with offsets: DrQA's SimpleTokenizer rule
// [\p{L}\p{N}\p{M}]+ | [^\p{Z}\p{C}] written over code points: a maximal run of letters, marks
// and digits is one token, any other character that is neither a separator (Z*) nor a control,
// format or unassigned character (C*) is a token by itself, and separators and C* characters
// (spaces, '\n', U+200B, U+FEFF, U+200E) are dropped. No lowercasing, no normalization. Each
// token keeps its [begin, end) UTF-8 byte range in the text, so a predicted span maps back to
// the exact substring of the context (DrQA's validate_official).
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments::qa {

struct TextToken {
  std::string text;
  int64_t byte_begin = 0, byte_end = 0;
};

std::vector<TextToken> tokenizeText(const std::string& utf8);

// The token span [first, last] (inclusive) covering exactly [byte_begin, byte_end): a token
// starts at byte_begin and one ends at byte_end (DrQA's find_answer); {-1, -1} otherwise.
std::pair<int64_t, int64_t> alignSpan(const std::vector<TextToken>& tokens, int64_t byte_begin,
                                      int64_t byte_end);

}  // namespace recurlab::experiments::qa
