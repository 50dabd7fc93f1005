#pragma once
// UTF-8 <-> code points, and the Unicode character classes the SQuAD evaluator and tokenizer
// need (ICU's character database). SQuAD counts offsets in code points (Python str indexes);
// our strings are UTF-8, so every offset crosses this boundary exactly once.
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments::qa {

// Decodes UTF-8; throws std::invalid_argument on malformed input.
std::u32string decodeUtf8(const std::string& s);
std::string encodeUtf8(const std::u32string& s);

// Byte offset of code point `index` in `utf8` (index == length gives utf8.size()); -1 when
// `index` lies beyond the end.
int64_t byteOffsetOfCodePoint(const std::string& utf8, int64_t index);

// Python's str.lower(): the full Unicode lowercase mapping (SpecialCasing, final sigma).
std::string pythonLower(const std::string& utf8);

// Python's str.isspace() (the 29 code points str.split() splits on).
bool isPythonSpace(char32_t c);
// A word character of Python 3's `re` (str patterns): alphanumeric (isalnum) or '_'.
bool isPythonWordChar(char32_t c);

// General categories for the tokenizer: letter, mark or number (L*, M*, N*); separator or
// other (Z*, C*).
bool isLetterMarkOrNumber(char32_t c);
bool isSeparatorOrOther(char32_t c);

}  // namespace recurlab::experiments::qa
