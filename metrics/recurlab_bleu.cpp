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

}  // namespace

int main(int argc, char** argv) {
  try {
    po::options_description options(kUsage);
    std::string smoothing = "exp", tokenize = "13a", moses_language = "en";
    std::vector<std::string> metric_names, inputs;
    double smooth_value = -1;
    int width = 1;
    int64_t paired_bs_n = 1000, paired_ar_n = 10000;
    ChrfOptions chrf;
    options.add_options()("help,h", "this help")(
        "input,i", po::value(&inputs)->multitoken(),
        "hypothesis files (sacreBLEU's -i); the positional files are then all references")(
        "metrics,m", po::value(&metric_names)->multitoken(), "bleu and/or chrf (default bleu)")(
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
        "chrf-char-order", po::value(&chrf.char_order)->default_value(6), "chrF: character order")(
        "chrf-word-order", po::value(&chrf.word_order)->default_value(0),
        "chrF: word order (2 = chrF++)")(
        "chrf-beta", po::value(&chrf.beta)->default_value(2), "chrF: weight of recall")(
        "chrf-whitespace", "chrF: keep whitespace in character n-grams")(
        "chrf-lowercase", "chrF: lowercase first")(
        "chrf-eps-smoothing", "chrF: chrF++.py's epsilon smoothing instead of the effective order")(
        "paired-bs", "paired bootstrap resampling against the first -i file")(
        "paired-ar", "paired approximate randomization against the first -i file")(
        "paired-bs-n", po::value(&paired_bs_n)->default_value(1000), "bootstrap resamples")(
        "paired-ar-n", po::value(&paired_ar_n)->default_value(10000), "randomization trials")(
        "width,w", po::value(&width)->default_value(1), "decimals of the scores")(
        "score-only,b", "print the scores alone");
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
    if (vm.count("cc")) chrf.char_order = vm["cc"].as<int>();
    if (vm.count("cw")) chrf.word_order = vm["cw"].as<int>();
    if (vm.count("pbsn")) paired_bs_n = vm["pbsn"].as<int64_t>();
    if (vm.count("parn")) paired_ar_n = vm["parn"].as<int64_t>();
    if (vm.count("help")) {
      std::cout << options << "\n";
      return 0;
    }
    auto files =
        vm.count("files") ? vm["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
    // Without -i the first file is the hypothesis (recurlab_bleu HYP REF...).
    if (inputs.empty() && !files.empty()) {
      inputs.push_back(files.front());
      files.erase(files.begin());
    }
    if (inputs.empty() || files.empty())
      throw std::runtime_error("expected reference files and hypotheses (recurlab_bleu REF... -i "
                               "HYP... or recurlab_bleu HYP REF...); --help says more");
    if (width < 0 || width > 10) throw std::runtime_error("--width: expected 0 to 10");
    const bool paired_bs = vm.count("paired-bs") + vm.count("pbs") > 0,
               paired_ar = vm.count("paired-ar") + vm.count("par") > 0;
    if (paired_bs && paired_ar) throw std::runtime_error("--paired-bs and --paired-ar exclude each other");
    // As sacreBLEU: in a paired test the baseline given again is dropped; any other file
    // given twice is an error.
    {
      std::vector<std::string> distinct;
      for (const auto& path : inputs) {
        if (std::find(distinct.begin(), distinct.end(), path) == distinct.end())
          distinct.push_back(path);
        else if (!(paired_bs || paired_ar) || path != inputs.front())
          throw std::runtime_error(path + " is given twice as a hypothesis file");
      }
      inputs = distinct;
    }
    if ((paired_bs || paired_ar) && inputs.size() < 2)
      throw std::runtime_error("a paired test needs at least two -i files (the baseline first)");
    if (paired_bs_n < 1 || paired_ar_n < 1)
      throw std::runtime_error("--paired-bs-n and --paired-ar-n: expected at least 1");

    BleuOptions bleu;
    bleu.lowercase = vm.count("lowercase") + vm.count("lc") > 0;
    bleu.smoothing = parseSmoothing(smoothing);
    bleu.smooth_value = smooth_value;
    bleu.effective_order = vm.count("effective-order") > 0;
    bleu.tokenizer = parseBleuTokenizer(tokenize);
    bleu.moses_language = moses_language;
    if (bleu.tokenizer == BleuTokenizer::Moses && !mosesTokenizerSupports(moses_language))
      throw std::runtime_error("--moses-lang: '" + moses_language + "'; expected de or en");
    chrf.whitespace = vm.count("chrf-whitespace") > 0;
    chrf.lowercase = vm.count("chrf-lowercase") > 0;
    chrf.eps_smoothing = vm.count("chrf-eps-smoothing") > 0;
    if (chrf.char_order < 0 || chrf.word_order < 0 || chrf.char_order + chrf.word_order < 1 ||
        chrf.beta < 1)
      throw std::runtime_error("--chrf-char-order/--chrf-word-order: expected >= 0, not both 0; "
                               "--chrf-beta: expected >= 1");
    if (metric_names.empty()) metric_names = {"bleu"};

    std::vector<TextFile> systems;
    for (const auto& path : inputs) systems.push_back(readLines(path));
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

    std::vector<Metric> metrics;
    for (const auto& name : metric_names) {
      if (name == "bleu") metrics.push_back(bleuMetric(bleu, references));
      else if (name == "chrf") metrics.push_back(chrfMetric(chrf, references));
      else throw std::runtime_error("--metrics: '" + name + "'; expected bleu or chrf");
    }

    if (!paired_bs && !paired_ar) {
      for (const auto& system : systems) {
        for (const auto& metric : metrics) {
          if (systems.size() > 1) std::cout << system.path << "\t";
          if (vm.count("score-only"))
            std::cout << fixed(metric.corpus_score(system.lines), width) << "\n";
          else
            std::cout << metric.line(system.lines, width) << "\n";
        }
      }
      return 0;
    }

    PairedTestOptions test;
    test.test = paired_bs ? PairedTest::BootstrapResampling : PairedTest::ApproximateRandomization;
    test.samples = paired_bs ? paired_bs_n : paired_ar_n;
    std::vector<std::vector<PairedResult>> results;  // [metric][system]
    for (const auto& metric : metrics) {
      std::vector<std::vector<SegmentStatistics>> statistics;
      for (const auto& system : systems) statistics.push_back(metric.segments(system.lines));
      results.push_back(runPairedTest(statistics, metric.score, test));
    }
    // One row per system: score, then (bootstrap) mean and 95% CI, then the p-value.
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
    const std::string fields = (paired_bs ? "bs:" + std::to_string(paired_bs_n)
                                          : "ar:" + std::to_string(paired_ar_n)) +
                               "|seed:" + std::to_string(test.seed);
    std::cout << "\nPaired " << (paired_bs ? "bootstrap resampling" : "approximate randomization")
              << " test with " << (paired_bs ? paired_bs_n : paired_ar_n)
              << (paired_bs ? " resamples" : " trials")
              << " against the baseline; * marks p < 0.05.\n";
    for (const auto& metric : metrics)
      std::cout << " - " << metric.name << " " << withTestFields(metric.signature, fields) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_bleu: error: " << e.what() << "\n";
    return 2;
  }
}
