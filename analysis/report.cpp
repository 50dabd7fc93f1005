#include "analysis/report.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "analysis/figure_renderer.h"

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

namespace {
void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << text;
}
}  // namespace

void Report::table(const ReportTable& table, const std::string& stem, const std::string& caption) {
  const std::string tex = (fs::path(run_dir_) / (stem + ".tex")).string();
  const std::string csv = (fs::path(run_dir_) / (stem + ".csv")).string();
  writeText(tex, table.latex(caption, stem));
  writeText(csv, table.csv());
  files_.push_back(tex);
  files_.push_back(csv);
  markdown_ += table.markdown() + "\n(LaTeX: [" + stem + ".tex](" + stem + ".tex), CSV: [" + stem +
               ".csv](" + stem + ".csv))\n\n";
}

void Report::terminalTable(const std::string& title, const ReportTable& table) {
  terminal_ += title + "\n" + table.markdown() + "\n";
}

void Report::code(const std::string& text, const std::string& language) {
  markdown_ += "```" + language + "\n" + text + (text.empty() || text.back() != '\n' ? "\n" : "") +
               "```\n\n";
}

void Report::figure(const Figure& figure, const std::string& stem, const std::string& caption) {
  try {
    const RenderedFigure drawn = renderFigure(figure, run_dir_, stem, figure_date_);
    if (!drawn.messages.empty())
      std::cerr << "recurlab_analyze: gnuplot on " << stem << ".gp: " << drawn.messages << "\n";
    files_.insert(files_.end(), drawn.files.begin(), drawn.files.end());
    std::string vector_file;
    for (const auto& f : drawn.files) {
      const auto ext = fs::path(f).extension().string();
      if (ext == ".pdf" || ext == ".svg") vector_file = fs::path(f).filename().string();
    }
    markdown_ += "![" + stem + "](" + stem + ".png)\n\n*" + caption + "* (" +
                 (vector_file.empty() ? "" : "[" + vector_file + "](" + vector_file + "), ") +
                 "script [" + stem + ".gp](" + stem + ".gp), data [" + stem + ".dat](" + stem +
                 ".dat))\n\n";
  } catch (const std::exception& e) {
    std::cerr << "recurlab_analyze: " << e.what() << "\n";
    markdown_ += "*Figure `" + stem + ".png` could not be drawn: " + e.what() + "*\n\n";
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
