#pragma once
// sacreBLEU's "intl" tokenizer (mteval-v14.pl's international tokenization): three global,
// leftmost, non-overlapping substitutions on code points, by Unicode general category:
// punctuation (P*) after a non-number gets a space on both sides of the pair's second
// character, punctuation before a non-number likewise, every symbol (S*) stands alone; then
// whitespace (Python's set) collapsed. So "1,000.5" stays, "U.S.A." splits, and a number's
// final period ("1999.") stays attached, as in mteval-v14.pl.
#include <string>
#include <string_view>

namespace recurlab::metrics {

std::string tokenizeIntl(std::string_view line);

}  // namespace recurlab::metrics
