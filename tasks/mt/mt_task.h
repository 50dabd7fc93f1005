#pragma once
// Machine translation (Lei et al. 2018 App. B.3) as a harness Task: one unit
// per model (/<model name>), each trained by the one Trainer on the same data and joint
// subwords. Per epoch the Trainer's table holds train loss and NLL, valid loss, perplexity and
// greedy BLEU, test BLEU and decoding speed; after training the unit averages its last k epoch
// checkpoints, translates the test set with beam search and writes the final BLEU (mixed case
// and lowercased, with sacreBLEU's signature), the translations and one test sentence's
// attention maps per decoder layer into the log, so the report needs nothing else.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/harness/task.h"
#include "tasks/mt/mt_config.h"
#include "tasks/mt/subword_model.h"
#include "tasks/mt/translation_training.h"

namespace recurlab::experiments {

struct TrainOutcome;

// The joint subword model's name in a kept model's folder.
inline constexpr const char* kMtSubwordFile = "subwords.model";

// What loading and encoding the data dropped or kept (written to every unit's group).
struct TranslationDataCounts {
  int64_t train_lines = 0, train_empty = 0, train_too_long = 0, train_subset_dropped = 0;
  int64_t valid_empty = 0, test_empty = 0;
};

class MtTask : public Task {
 public:
  MtTask(MtConfig config, std::string data_dir);
  ~MtTask() override;

  const MtConfig& config() const { return config_; }
  std::string dataPath(const std::string& file) const;  // relative to the data folder
  int64_t seed() const override { return config_.seed; }
  std::string describe() const override;
  // Every file is present (else the error says to run scripts/get-data.sh multi30k).
  void checkData() override;
  // Loads the corpora, trains the joint subword model into <run_folder>/subwords/joint.model
  // (or loads the one there) and encodes everything. Before the units.
  void prepare(const std::string& run_folder) override;
  // Each token-count batch is split across the ranks by sentences (translation_training.h).
  bool dataParallel() const override { return true; }
  const TranslationData& data() const { return data_; }
  const TranslationDataCounts& counts() const { return counts_; }
  const SubwordModel& subwords() const { return *subwords_; }

  std::vector<Unit> units() const override { return units_; }
  nlohmann::json unitTemplate(const Unit& unit) const override;
  SelectionMetric selection() const override { return {"best_valid_bleu", true}; }
  UnitResult runUnit(const Unit& unit, UnitContext& context) override;

 private:
  // What the unit trains on, in its group: the data's counts, the subwords, the languages.
  void logUnitData(Hdf5RunLog& log, const std::string& g, const std::string& model,
                   int64_t parameters) const;
  // The final test's BLEU (mixed case, lowercased, tokenized lowercased), its speed and
  // signatures into `r`; the test translations, references and sources into the log.
  void writeTestScores(const std::vector<std::string>& text, const CorpusTranslation& translated,
                       const MtDecodeOptions& decode, int64_t averaged, UnitResult& r,
                       Hdf5RunLog& log, const std::string& g) const;
  // One test sentence's attention maps, one per decoder attention (layer).
  void logAttention(models::Seq2SeqModel& model,
                    const std::vector<std::vector<int64_t>>& hypotheses,
                    int64_t attention_sentence, const torch::Device& device, Hdf5RunLog& log,
                    const std::string& g) const;
  // What the runner keeps of the unit: the weights the test used (or the best or last).
  TrainedModel keptModel(const Unit& unit, const nlohmann::json& unit_json,
                         const std::shared_ptr<models::Seq2SeqModel>& model,
                         const MtDecodeOptions& decode, int64_t averaged,
                         const TrainOutcome& outcome, const UnitResult& r, Hdf5RunLog& log,
                         const std::string& g) const;

  MtConfig config_;
  std::string data_dir_;
  std::vector<Unit> units_;
  std::map<std::string, std::string> model_of_group_;
  TranslationData data_;
  TranslationDataCounts counts_;
  std::optional<SubwordModel> subwords_;
};

}  // namespace recurlab::experiments
