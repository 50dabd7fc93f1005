#pragma once
// The tokenizers BLEU can apply to each segment, by sacreBLEU's names ("13a", "intl", "char",
// "zh", "none"), plus "moses": the Moses normalization and tokenization behind the tokenized
// BLEU of the Multi30k papers (moses_tokenizer.h), which sacreBLEU does not have.
#include <string>
#include <string_view>

namespace recurlab::metrics {

enum class BleuTokenizer { k13a, Intl, Char, Zh, None, Moses };

// Throws std::invalid_argument naming `name` and the known names.
BleuTokenizer parseBleuTokenizer(const std::string& name);

// Whether the "moses" tokenizer knows `language` (its non-breaking prefixes): de, en.
bool mosesTokenizerSupports(std::string_view language);

// The name in a signature: sacreBLEU's, or "moses-<language>".
std::string bleuTokenizerName(BleuTokenizer tokenizer, std::string_view moses_language);

// `line` tokenized, tokens separated by whitespace. "char": every code point, spaces
// between (sacreBLEU's " ".join(line)).
std::string tokenizeForBleu(std::string_view line, BleuTokenizer tokenizer,
                            std::string_view moses_language);

}  // namespace recurlab::metrics
