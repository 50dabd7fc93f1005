#pragma once
// The seven sentence classification benchmarks of Kim (2014) / Lei et al. 2018, App. B.1 and their
// protocols: 10-fold cross-validation (MR, CR, SUBJ, MPQA), TREC's given test with 10% of
// train held out as dev, SST's given train/dev/test.
#include <cstdint>
#include <string>
#include <vector>

#include "tasks/classification/labeled_sentences.h"

namespace recurlab::experiments {

struct ClassificationDatasetSpec {
  std::string name;                 // "MR", "SST-2", ...
  std::vector<std::string> files;   // under <data-dir>/classification/
  int num_classes = 0;              // K: every label must be in 0..K-1
  bool cross_validation = false;    // one file split into folds
  bool given_dev = false;           // SST: train/dev/test files; TREC: train/test
};

// All known datasets in a fixed order; throws naming the accepted names for an unknown one.
const std::vector<ClassificationDatasetSpec>& classificationDatasets();
const ClassificationDatasetSpec& classificationDataset(const std::string& name);
std::vector<std::string> classificationDatasetNames();

struct ClassificationData {
  ClassificationDatasetSpec spec;
  std::vector<LabeledSentence> all;               // cross-validation sets
  std::vector<LabeledSentence> train, dev, test;  // given splits (dev empty for TREC)
  int num_classes = 0;                            // spec.num_classes
  std::vector<std::string> warnings;              // skipped lines, file:line each
};

// The files' paths under data_dir; a missing file is an error that names it and says to run
// scripts/get-data.sh.
std::vector<std::string> classificationDatasetPaths(const std::string& data_dir,
                                                    const ClassificationDatasetSpec& spec);
void checkClassificationDatasetPresent(const std::string& data_dir,
                                       const ClassificationDatasetSpec& spec);
ClassificationData loadClassificationData(const std::string& data_dir, const std::string& name,
                                          EmptySentencePolicy empty = EmptySentencePolicy::Skip);
// The same for any spec, e.g. a user's own labelled files (files relative to
// <data_dir>/classification, or absolute).
ClassificationData loadClassificationData(const std::string& data_dir,
                                          const ClassificationDatasetSpec& spec,
                                          EmptySentencePolicy empty = EmptySentencePolicy::Skip);

struct ClassificationSplit {
  std::vector<LabeledSentence> train, dev, test;
  int num_classes = 0;
};

// fold in [0, folds) for cross-validation sets (ignored, must be 0, for given splits).
// Fold membership and the 10% dev hold-out are fixed by split_seed.
ClassificationSplit makeClassificationSplit(const ClassificationData& data, int fold, int folds,
                                            uint64_t split_seed, double dev_fraction = 0.1);

}  // namespace recurlab::experiments
