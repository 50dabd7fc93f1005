#pragma once
// The non-breaking prefixes of Moses's tokenizer (Koehn et al. 2007), German and English, as
// the snapshot used for Multi30k lists them: words after which a period is not split off
// ("Dr.", "z.B.", "Nr."), some only when a number follows ("No. 5").
#include <string>
#include <string_view>

namespace recurlab::metrics {

enum class NonbreakingPrefix { None, Always, BeforeNumber };

// True for the languages that have a list here ("de", "en").
bool hasMosesNonbreakingPrefixes(std::string_view language);

// How `word` (UTF-8, without its final period) is listed for `language`.
NonbreakingPrefix mosesNonbreakingPrefix(std::string_view language, const std::string& word);

}  // namespace recurlab::metrics
