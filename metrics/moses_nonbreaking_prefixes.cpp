#include "metrics/moses_nonbreaking_prefixes.h"

#include <stdexcept>
#include <unordered_map>

namespace recurlab::metrics {
namespace {

using PrefixTable = std::unordered_map<std::string, NonbreakingPrefix>;

void addAll(PrefixTable& table, std::initializer_list<const char*> words, NonbreakingPrefix kind) {
  for (const char* w : words) table[w] = kind;
}

void addLetters(PrefixTable& table, char first) {
  for (char c = first; c < first + 26; ++c) table[std::string(1, c)] = NonbreakingPrefix::Always;
}

// Titles and honorifics that both lists hold.
constexpr std::initializer_list<const char*> kTitles = {
    "Adj", "Adm", "Adv", "Asst", "Bart", "Bldg", "Brig", "Bros", "Capt", "Cmdr", "Col", "Comdr",
    "Con", "Corp", "Cpl", "DR", "Dr", "Ens", "Gen", "Gov", "Hon", "Hosp", "Insp", "Lt", "MM",
    "MR", "MRS", "MS", "Maj", "Messrs", "Mlle", "Mme", "Mr", "Mrs", "Ms", "Msgr", "Op", "Ord",
    "Pfc", "Ph", "Prof", "Pvt", "Rep", "Reps", "Res", "Rev", "Rt", "Sen", "Sens", "Sfc", "Sgt",
    "Sr", "St", "Supt", "Surg"};

PrefixTable germanPrefixes() {
  PrefixTable t;
  const auto always = NonbreakingPrefix::Always;
  addLetters(t, 'A');
  addLetters(t, 'a');
  addAll(t, {"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII",
             "XIV", "XV", "XVI", "XVII", "XVIII", "XIX", "XX", "i", "ii", "iii", "iv", "v", "vi",
             "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi", "xvii", "xviii",
             "xix", "xx"},
         always);
  addAll(t, kTitles, always);
  addAll(t, {"Mio", "Mrd", "bzw", "v", "vs", "usw", "d.h", "z.B", "u.a", "etc", "MwSt", "ggf",
             "d.J", "D.h", "m.E", "vgl", "I.F", "z.T", "sogen", "ff", "u.E", "g.U", "g.g.A",
             "c.-\xC3\xA0-d", "Buchst", "u.s.w", "sog", "u.\xC3\xA4", "Std", "evtl", "Zt", "Chr",
             "u.U", "o.\xC3\xA4", "Ltd", "b.A", "z.Zt", "spp", "sen", "SA", "k.o", "jun", "i.H.v",
             "dgl", "dergl", "Co", "zzt", "usf", "s.p.a", "Dkr", "bzgl", "BSE", "No", "Nos", "Art",
             "Nr", "pp", "ca", "Ca"},
         always);
  for (int n = 1; n <= 99; ++n) t[std::to_string(n)] = always;  // "3. Oktober"
  return t;
}

PrefixTable englishPrefixes() {
  PrefixTable t;
  const auto always = NonbreakingPrefix::Always;
  addLetters(t, 'A');
  addAll(t, kTitles, always);
  addAll(t, {"Drs", "Hr", "v", "vs", "i.e", "rev", "e.g", "Nos", "Nr", "Jan", "Feb", "Mar", "Apr",
             "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
         always);
  addAll(t, {"No", "Art", "pp"}, NonbreakingPrefix::BeforeNumber);
  return t;
}

}  // namespace

bool hasMosesNonbreakingPrefixes(std::string_view language) {
  return language == "de" || language == "en";
}

NonbreakingPrefix mosesNonbreakingPrefix(std::string_view language, const std::string& word) {
  static const PrefixTable german = germanPrefixes(), english = englishPrefixes();
  if (!hasMosesNonbreakingPrefixes(language))
    throw std::invalid_argument("Moses tokenizer: no non-breaking prefixes for language '" +
                                std::string(language) + "'; expected de or en");
  const auto& table = language == "de" ? german : english;
  const auto found = table.find(word);
  return found == table.end() ? NonbreakingPrefix::None : found->second;
}

}  // namespace recurlab::metrics
