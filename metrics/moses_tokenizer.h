#pragma once
// The Moses preprocessing that Multi30k's tokenized files come from and that the multimodal MT
// papers score with (Elliott et al. 2016, "Multi30K", the dataset's scripts/task1-tokenize.sh:
// lowercase, normalize-punctuation.perl -l L, tokenizer.perl -l L, escaping on), as the Moses
// scripts of that snapshot behave (Koehn et al. 2007, "Moses"). Tokenized lowercased BLEU is
// then plain BLEU (no smoothing) on these tokens, as multi-bleu.perl and fairseq's scorer
// compute it. Lowercasing is left to the caller (corpus_bleu's `lowercase`).
#include <string>
#include <string_view>

namespace recurlab::metrics {

// normalize-punctuation.perl -l `language`: works on bytes, as the script does (no UTF-8
// layer): spaces around brackets and before : ; % ? !, Unicode quotes, dashes, ellipsis and
// French quotes to ASCII, no-break spaces before punctuation dropped; for de/es/fr/cs a no-break
// space between digits becomes ',' (else '.'); German-style `."` becomes `".` (English `".`
// becomes `."`). `line` is one line without its newline; it is normalized as the script
// sees a line of a file, i.e. followed by a newline.
std::string mosesNormalizePunctuation(std::string_view line, std::string_view language);

// tokenizer.perl -l `language` (no -a, no -penn, escaping on): splits every character that is
// not a letter, digit, whitespace or one of . ' ` , - off; runs of dots are one token; commas
// unless between digits; apostrophes by the language's rules (en: "it 's", fr/it/ga: "l' ",
// others: always split); a final period unless the word is a non-breaking prefix of the
// language (German and English lists built in, others fall back to English as the script
// does), contains another period and a letter, or the next word starts lowercase; then
// escapes & | < > ' " [ ] as XML entities. Returns the line as the script prints it, less a
// trailing space (the tokens are what splitting it on whitespace gives).
std::string mosesTokenize(std::string_view line, std::string_view language);

// Both, in the order of the Multi30k scripts: normalize, then tokenize.
std::string mosesNormalizeAndTokenize(std::string_view line, std::string_view language);

}  // namespace recurlab::metrics
