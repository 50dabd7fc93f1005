#pragma once
// The official SQuAD v1.1 evaluator (evaluate-v1.1.py), without torch:
//   normalize(s) = white_space_fix(remove_articles(remove_punc(lower(s))))
// with Python 3 semantics: Unicode-aware str.lower(), string.punctuation (the 32 ASCII
// characters only), re.sub(r'\b(a|an|the)\b', ' ') with Unicode word boundaries, and
// str.split() on the 29 isspace() code points. EM and token F1 per question are the maximum over
// its ground truths; totals add per-question doubles in file order, x100.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tasks/qa/squad_dataset.h"

namespace recurlab::experiments::qa {

std::string normalizeAnswer(const std::string& s);
std::vector<std::string> answerTokens(const std::string& s);  // normalize(s).split()
bool exactMatch(const std::string& prediction, const std::string& truth);
double tokenF1(const std::string& prediction, const std::string& truth);

struct SquadScore {
  double exact_match = 0;  // x100
  double f1 = 0;           // x100
  int64_t total = 0;       // questions scored
  int64_t missing = 0;     // questions without a prediction (scored 0)
  std::vector<std::string> missing_ids;
};

// Scores every question of `data` (or only those listed in `questions`, by index).
SquadScore evaluateSquad(const SquadDataset& data,
                         const std::map<std::string, std::string>& predictions);
SquadScore evaluateSquad(const SquadDataset& data, const std::vector<int64_t>& questions,
                         const std::map<std::string, std::string>& predictions);

// Reads a predictions file: a JSON object id -> answer string. Errors name the file, the byte
// offset of malformed JSON, or the id whose value is not a string.
std::map<std::string, std::string> loadPredictions(const std::string& path);
void writePredictions(const std::map<std::string, std::string>& predictions,
                      const std::string& path);

// A double as Python's repr() prints it (shortest round trip, "100.0").
std::string pythonFloat(double x);
// {"exact_match": X, "f1": Y} as the official script prints it.
std::string officialScoreLine(const SquadScore& score);

}  // namespace recurlab::experiments::qa
