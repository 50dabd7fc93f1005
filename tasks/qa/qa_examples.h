#pragma once
// SQuAD questions as reader inputs: tokens (squad_tokenizer.h), word ids, the paragraph features
// of the DrQA reader (exact match of the cased and the lowercased token in the question, and
// the token's lowercased term frequency in the paragraph), and the training target: the first
// answer whose character span is exactly a token span (DrQA's find_answer).
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/data/vocabulary.h"
#include "tasks/qa/squad_dataset.h"
#include "tasks/qa/squad_tokenizer.h"

namespace recurlab::experiments::qa {

constexpr int64_t kParagraphFeatures = 3;

struct QaExample {
  int64_t question = 0;   // index into the dataset's questions
  int64_t paragraph = 0;  // index into its paragraphs (and QaTokens::paragraphs)
  std::vector<int64_t> paragraph_ids, question_ids;
  std::vector<float> features;  // paragraph_ids.size() x kParagraphFeatures, row-major
  int64_t start = -1, end = -1;  // target token span, inclusive; -1 = no aligned answer
};

// Tokens of every paragraph and question of a dataset, computed once.
struct QaTokens {
  std::vector<std::vector<TextToken>> paragraphs, questions;
};
QaTokens tokenizeDataset(const SquadDataset& data);

// Features of paragraph tokens for a question: [cased match, lowercased match, tf].
std::vector<float> paragraphFeatures(const std::vector<TextToken>& paragraph,
                                     const std::vector<TextToken>& question);

// The first answer of the question that aligns to tokens (and was not cut off), or {-1, -1}.
std::pair<int64_t, int64_t> targetSpan(const SquadQuestion& question,
                                       const std::vector<TextToken>& paragraph);

QaExample makeExample(const SquadDataset& data, const QaTokens& tokens, int64_t question,
                      const Vocabulary& vocabulary);

// Words by frequency in the given questions and their paragraphs (each paragraph counted once),
// question words first when `question_words_first`: the vocabulary of the reader, the most
// frequent question words at ids 2.. so that DrQA's partial tuning can pick them.
Vocabulary buildQaVocabulary(const SquadDataset& data, const QaTokens& tokens,
                             const std::vector<int64_t>& questions, int64_t min_count,
                             int64_t* question_words = nullptr);

}  // namespace recurlab::experiments::qa
