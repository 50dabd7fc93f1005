#pragma once
// The pieces of Python's str semantics that the scores of sacreBLEU and of the official SQuAD
// evaluator depend on, on UTF-8 bytes, with ICU's character database: str.split()/rstrip()
// with Python's Unicode whitespace (Multi30k's German text holds U+00A0 no-break spaces, which
// Python splits on and an ASCII split would not), str.lower(), the word characters of `re`,
// and the code-point offsets SQuAD counts in (Python str indexes). Torch-free: shared by the
// BLEU tool, the MT task and the QA task.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace recurlab::metrics {

// Decodes UTF-8 strictly; throws std::invalid_argument naming the byte on malformed input.
std::u32string decodeUtf8(const std::string& s);
std::string encodeUtf8(const std::u32string& s);

// Byte offset of code point `index` in `utf8` (index == length gives utf8.size()); -1 when
// `index` lies beyond the end.
int64_t byteOffsetOfCodePoint(const std::string& utf8, int64_t index);

// Python's str.isspace() code points: \t\n\v\f\r, U+001C-001F, space, U+0085, U+00A0, U+1680,
// U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool isPythonWhitespace(char32_t c);

// Python's str.split() with no argument: runs of whitespace separate, no empty pieces.
// Invalid UTF-8 bytes count as non-space (Python would have refused to decode them).
std::vector<std::string> splitPythonWhitespace(std::string_view text);

// Python's str.rstrip() with no argument.
std::string rstripPythonWhitespace(std::string_view text);

// Python's str.lower(): the full Unicode lowercase mapping (SpecialCasing: U+0130 -> "i̇",
// final sigma). Invalid UTF-8 bytes are kept as they are.
std::string pythonLower(std::string_view text);

// A word character of Python 3's `re` (str patterns): alphanumeric (isalnum) or '_'.
bool isPythonWordChar(char32_t c);

// General categories (for tokenizers): letter, mark or number (L*, M*, N*); separator or
// other (Z*, C*).
bool isLetterMarkOrNumber(char32_t c);
bool isSeparatorOrOther(char32_t c);

}  // namespace recurlab::metrics
