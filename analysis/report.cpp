#include "analysis/report.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace recurlab::analysis {

namespace fs = std::filesystem;

Report::Report(std::string run_dir) : run_dir_(std::move(run_dir)) {}

void Report::heading(int level, const std::string& text) {
  markdown_ += std::string(static_cast<size_t>(std::max(1, level)), '#') + " " + text + "\n\n";
}

void Report::paragraph(const std::string& text) { markdown_ += text + "\n\n"; }

void Report::bullets(const std::vector<std::string>& items) {
  for (const auto& i : items) markdown_ += "- " + i + "\n";
  markdown_ += "\n";
}

void Report::table(const MarkdownTable& table) { markdown_ += table.str() + "\n"; }

void Report::code(const std::string& text, const std::string& language) {
  markdown_ += "```" + language + "\n" + text + (text.empty() || text.back() != '\n' ? "\n" : "") +
               "```\n\n";
}

void Report::figure(const Figure& figure, const std::string& file_name,
                    const std::string& caption) {
  const std::string path = (fs::path(run_dir_) / file_name).string();
  try {
    renderFigure(figure, path);
    files_.push_back(path);
    markdown_ += "![" + caption + "](" + file_name + ")\n\n*" + caption + "*\n\n";
  } catch (const std::exception& e) {
    std::cerr << "recurlab_analyze: " << e.what() << "\n";
    markdown_ += "*Figure `" + file_name + "` could not be drawn: " + e.what() + "*\n\n";
  }
}

void Report::write() {
  const std::string md = (fs::path(run_dir_) / "report.md").string();
  std::ofstream out(md);
  if (!out) throw std::runtime_error("cannot write " + md);
  out << markdown_;
  files_.push_back(md);
  const std::string sj = (fs::path(run_dir_) / "summary.json").string();
  std::ofstream sout(sj);
  if (!sout) throw std::runtime_error("cannot write " + sj);
  sout << summary_.dump(2) << "\n";
  files_.push_back(sj);
}

}  // namespace recurlab::analysis
