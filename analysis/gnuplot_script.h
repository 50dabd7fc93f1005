#pragma once
// A Figure as a gnuplot script plus its data file, in the house style (figure_style.h). The
// script is self-contained: run in the folder that holds <stem>.dat it writes <stem>.<ext> for
// each output format, so a researcher can restyle a figure without rerunning anything.
#include <string>
#include <vector>

#include "analysis/figure.h"

namespace recurlab::analysis {

struct OutputFormat {
  std::string extension;  // "png", "pdf", "svg"
  std::string terminal;   // "pngcairo", "png", "pdfcairo", "svg"
};

struct GnuplotScript {
  std::string script;  // <stem>.gp
  std::string data;    // <stem>.dat: one block per drawn series, read with "index k"
};

// Throws std::invalid_argument when the figure has nothing to draw, or a panel mixes kinds or
// has mismatched lengths (naming the panel and the series).
GnuplotScript gnuplotScript(const Figure& figure, const std::string& stem,
                            const std::vector<OutputFormat>& formats);

}  // namespace recurlab::analysis
