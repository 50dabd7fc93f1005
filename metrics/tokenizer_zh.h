#pragma once
// sacreBLEU's "zh" tokenizer: strip the line (Python's str.strip()), put a space on both sides
// of every Chinese character, then apply 13a's four substitutions (without 13a's unescaping
// and padding). "Chinese character" is sacreBLEU's list of code point ranges as Python
// evaluates it: two of its bounds are written with five hex digits after \u, which Python
// reads as a four-digit character followed by a digit, so those ranges are U+2001-U+2A6D
// (general punctuation, arrows, math symbols... rather than CJK Extension B) and
// U+2F81-U+2FA1; this tokenizer matches that behaviour, since sacreBLEU's scores do.
#include <string>
#include <string_view>

namespace recurlab::metrics {

bool isSacreBleuChineseCharacter(char32_t c);

std::string tokenizeZh(std::string_view line);

}  // namespace recurlab::metrics
