#pragma once
// sacreBLEU's default tokenizer "13a" (mteval-v13a.pl's, as sacreBLEU 2.x applies it): drop
// <skipped>, join "-\n", unescape &quot; &amp; &lt; &gt;, then four substitutions, each global,
// leftmost and non-overlapping: split the ASCII symbols {|}~[\]^_`space!"#$%&()*+:;<=>?@/ off;
// split "." and "," unless a digit is on that side; split "-" after a digit; then collapse
// whitespace (Python's Unicode set). Non-ASCII characters are never split. Works on UTF-8 bytes:
// every pattern is ASCII.
#include <string>
#include <string_view>

namespace recurlab::metrics {

std::string tokenize13a(std::string_view line);

// The four substitutions and the whitespace collapse alone, on `text` as it is (13a pads the
// line with a space at both ends first, the "zh" tokenizer does not).
std::string apply13aRules(std::string_view text);

}  // namespace recurlab::metrics
