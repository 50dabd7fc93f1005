#pragma once
// The tiny MT corpus of the tests: plain-text slices of Multi30k's validation set
// (../shared/data/multi30k, relative to the repository root, where the tests run), written as
// <folder>/{train,valid,test}.{en,de}.
#include <cstddef>
#include <filesystem>
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

}  // namespace recurlab::testing
