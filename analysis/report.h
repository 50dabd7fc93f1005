#pragma once
// A run's report under construction: Markdown text, the figures it links (PNG beside report.md,
// with PDF/SVG, gnuplot script and data), its tables (also as .tex and .csv) and summary.json's
// content. Report builders (report_registry.h) fill it; analyzeRun() writes it.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "analysis/figure.h"
#include "analysis/number_format.h"
#include "analysis/report_table.h"

namespace recurlab::analysis {

class Report {
 public:
  explicit Report(std::string run_dir);

  void heading(int level, const std::string& text);
  void paragraph(const std::string& text);
  void bullets(const std::vector<std::string>& items);
  // The table in the Markdown, and as <run_dir>/<stem>.tex and <stem>.csv; the caption goes into
  // the .tex (the Markdown has its own text around the table). Stems must be unique per report.
  void table(const ReportTable& table, const std::string& stem, const std::string& caption);
  void code(const std::string& text, const std::string& language = "");
  // Renders the figure to <run_dir>/<stem>.png and .pdf (or .svg), with <stem>.gp and .dat
  // beside them, links it and puts the caption under it: one line saying what it shows and how
  // many runs it summarises. When gnuplot fails the report says so in place of the image and
  // the run's other outputs are still written.
  void figure(const Figure& figure, const std::string& stem, const std::string& caption);
  // The date the figures' PDFs carry (UTC, as the log's start_time): the run's, not the
  // drawing's, so that a report drawn again from the same log is the same bytes.
  void setFigureDate(std::string utc_timestamp) { figure_date_ = std::move(utc_timestamp); }

  // A headline table for the terminal (`recurlab_analyze --summary`, which every driver runs
  // at the end of a run): its title and the table as Markdown. Not written into report.md.
  void terminalTable(const std::string& title, const ReportTable& table);
  const std::string& terminalSummary() const { return terminal_; }
  nlohmann::json& summary() { return summary_; }
  const std::string& markdown() const { return markdown_; }
  const std::vector<std::string>& files() const { return files_; }  // written so far
  const std::string& runDirectory() const { return run_dir_; }

  // Writes report.md and summary.json into the run folder.
  void write();

 private:
  std::string run_dir_, markdown_, terminal_, figure_date_;
  nlohmann::json summary_ = nlohmann::json::object();
  std::vector<std::string> files_;
};

}  // namespace recurlab::analysis
