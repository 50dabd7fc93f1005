// The official SQuAD v1.1 evaluation (evaluate-v1.1.py) as a tool:
//   recurlab_squad_eval DATA.json PREDICTIONS.json
// prints {"exact_match": ..., "f1": ...} on stdout like the official script; each question
// without a prediction is named on stderr ("Unanswered question <id> will receive score 0.")
// and counted as wrong, and a count of them follows.
#include <iostream>
#include <string>

#include "tasks/qa/squad_dataset.h"
#include "tasks/qa/squad_evaluation.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments::qa;
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << "usage: recurlab_squad_eval DATA.json PREDICTIONS.json\n"
                 "Scores SQuAD v1.1 predictions ({\"question id\": \"answer\"}) exactly as the "
                 "official v1.1 evaluator:\nexact match and token F1 after its normalization, "
                 "maximum over the ground truths, x100.\n";
    return 0;
  }
  if (argc != 3) {
    std::cerr << "usage: recurlab_squad_eval DATA.json PREDICTIONS.json\n";
    return 2;
  }
  try {
    const auto data = loadSquad(argv[1]);
    if (data.version != "1.1")
      std::cerr << "Evaluation expects v-1.1, but got dataset with v-" << data.version << "\n";
    const auto predictions = loadPredictions(argv[2]);
    const auto score = evaluateSquad(data, predictions);
    for (const auto& id : score.missing_ids)
      std::cerr << "Unanswered question " << id << " will receive score 0.\n";
    if (score.missing > 0)
      std::cerr << score.missing << " of " << score.total
                << " questions have no prediction and were scored as wrong\n";
    std::cout << officialScoreLine(score) << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_squad_eval: error: " << e.what() << "\n";
    return 2;
  }
}
