#pragma once
// Writes a figure into a run folder: <stem>.gp and <stem>.dat (the script and its numbers), then
// runs gnuplot there to draw <stem>.png and <stem>.pdf (<stem>.svg when gnuplot has no pdfcairo).
#include <string>
#include <vector>

#include "analysis/figure.h"
#include "analysis/gnuplot_script.h"

namespace recurlab::analysis {

// The gnuplot command: $RECURLAB_GNUPLOT when set (tests point it at a missing program), else
// "gnuplot".
std::string gnuplotCommand();

// What this gnuplot can write: a PNG terminal (pngcairo, else png) and a vector one (pdfcairo,
// else svg). Empty when gnuplot cannot be run. Probed once per command.
std::vector<OutputFormat> figureFormats();

struct RenderedFigure {
  std::vector<std::string> files;  // .gp, .dat, then the images
  std::string messages;            // what gnuplot printed (warnings), empty when silent
};

// Throws std::runtime_error naming the figure's file when gnuplot is missing (the script and data
// are written all the same), fails, or writes an empty image; std::invalid_argument when the
// figure has nothing to draw. A `pdf_date` (UTC, "2026-11-24T19:59:37Z") replaces the time cairo
// stamps into the PDF, so that drawing a figure again from the same log gives the same bytes.
RenderedFigure renderFigure(const Figure& figure, const std::string& directory,
                            const std::string& stem, const std::string& pdf_date = "");

// Rewrites the 14 digits of the PDF's /CreationDate (D:YYYYMMDDHHMMSS...) in place (the same
// length, so no offset in the file moves) from a UTC timestamp "YYYY-MM-DDTHH:MM:SS...". Returns
// false, changing nothing, when the file has no such date or the timestamp is not of that form.
bool stampPdfCreationDate(const std::string& pdf, const std::string& utc_timestamp);

}  // namespace recurlab::analysis
