// recurlab_bleu: corpus BLEU and chrF of detokenized hypothesis files against reference files,
// equal to sacreBLEU 2.6.0 (Post 2018, "A Call for Clarity in Reporting BLEU Scores"), with
// sacreBLEU's calling convention `recurlab_bleu REF... -i HYP...` or the older
// `recurlab_bleu HYP REF...`; paired significance tests between systems; and the Moses-
// tokenized lowercased BLEU of the Multi30k papers. No torch. docs/metrics.md shows examples.
#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "metrics/chrf.h"
#include "metrics/corpus_bleu.h"
#include "metrics/paired_bleu.h"
#include "metrics/paired_significance.h"
#include "metrics/unicode_text.h"

namespace po = boost::program_options;
using namespace recurlab::metrics;

namespace {

struct TextFile {
  std::string path;
  std::vector<std::string> lines;
};

// Lines split on '\n' only and rstripped (Python's whitespace), as sacreBLEU reads files, so a
// CRLF file scores as its LF twin.
TextFile readLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  TextFile file{path, {}};
  std::string line;
  while (std::getline(in, line)) {
    try {
      decodeUtf8(line);  // sacreBLEU reads UTF-8 and refuses anything else
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(path + " line " + std::to_string(file.lines.size() + 1) + ": " + e.what());
    }
    file.lines.push_back(rstripPythonWhitespace(line));
  }
  return file;
}

BleuSmoothing parseSmoothing(const std::string& name) {
  if (name == "exp") return BleuSmoothing::Exp;
  if (name == "floor") return BleuSmoothing::Floor;
  if (name == "add-k") return BleuSmoothing::AddK;
  if (name == "none") return BleuSmoothing::None;
  throw std::runtime_error("--smooth-method: '" + name + "'; expected exp, floor, add-k or none");
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// One metric as the paired tests and the printing need it.
struct Metric {
  std::string name;       // "BLEU", "chrF2", "chrF2++"
  std::string signature;  // without the paired test's fields
  std::function<std::vector<SegmentStatistics>(const std::vector<std::string>&)> segments;
  ScoreFromSums score;
  std::function<double(const std::vector<std::string>&)> corpus_score;
  std::function<std::string(const std::vector<std::string>&, int width)> line;  // sacreBLEU's text line
};

Metric bleuMetric(const BleuOptions& options, const std::vector<std::vector<std::string>>& refs) {
  Metric m;
  m.name = "BLEU";
  m.signature = bleuSignature(options, static_cast<int64_t>(refs.size()));
  m.segments = [options, &refs](const std::vector<std::string>& hyps) {
    std::vector<SegmentStatistics> out;
    for (const auto& s : bleuSegmentStatistics(hyps, refs, options)) out.push_back(bleuStatisticsAsNumbers(s));
    return out;
  };
  m.score = [options](const SegmentStatistics& sums) {
    return scoreFromStatistics(bleuStatisticsFromNumbers(sums), options).score;
  };
  m.corpus_score = [options, &refs](const std::vector<std::string>& hyps) {
    return corpusBleu(hyps, refs, options).score;
  };
  m.line = [options, &refs, signature = m.signature](const std::vector<std::string>& hyps, int width) {
    return formatBleu(corpusBleu(hyps, refs, options), signature, width);
  };
  return m;
}

Metric chrfMetric(const ChrfOptions& options, const std::vector<std::vector<std::string>>& refs) {
  Metric m;
  m.name = chrfName(options);
  m.signature = chrfSignature(options, static_cast<int64_t>(refs.size()));
  m.segments = [options, &refs](const std::vector<std::string>& hyps) {
    std::vector<SegmentStatistics> out;
    for (const auto& s : chrfSegmentStatistics(hyps, refs, options))
      out.emplace_back(s.begin(), s.end());
    return out;
  };
  m.score = [options](const SegmentStatistics& sums) {
    return chrfFromStatistics(ChrfStatistics(sums.begin(), sums.end()), options);
  };
  m.corpus_score = [options, &refs](const std::vector<std::string>& hyps) {
    return corpusChrf(hyps, refs, options).score;
  };
  m.line = [options, &refs, name = m.name, signature = m.signature](
               const std::vector<std::string>& hyps, int width) {
    return name + "|" + signature + " = " + fixed(corpusChrf(hyps, refs, options).score, width);
  };
  return m;
}

// The paired test's fields go after nrefs, as in sacreBLEU's signatures.
std::string withTestFields(const std::string& signature, const std::string& fields) {
  const auto bar = signature.find('|');
  return signature.substr(0, bar) + "|" + fields + signature.substr(bar);
}

constexpr const char* kUsage =
    "recurlab_bleu REF [REF ...] -i HYP [HYP ...] [options]   (sacreBLEU's order)\n"
    "recurlab_bleu HYP REF [REF ...] [options]\n"
    "Corpus BLEU (and chrF with -m bleu chrf) of detokenized hypotheses, one segment per line,\n"
    "against one or more reference files, identical to sacreBLEU 2.6.0: 13a tokenization, exp\n"
    "smoothing, mixed case by default. Prints sacreBLEU's text lines:\n"
    "  BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 16.3 66.7/20.0/...\n"
    "Several -i files: one score line per system, or with --paired-bs / --paired-ar a table\n"
    "with one row per system, the first file being the baseline.\n"
    "sacreBLEU's spellings -lc, -tok, -sv, -cc, -cw, -pbs, -par, -pbsn, -parn work too.\n"
    "Tokenized lowercased BLEU of the Multi30k papers (Moses normalization and tokenization,\n"
    "no smoothing): --tokenize moses --moses-lang de --lowercase --smooth-method none.\n"
    "Options";

// What the command line asks for, checked.
struct BleuCommand {
  std::vector<std::string> inputs, files;  // hypothesis files; reference files
  std::vector<std::string> metric_names;
  BleuOptions bleu;
  ChrfOptions chrf;
  int width = 1;
  bool score_only = false, paired_bs = false, paired_ar = false;
  int64_t paired_bs_n = 1000, paired_ar_n = 10000;
};

// The options --help lists (each bound to its place in `c` or in the strings given).
po::options_description visibleOptions(BleuCommand& c, std::string& smoothing,
                                       std::string& tokenize, std::string& moses_language,
                                       double& smooth_value) {
  po::options_description options(kUsage);
  options.add_options()("help,h", "this help")(
      "input,i", po::value(&c.inputs)->multitoken(),
      "hypothesis files (sacreBLEU's -i); the positional files are then all references")(
      "metrics,m", po::value(&c.metric_names)->multitoken(), "bleu and/or chrf (default bleu)")(
      "lowercase,l", "BLEU: lowercase hypotheses and references first (Python's str.lower(): "
                     "sacreBLEU's -lc)")(
      "smooth-method,s", po::value(&smoothing)->default_value("exp"),
      "BLEU: exp, floor, add-k or none")(
      "smooth-value", po::value(&smooth_value)->default_value(-1),
      "BLEU: floor's value (default 0.1) or add-k's k (default 1)")(
      "tokenize", po::value(&tokenize)->default_value("13a"),
      "BLEU: 13a, intl, char, zh, none (sacreBLEU's) or moses")(
      "moses-lang", po::value(&moses_language)->default_value("en"),
      "language of the moses tokenizer: de or en")(
      "effective-order", "BLEU: use the highest n-gram order with counts (sentence BLEU)")(
      "chrf-char-order", po::value(&c.chrf.char_order)->default_value(6), "chrF: character order")(
      "chrf-word-order", po::value(&c.chrf.word_order)->default_value(0),
      "chrF: word order (2 = chrF++)")(
      "chrf-beta", po::value(&c.chrf.beta)->default_value(2), "chrF: weight of recall")(
      "chrf-whitespace", "chrF: keep whitespace in character n-grams")(
      "chrf-lowercase", "chrF: lowercase first")(
      "chrf-eps-smoothing", "chrF: chrF++.py's epsilon smoothing instead of the effective order")(
      "paired-bs", "paired bootstrap resampling against the first -i file")(
      "paired-ar", "paired approximate randomization against the first -i file")(
      "paired-bs-n", po::value(&c.paired_bs_n)->default_value(1000), "bootstrap resamples")(
      "paired-ar-n", po::value(&c.paired_ar_n)->default_value(10000), "randomization trials")(
      "width,w", po::value(&c.width)->default_value(1), "decimals of the scores")(
      "score-only,b", "print the scores alone");
  return options;
}

// The files: without -i the first positional file is the hypothesis (recurlab_bleu HYP
// REF...). As sacreBLEU: in a paired test the baseline given again is dropped; any other file
// given twice is an error.
void checkFiles(BleuCommand& c) {
  if (c.inputs.empty() && !c.files.empty()) {
    c.inputs.push_back(c.files.front());
    c.files.erase(c.files.begin());
  }
  if (c.inputs.empty() || c.files.empty())
    throw std::runtime_error("expected reference files and hypotheses (recurlab_bleu REF... -i "
                             "HYP... or recurlab_bleu HYP REF...); --help says more");
  if (c.width < 0 || c.width > 10) throw std::runtime_error("--width: expected 0 to 10");
  if (c.paired_bs && c.paired_ar)
    throw std::runtime_error("--paired-bs and --paired-ar exclude each other");
  std::vector<std::string> distinct;
  for (const auto& path : c.inputs) {
    if (std::find(distinct.begin(), distinct.end(), path) == distinct.end())
      distinct.push_back(path);
    else if (!(c.paired_bs || c.paired_ar) || path != c.inputs.front())
      throw std::runtime_error(path + " is given twice as a hypothesis file");
  }
  c.inputs = distinct;
  if ((c.paired_bs || c.paired_ar) && c.inputs.size() < 2)
    throw std::runtime_error("a paired test needs at least two -i files (the baseline first)");
  if (c.paired_bs_n < 1 || c.paired_ar_n < 1)
    throw std::runtime_error("--paired-bs-n and --paired-ar-n: expected at least 1");
}

// Parses and checks the command line; nullopt after printing --help.
std::optional<BleuCommand> parseCommandLine(int argc, char** argv) {
  BleuCommand c;
  std::string smoothing = "exp", tokenize = "13a", moses_language = "en";
  double smooth_value = -1;
  const po::options_description options =
      visibleOptions(c, smoothing, tokenize, moses_language, smooth_value);
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>());
  // sacreBLEU's single-dash spellings, so that its command lines work as they are.
  hidden.add_options()("lc", "")("tok", po::value<std::string>())("sv", po::value<double>())(
      "cc", po::value<int>())("cw", po::value<int>())("pbs", "")("par", "")(
      "pbsn", po::value<int64_t>())("parn", po::value<int64_t>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("files", -1);
  po::variables_map vm;
  // Single-dash long names (-lc, -tok) as sacreBLEU spells them; no prefix guessing, which
  // would make -m or -s ambiguous.
  const int style = (po::command_line_style::unix_style & ~po::command_line_style::allow_guessing) |
                    po::command_line_style::allow_long_disguise;
  po::store(po::command_line_parser(argc, argv).options(all).positional(positional).style(style).run(),
            vm);
  po::notify(vm);
  if (vm.count("tok")) tokenize = vm["tok"].as<std::string>();
  if (vm.count("sv")) smooth_value = vm["sv"].as<double>();
  if (vm.count("cc")) c.chrf.char_order = vm["cc"].as<int>();
  if (vm.count("cw")) c.chrf.word_order = vm["cw"].as<int>();
  if (vm.count("pbsn")) c.paired_bs_n = vm["pbsn"].as<int64_t>();
  if (vm.count("parn")) c.paired_ar_n = vm["parn"].as<int64_t>();
  if (vm.count("help")) {
    std::cout << options << "\n";
    return std::nullopt;
  }
  if (vm.count("files")) c.files = vm["files"].as<std::vector<std::string>>();
  c.paired_bs = vm.count("paired-bs") + vm.count("pbs") > 0;
  c.paired_ar = vm.count("paired-ar") + vm.count("par") > 0;
  c.score_only = vm.count("score-only") > 0;
  checkFiles(c);

  c.bleu.lowercase = vm.count("lowercase") + vm.count("lc") > 0;
  c.bleu.smoothing = parseSmoothing(smoothing);
  c.bleu.smooth_value = smooth_value;
  c.bleu.effective_order = vm.count("effective-order") > 0;
  c.bleu.tokenizer = parseBleuTokenizer(tokenize);
  c.bleu.moses_language = moses_language;
  if (c.bleu.tokenizer == BleuTokenizer::Moses && !mosesTokenizerSupports(moses_language))
    throw std::runtime_error("--moses-lang: '" + moses_language + "'; expected de or en");
  c.chrf.whitespace = vm.count("chrf-whitespace") > 0;
  c.chrf.lowercase = vm.count("chrf-lowercase") > 0;
  c.chrf.eps_smoothing = vm.count("chrf-eps-smoothing") > 0;
  if (c.chrf.char_order < 0 || c.chrf.word_order < 0 || c.chrf.char_order + c.chrf.word_order < 1 ||
      c.chrf.beta < 1)
    throw std::runtime_error("--chrf-char-order/--chrf-word-order: expected >= 0, not both 0; "
                             "--chrf-beta: expected >= 1");
  if (c.metric_names.empty()) c.metric_names = {"bleu"};
  return c;
}

// The references, one list of lines per file, each as long as every system.
std::vector<std::vector<std::string>> readReferences(const std::vector<std::string>& files,
                                                     const std::vector<TextFile>& systems) {
  std::vector<std::vector<std::string>> references;
  for (const auto& path : files) {
    auto reference = readLines(path);
    for (const auto& system : systems)
      if (reference.lines.size() != system.lines.size())
        throw std::runtime_error(system.path + " has " + std::to_string(system.lines.size()) +
                                 " lines but " + path + " has " +
                                 std::to_string(reference.lines.size()) +
                                 ": one reference line per hypothesis line is needed");
    references.push_back(std::move(reference.lines));
  }
  for (const auto& system : systems)
    if (system.lines.empty()) throw std::runtime_error(system.path + " is empty: nothing to score");
  return references;
}

// One row per system: score, then (bootstrap) mean and 95% CI, then the p-value; then the
// test and each metric's signature.
void printPairedTest(const BleuCommand& c, const std::vector<TextFile>& systems,
                     const std::vector<Metric>& metrics) {
  const bool paired_bs = c.paired_bs;
  const int width = c.width;
  PairedTestOptions test;
  test.test = paired_bs ? PairedTest::BootstrapResampling : PairedTest::ApproximateRandomization;
  test.samples = paired_bs ? c.paired_bs_n : c.paired_ar_n;
  std::vector<std::vector<PairedResult>> results;  // [metric][system]
  for (const auto& metric : metrics) {
    std::vector<std::vector<SegmentStatistics>> statistics;
    for (const auto& system : systems) statistics.push_back(metric.segments(system.lines));
    results.push_back(runPairedTest(statistics, metric.score, test));
  }
  std::cout << "system";
  for (const auto& metric : metrics) {
    std::cout << "\t" << metric.name;
    if (paired_bs) std::cout << "\t" << metric.name << "_mean\t" << metric.name << "_ci95";
    std::cout << "\t" << metric.name << "_p";
  }
  std::cout << "\n";
  for (size_t s = 0; s < systems.size(); ++s) {
    std::cout << (s == 0 ? "Baseline: " : "") << systems[s].path;
    for (size_t m = 0; m < metrics.size(); ++m) {
      const auto& r = results[m][s];
      std::cout << "\t" << fixed(r.score, width);
      if (paired_bs) std::cout << "\t" << fixed(r.mean, width) << "\t" << fixed(r.ci, width);
      std::cout << "\t" << (r.has_p_value ? fixed(r.p_value, 4) + (r.p_value < 0.05 ? "*" : "") : "-");
    }
    std::cout << "\n";
  }
  const std::string fields = (paired_bs ? "bs:" + std::to_string(c.paired_bs_n)
                                        : "ar:" + std::to_string(c.paired_ar_n)) +
                             "|seed:" + std::to_string(test.seed);
  std::cout << "\nPaired " << (paired_bs ? "bootstrap resampling" : "approximate randomization")
            << " test with " << (paired_bs ? c.paired_bs_n : c.paired_ar_n)
            << (paired_bs ? " resamples" : " trials")
            << " against the baseline; * marks p < 0.05.\n";
  for (const auto& metric : metrics)
    std::cout << " - " << metric.name << " " << withTestFields(metric.signature, fields) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto command = parseCommandLine(argc, argv);
    if (!command) return 0;
    const BleuCommand& c = *command;
    std::vector<TextFile> systems;
    for (const auto& path : c.inputs) systems.push_back(readLines(path));
    const auto references = readReferences(c.files, systems);
    std::vector<Metric> metrics;
    for (const auto& name : c.metric_names) {
      if (name == "bleu") metrics.push_back(bleuMetric(c.bleu, references));
      else if (name == "chrf") metrics.push_back(chrfMetric(c.chrf, references));
      else throw std::runtime_error("--metrics: '" + name + "'; expected bleu or chrf");
    }
    if (c.paired_bs || c.paired_ar) {
      printPairedTest(c, systems, metrics);
      return 0;
    }
    for (const auto& system : systems) {
      for (const auto& metric : metrics) {
        if (systems.size() > 1) std::cout << system.path << "\t";
        if (c.score_only)
          std::cout << fixed(metric.corpus_score(system.lines), c.width) << "\n";
        else
          std::cout << metric.line(system.lines, c.width) << "\n";
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_bleu: error: " << e.what() << "\n";
    return 2;
  }
}
