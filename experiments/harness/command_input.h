#pragma once
// Input and output of the commands on a kept model: a file or standard input ("-"), read
// whole and checked (an empty or non-UTF-8 input is an error naming the file and the byte),
// and a file or standard output, a file written whole or not at all.
#include <string>
#include <vector>

namespace recurlab::experiments {

// "standard input" for "-", else the path: how errors name an input.
std::string inputName(const std::string& path);
// The whole text; throws std::runtime_error "FILE: empty" or, unless `any_bytes`, "FILE: not
// valid UTF-8 ...".
std::string readCommandInput(const std::string& path, bool any_bytes = false);
// Its lines (without '\n' and a trailing '\r'); the last line needs no '\n'.
std::vector<std::string> readCommandInputLines(const std::string& path);
void writeCommandOutput(const std::string& path, const std::string& text);

}  // namespace recurlab::experiments
