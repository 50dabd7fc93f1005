#pragma once
// The numbers behind a figure, as the figure code writes them to `<name>.dat`: one block per
// series, each opened by a "# block k: title" line, for tests that check what a figure plots.
#include <sstream>
#include <string>
#include <vector>

namespace recurlab::testing {

// The data lines (not comments, not blank) of block k of a data file's text; none when absent.
inline std::vector<std::string> dataBlock(const std::string& data, int k) {
  std::vector<std::string> lines;
  const std::string marker = "# block " + std::to_string(k) + ":";
  const size_t at = data.find(marker);
  if (at == std::string::npos) return lines;
  const size_t end = data.find("# block " + std::to_string(k + 1) + ":", at);
  std::istringstream in(data.substr(at, end == std::string::npos ? std::string::npos : end - at));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  return lines;
}

}  // namespace recurlab::testing
