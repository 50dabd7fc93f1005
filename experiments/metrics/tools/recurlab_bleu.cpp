// recurlab_bleu HYP REF [REF ...] [--lowercase]: corpus BLEU of a detokenized hypothesis file
// against reference files, equal to `sacrebleu REF -i HYP -f text` (sacreBLEU 2.6.0's
// defaults: 13a tokenization, exp smoothing, mixed case; -lc with --lowercase). No torch.
#include <boost/program_options.hpp>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "experiments/metrics/corpus_bleu.h"

namespace po = boost::program_options;
using namespace recurlab::metrics;

namespace {

// Lines split on '\n' only, as sacreBLEU reads files (newline="\n"); each is rstripped when
// scored, so a CRLF file scores as its LF twin.
std::vector<std::string> readLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

BleuSmoothing parseSmoothing(const std::string& name) {
  if (name == "exp") return BleuSmoothing::Exp;
  if (name == "floor") return BleuSmoothing::Floor;
  if (name == "add-k") return BleuSmoothing::AddK;
  if (name == "none") return BleuSmoothing::None;
  throw std::runtime_error("--smooth-method: '" + name + "'; expected exp, floor, add-k or none");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    po::options_description options(
        "recurlab_bleu HYP REF [REF ...] [options]\n"
        "Corpus BLEU of the detokenized hypotheses in HYP (one segment per line) against one\n"
        "or more reference files, identical to sacreBLEU 2.6.0's default corpus BLEU (Post\n"
        "2018): 13a tokenization, exp smoothing, mixed case. Prints sacreBLEU's text format:\n"
        "  BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 16.3 66.7/20.0/...\n"
        "Options");
    std::string smoothing = "exp";
    double smooth_value = -1;
    int width = 1;
    options.add_options()("help,h", "this help")(
        "lowercase,l", "lowercase hypotheses and references first (Python's str.lower(): "
                       "sacreBLEU's -lc)")(
        "smooth-method,s", po::value(&smoothing)->default_value("exp"),
        "exp, floor, add-k or none")(
        "smooth-value", po::value(&smooth_value)->default_value(-1),
        "floor's value (default 0.1) or add-k's k (default 1)")(
        "tokenize", po::value<std::string>()->default_value("13a"), "13a or none")(
        "effective-order", "use the highest n-gram order with counts (sentence BLEU)")(
        "width,w", po::value(&width)->default_value(1), "decimals of the score")(
        "score-only,b", "print the score alone");
    po::options_description hidden;
    hidden.add_options()("files", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(options).add(hidden);
    po::positional_options_description positional;
    positional.add("files", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << options << "\n";
      return 0;
    }
    const auto files =
        vm.count("files") ? vm["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
    if (files.size() < 2)
      throw std::runtime_error("expected a hypothesis file and at least one reference file "
                               "(recurlab_bleu HYP REF); --help says more");
    if (width < 0 || width > 10) throw std::runtime_error("--width: expected 0 to 10");
    BleuOptions bleu;
    bleu.lowercase = vm.count("lowercase") > 0;
    bleu.smoothing = parseSmoothing(smoothing);
    bleu.smooth_value = smooth_value;
    bleu.effective_order = vm.count("effective-order") > 0;
    const auto tokenize = vm["tokenize"].as<std::string>();
    if (tokenize != "13a" && tokenize != "none")
      throw std::runtime_error("--tokenize: '" + tokenize + "'; expected 13a or none");
    bleu.tokenize = tokenize == "13a";

    const auto hypotheses = readLines(files[0]);
    std::vector<std::vector<std::string>> references;
    for (size_t k = 1; k < files.size(); ++k) {
      references.push_back(readLines(files[k]));
      if (references.back().size() != hypotheses.size())
        throw std::runtime_error(files[0] + " has " + std::to_string(hypotheses.size()) +
                                 " lines but " + files[k] + " has " +
                                 std::to_string(references.back().size()) +
                                 ": one reference line per hypothesis line is needed");
    }
    const auto score = corpusBleu(hypotheses, references, bleu);
    if (vm.count("score-only")) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.*f", width, score.score);
      std::cout << buffer << "\n";
    } else {
      std::cout << formatBleu(score, bleuSignature(bleu, static_cast<int64_t>(files.size() - 1)),
                              width)
                << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_bleu: error: " << e.what() << "\n";
    return 2;
  }
}
