#include "analysis/figure_renderer.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

namespace recurlab::analysis {

namespace fs = std::filesystem;

namespace {

// POSIX shell single quotes.
std::string shellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool terminalWorks(const std::string& gnuplot, const std::string& terminal) {
  const std::string cmd = shellQuoted(gnuplot) + " -e " + shellQuoted("set terminal " + terminal) +
                          " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// Runs a shell command; returns its exit status and appends its output (stdout and stderr).
int runCapturing(const std::string& cmd, std::string& output) {
  FILE* pipe = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[512];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << text;
  if (!out) throw std::runtime_error("error writing " + path);
}

}  // namespace

std::string gnuplotCommand() {
  const char* env = std::getenv("RECURLAB_GNUPLOT");
  return env && *env ? env : "gnuplot";
}

std::vector<OutputFormat> figureFormats() {
  static std::mutex mutex;
  static std::map<std::string, std::vector<OutputFormat>> probed;
  const std::string gnuplot = gnuplotCommand();
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = probed.find(gnuplot);
  if (it != probed.end()) return it->second;
  std::vector<OutputFormat> formats;
  if (terminalWorks(gnuplot, "pngcairo")) formats.push_back({"png", "pngcairo"});
  else if (terminalWorks(gnuplot, "png")) formats.push_back({"png", "png"});
  if (!formats.empty()) {
    if (terminalWorks(gnuplot, "pdfcairo")) formats.push_back({"pdf", "pdfcairo"});
    else formats.push_back({"svg", "svg"});  // every gnuplot has svg
  }
  probed.emplace(gnuplot, formats);
  return formats;
}

bool stampPdfCreationDate(const std::string& pdf, const std::string& utc_timestamp) {
  std::string digits;
  for (char c : utc_timestamp.substr(0, 19))
    if (c >= '0' && c <= '9') digits += c;
  if (digits.size() != 14) return false;
  std::string bytes;
  {
    std::ifstream in(pdf, std::ios::binary);
    if (!in) return false;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string key = "/CreationDate (D:";
  const auto at = bytes.find(key);
  if (at == std::string::npos || at + key.size() + 14 > bytes.size()) return false;
  const auto first = at + key.size();
  for (size_t i = 0; i < 14; ++i)
    if (bytes[first + i] < '0' || bytes[first + i] > '9') return false;
  bytes.replace(first, 14, digits);
  std::ofstream out(pdf, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("error writing " + pdf);
  return true;
}

RenderedFigure renderFigure(const Figure& figure, const std::string& directory,
                            const std::string& stem, const std::string& pdf_date) {
  const fs::path dir(directory);
  const std::string png = (dir / (stem + ".png")).string();
  const auto formats = figureFormats();
  // Without gnuplot the script and its data are still written (for a machine that has it).
  const GnuplotScript gs = gnuplotScript(
      figure, stem, formats.empty() ? std::vector<OutputFormat>{{"png", "pngcairo"}, {"pdf", "pdfcairo"}} : formats);
  RenderedFigure out;
  const std::string script = (dir / (stem + ".gp")).string(), data = (dir / (stem + ".dat")).string();
  writeFile(script, gs.script);
  writeFile(data, gs.data);
  out.files = {script, data};
  if (formats.empty())
    throw std::runtime_error("figure " + png + ": gnuplot ('" + gnuplotCommand() +
                             "') cannot be run; install gnuplot-nox (scripts/install-deps.sh). "
                             "Its script " + script + " is written");
  for (const auto& f : formats) fs::remove(dir / (stem + "." + f.extension));
  const std::string cmd = "cd " + shellQuoted(dir.string()) + " && " +
                          shellQuoted(gnuplotCommand()) + " " + shellQuoted(stem + ".gp");
  const int status = runCapturing(cmd, out.messages);
  if (status != 0)
    throw std::runtime_error("figure " + png + ": gnuplot failed on " + script + " (exit " +
                             std::to_string(status) + "): " + out.messages);
  for (const auto& f : formats) {
    const fs::path image = dir / (stem + "." + f.extension);
    std::error_code ec;
    if (!fs::exists(image) || fs::file_size(image, ec) == 0)
      throw std::runtime_error("figure " + image.string() + ": gnuplot wrote no image from " +
                               script + (out.messages.empty() ? "" : ": " + out.messages));
    if (f.extension == "pdf" && !pdf_date.empty()) stampPdfCreationDate(image.string(), pdf_date);
    out.files.push_back(image.string());
  }
  return out;
}

}  // namespace recurlab::analysis
