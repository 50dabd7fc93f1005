#include "tasks/classification/classification_datasets.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "experiments/search/seed_sequence.h"

namespace recurlab::experiments {
namespace fs = std::filesystem;

const std::vector<ClassificationDatasetSpec>& classificationDatasets() {
  static const std::vector<ClassificationDatasetSpec> specs = {
      {"MR", {"rt-polarity.all"}, 2, true, false},
      {"CR", {"custrev.all"}, 2, true, false},
      {"SUBJ", {"subj.all"}, 2, true, false},
      {"MPQA", {"mpqa.all"}, 2, true, false},
      {"TREC", {"TREC.train.all", "TREC.test.all"}, 6, false, false},
      {"SST-2", {"stsa.binary.train", "stsa.binary.dev", "stsa.binary.test"}, 2, false, true},
      {"SST-5", {"stsa.fine.train", "stsa.fine.dev", "stsa.fine.test"}, 5, false, true},
  };
  return specs;
}

std::vector<std::string> classificationDatasetNames() {
  std::vector<std::string> names;
  for (const auto& s : classificationDatasets()) names.push_back(s.name);
  return names;
}

const ClassificationDatasetSpec& classificationDataset(const std::string& name) {
  for (const auto& s : classificationDatasets())
    if (s.name == name) return s;
  std::string accepted;
  for (const auto& n : classificationDatasetNames()) accepted += (accepted.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown classification dataset '" + name + "'; accepted: " +
                              accepted);
}

std::vector<std::string> classificationDatasetPaths(const std::string& data_dir,
                                                    const ClassificationDatasetSpec& spec) {
  std::vector<std::string> paths;
  for (const auto& f : spec.files) paths.push_back((fs::path(data_dir) / "classification" / f).string());
  return paths;
}

void checkClassificationDatasetPresent(const std::string& data_dir,
                                       const ClassificationDatasetSpec& spec) {
  for (const auto& p : classificationDatasetPaths(data_dir, spec))
    if (!fs::is_regular_file(p))
      throw std::runtime_error("dataset " + spec.name + ": " + p +
                               " not found; run `scripts/get-data.sh classification` to fetch "
                               "the classification data into ./data (or pass --data-dir DIR)");
}

ClassificationData loadClassificationData(const std::string& data_dir, const std::string& name,
                                          EmptySentencePolicy empty) {
  return loadClassificationData(data_dir, classificationDataset(name), empty);
}

ClassificationData loadClassificationData(const std::string& data_dir,
                                          const ClassificationDatasetSpec& spec,
                                          EmptySentencePolicy empty) {
  ClassificationData data;
  data.spec = spec;
  data.num_classes = data.spec.num_classes;
  checkClassificationDatasetPresent(data_dir, data.spec);
  const auto paths = classificationDatasetPaths(data_dir, data.spec);
  std::vector<LabeledSentenceFile> files;
  for (const auto& p : paths) {
    files.push_back(readLabeledSentences(p, data.spec.num_classes, empty));
    for (auto& w : files.back().warnings) data.warnings.push_back(w);
  }
  if (data.spec.cross_validation) {
    data.all = std::move(files[0].examples);
  } else {
    data.train = std::move(files[0].examples);
    if (data.spec.given_dev) {
      data.dev = std::move(files[1].examples);
      data.test = std::move(files[2].examples);
    } else {
      data.test = std::move(files[1].examples);
    }
  }
  // readLabeledSentences checked every label against K; a class missing from the training
  // data would train an output that never sees a positive example.
  const auto& train = data.spec.cross_validation ? data.all : data.train;
  std::vector<bool> seen(static_cast<size_t>(data.num_classes), false);
  for (const auto& e : train) seen[static_cast<size_t>(e.label)] = true;
  for (int k = 0; k < data.num_classes; ++k)
    if (!seen[static_cast<size_t>(k)])
      throw std::runtime_error(paths[0] + ": no example of class " + std::to_string(k) + " of " +
                               data.spec.name + " (labels 0.." +
                               std::to_string(data.num_classes - 1) + ")");
  return data;
}

namespace {

// Moves the first ceil(fraction * n) examples of a seeded permutation into dev.
void holdOut(std::vector<LabeledSentence>& train, std::vector<LabeledSentence>& dev,
             double fraction, uint64_t seed) {
  const auto order = seededPermutation(train.size(), seed);
  const size_t n_dev = static_cast<size_t>(std::ceil(fraction * train.size()));
  std::vector<LabeledSentence> kept;
  for (size_t i = 0; i < order.size(); ++i)
    (i < n_dev ? dev : kept).push_back(train[order[i]]);
  train = std::move(kept);
}

}  // namespace

ClassificationSplit makeClassificationSplit(const ClassificationData& data, int fold, int folds,
                                            uint64_t split_seed, double dev_fraction) {
  ClassificationSplit split;
  split.num_classes = data.num_classes;
  if (data.spec.cross_validation) {
    if (folds < 2 || fold < 0 || fold >= folds)
      throw std::invalid_argument(data.spec.name + ": fold " + std::to_string(fold) +
                                  " of " + std::to_string(folds) + " is out of range");
    if (static_cast<size_t>(folds) > data.all.size())
      throw std::invalid_argument(data.spec.name + ": more folds than examples");
    const auto order = seededPermutation(data.all.size(), mixSeed(split_seed));
    for (size_t i = 0; i < order.size(); ++i)
      (static_cast<int>(i % folds) == fold ? split.test : split.train).push_back(data.all[order[i]]);
    holdOut(split.train, split.dev, dev_fraction, mixSeed(split_seed + 1 + fold));
  } else {
    if (fold != 0)
      throw std::invalid_argument(data.spec.name + " has a given test set: only fold 0 exists");
    split.train = data.train;
    split.test = data.test;
    if (data.spec.given_dev)
      split.dev = data.dev;
    else
      holdOut(split.train, split.dev, dev_fraction, mixSeed(split_seed + 1));
  }
  return split;
}

}  // namespace recurlab::experiments
