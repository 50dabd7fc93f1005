#pragma once
// A run's report under construction: Markdown text, the figures it links (PNG files written
// next to report.md) and summary.json's content. Report builders (report_registry.h) fill it;
// analyzeRun() writes it.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/gnuplot_figure.h"
#include "analysis/markdown_table.h"

namespace recurlab::analysis {

class Report {
 public:
  explicit Report(std::string run_dir);

  void heading(int level, const std::string& text);
  void paragraph(const std::string& text);
  void bullets(const std::vector<std::string>& items);
  void table(const MarkdownTable& table);
  void code(const std::string& text, const std::string& language = "");
  // Renders the figure to <run_dir>/<file_name> and links it; when gnuplot fails the report
  // says so in place of the image and the run's other outputs are still written.
  void figure(const Figure& figure, const std::string& file_name, const std::string& caption);

  nlohmann::json& summary() { return summary_; }
  const std::string& markdown() const { return markdown_; }
  const std::vector<std::string>& files() const { return files_; }  // written so far
  const std::string& runDirectory() const { return run_dir_; }

  // Writes report.md and summary.json into the run folder.
  void write();

 private:
  std::string run_dir_, markdown_;
  nlohmann::json summary_ = nlohmann::json::object();
  std::vector<std::string> files_;
};

}  // namespace recurlab::analysis
