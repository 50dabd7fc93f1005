#include "analysis/synthetic_length_scores.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace recurlab::analysis {
namespace {

std::vector<std::string> splitFields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

}  // namespace

std::vector<LengthScore> readLengthScores(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  const std::vector<std::string> needed = {"task", "model", "width", "lr_index", "seed",
                                           "length", "questions", "right"};
  std::string line;
  if (!std::getline(in, line))
    throw std::runtime_error(path + ": empty; expected a header line naming the columns " +
                             "task,model,width,lr_index,seed,length,questions,right");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = splitFields(line);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const auto& name : needed)
    if (!column.count(name))
      throw std::runtime_error(path + ":1: the header lacks the column '" + name +
                               "' (scripts/synthetic-lengths.sh writes it)");
  std::vector<LengthScore> scores;
  // A row repeated (files appended to one another) would count its questions twice.
  std::map<std::tuple<std::string, std::string, int64_t, int64_t, int64_t, int64_t>, int64_t> first_line;
  for (int64_t number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(number);
    const auto fields = splitFields(line);
    if (fields.size() != header.size())
      throw std::runtime_error(where + ": " + std::to_string(fields.size()) + " fields, expected " +
                               std::to_string(header.size()) + " as the header has");
    const auto count = [&](const std::string& name, int64_t least) {
      const std::string& text = fields[column.at(name)];
      size_t used = 0;
      int64_t value = -1;
      try {
        value = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (text.empty() || used != text.size() || value < least)
        throw std::runtime_error(where + ": " + name + " '" + text + "' is not an integer >= " +
                                 std::to_string(least));
      return value;
    };
    LengthScore s;
    s.task = fields[column.at("task")];
    s.model = fields[column.at("model")];
    if (s.task.empty() || s.model.empty())
      throw std::runtime_error(where + ": empty task or model");
    s.width = count("width", 1);
    s.lr_index = count("lr_index", 0);
    s.seed = count("seed", 0);
    s.length = count("length", 1);
    s.questions = count("questions", 1);
    s.right = count("right", 0);
    if (s.right > s.questions)
      throw std::runtime_error(where + ": right " + std::to_string(s.right) + " exceeds questions " +
                               std::to_string(s.questions));
    const auto [at, fresh] = first_line.insert(
        {{s.task, s.model, s.width, s.lr_index, s.seed, s.length}, number});
    if (!fresh)
      throw std::runtime_error(where + ": a second row for " + s.task + " " + s.model + " width " +
                               std::to_string(s.width) + " lr_index " + std::to_string(s.lr_index) +
                               " seed " + std::to_string(s.seed) + " length " +
                               std::to_string(s.length) + " (the first is line " +
                               std::to_string(at->second) + ")");
    scores.push_back(std::move(s));
  }
  return scores;
}

std::string lengthScoreFile(const std::string& run_dir, const std::string& task) {
  return (std::filesystem::path(run_dir) / (task + "_by_length.csv")).string();
}

}  // namespace recurlab::analysis
