#pragma once
// The tiny MT corpus of the tests: plain-text slices of Multi30k's validation set
// (../shared/data/multi30k, relative to the repository root, where the tests run), written as
// <folder>/{train,valid,test}.{en,de}.
#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace recurlab::testing {

// Lines of Multi30k's validation set taken in order: the first `train`, the next `valid`, then
// the next `test`.
struct Multi30kSlices {
  size_t train = 160, valid = 20, test = 10;
};

// Why an MT model cannot be trained on the slices here ("" when it can): no Multi30k under
// ../shared/data, or no subword models in this build.
std::string tinyMulti30kUnavailableReason();

// Writes the slices into `folder` (created when missing).
void writeTinyMulti30k(const std::filesystem::path& folder, const Multi30kSlices& slices = {});

// An MT config for the slices, trained in process (MtConfig::fromJson): a Transformer of width
// 16 (1 encoder, 2 decoder layers, dropout 0.1), 2 epochs of 600-token batches, greedy
// validation, beam-3 test of the last 2 epochs' average.
nlohmann::json tinyMtConfig();

// An MT run config for recurlab_mt on the slices (the data-parallel and kill-resume tests): a
// 1+1-layer Transformer of width 16 without dropout, 2 epochs of 200-token batches (about 12,
// some 5 sentences each), checkpoints every 2 steps, greedy validation, no per-epoch test, beam-3
// test of the last 2 epochs' average in batches of 4 sentences.
nlohmann::json tinyMtRunConfig();

}  // namespace recurlab::testing
