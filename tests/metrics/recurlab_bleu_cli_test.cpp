// The recurlab_bleu command as a child process: both calling conventions, several references,
// several metrics, paired tests, and the errors (line counts, unknown tokenizer, empty files).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

using recurlab::testing::runChild;
using recurlab::testing::siblingBinary;
using recurlab::testing::TempRoot;

namespace {

struct CommandResult {
  int exit_code;
  std::string output;  // stdout and stderr
};

class RecurlabBleuCommand : public ::testing::Test {
 protected:
  TempRoot temp{"recurlab_bleu_cli"};

  std::string file(const std::string& name, const std::string& text) {
    const auto path = (temp.root / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  CommandResult bleuCommand(const std::vector<std::string>& args) {
    const auto out = (temp.root / "output.txt").string();
    std::filesystem::remove(out);
    const auto result = runChild(siblingBinary("recurlab_bleu"), args, "", -1, out);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    return {result.exit_code, text.str()};
  }
};

const char* kE2Line =
    "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 16.3 66.7/20.0/12.5/8.3 "
    "(BP = 0.846 ratio = 0.857 hyp_len = 6 ref_len = 7)\n";

}  // namespace

TEST_F(RecurlabBleuCommand, BothCallingConventionsGiveSacreBleusLine) {
  const auto hyp = file("hyp.txt", "A man rides a bike.\n");
  const auto ref = file("ref.txt", "A man is riding a bicycle.\n");
  const auto sacre = bleuCommand({ref, "-i", hyp});
  EXPECT_EQ(sacre.exit_code, 0) << sacre.output;
  EXPECT_EQ(sacre.output, kE2Line);
  const auto legacy = bleuCommand({hyp, ref});
  EXPECT_EQ(legacy.exit_code, 0) << legacy.output;
  EXPECT_EQ(legacy.output, kE2Line);
  EXPECT_EQ(bleuCommand({ref, "-i", hyp, "-b", "-w", "2"}).output, "16.34\n");
}

TEST_F(RecurlabBleuCommand, SeveralReferencesAndMetrics) {
  const auto hyp = file("hyp.txt", "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n");
  const auto ref_a = file("a.txt", "The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n");
  const auto ref_b = file("b.txt", "The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n");
  const auto r = bleuCommand({ref_a, ref_b, "-i", hyp, "-m", "bleu", "chrf", "-w", "4"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 48.5308 "),
            std::string::npos) << r.output;  // sacreBLEU's test expectation, 48.530827
  EXPECT_NE(r.output.find("\nchrF2|nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0 = "),
            std::string::npos) << r.output;
  const auto plus = bleuCommand({ref_a, ref_b, "-i", hyp, "-m", "chrf", "--chrf-word-order", "2"});
  EXPECT_EQ(plus.output.rfind("chrF2++|nrefs:2|case:mixed|eff:yes|nc:6|nw:2|", 0), 0u) << plus.output;
}

TEST_F(RecurlabBleuCommand, TokenizedLowercasedBleu) {
  const auto hyp = file("hyp.txt", "Ein HUND l\xC3\xA4uft \xC3\xBC" "ber die \xE2\x80\x9Egr\xC3\xBCne\xE2\x80\x9C Wiese.\n");
  const auto ref = file("ref.txt", "Ein Hund l\xC3\xA4uft \xC3\xBC" "ber eine \xE2\x80\x9Egr\xC3\xBCne\xE2\x80\x9C Wiese.\n");
  const auto r = bleuCommand({ref, "-i", hyp, "--tokenize", "moses", "--moses-lang", "de", "--lowercase",
                      "--smooth-method", "none", "-w", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // 100 * (3/16)^(1/4) = 65.80 (corpus_bleu_test's hand computation).
  EXPECT_EQ(r.output.rfind("BLEU|nrefs:1|case:lc|eff:no|tok:moses-de|smooth:none|version:2.6.0 = 65.80 "
                           "90.0/77.8/62.5/42.9 (BP = 1.000 ratio = 1.000 hyp_len = 10 ref_len = 10)", 0),
            0u) << r.output;
}

TEST_F(RecurlabBleuCommand, PairedTestsPrintOneRowPerSystem) {
  const auto ref = file("ref.txt", "the cat sat on a mat\nA man is riding a bicycle.\n");
  const auto base = file("base.txt", "the cat sat on the mat\nA man rides a bike.\n");
  const auto other = file("other.txt", "the cat sat on a mat\nA man rides a bicycle.\n");
  const auto bs = bleuCommand({ref, "-i", base, other, "--paired-bs", "--paired-bs-n", "100"});
  EXPECT_EQ(bs.exit_code, 0) << bs.output;
  EXPECT_EQ(bs.output.rfind("system\tBLEU\tBLEU_mean\tBLEU_ci95\tBLEU_p\nBaseline: " + base + "\t30.8\t", 0), 0u)
      << bs.output;
  EXPECT_NE(bs.output.find("\t-\n" + other + "\t63.7\t"), std::string::npos) << bs.output;
  EXPECT_NE(bs.output.find(" - BLEU nrefs:1|bs:100|seed:12345|case:mixed|"), std::string::npos) << bs.output;
  const auto ar = bleuCommand({ref, "-i", base, other, "--paired-ar", "--paired-ar-n", "50", "-m", "bleu", "chrf"});
  EXPECT_EQ(ar.exit_code, 0) << ar.output;
  EXPECT_EQ(ar.output.rfind("system\tBLEU\tBLEU_p\tchrF2\tchrF2_p\n", 0), 0u) << ar.output;
  EXPECT_NE(ar.output.find(" - chrF2 nrefs:1|ar:50|seed:12345|case:mixed|"), std::string::npos) << ar.output;
  // The baseline given again is dropped, as sacreBLEU does; then one system is too few.
  const auto alone = bleuCommand({ref, "-i", base, base, "--paired-ar"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.output.find("at least two"), std::string::npos) << alone.output;
}

TEST_F(RecurlabBleuCommand, LineCountMismatchIsOneLineNamingFilesAndCounts) {
  const auto hyp = file("hyp.txt", "a b c d\ne f g h\n");
  const auto ref = file("ref.txt", "a b c d\n");
  for (const auto& args : {std::vector<std::string>{ref, "-i", hyp}, std::vector<std::string>{hyp, ref}}) {
    const auto r = bleuCommand(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.output, "recurlab_bleu: error: " + hyp + " has 2 lines but " + ref +
                            " has 1: one reference line per hypothesis line is needed\n");
  }
}

TEST_F(RecurlabBleuCommand, UnknownTokenizerEmptyAndMissingFilesAreErrors) {
  const auto hyp = file("hyp.txt", "a b c d\n");
  const auto ref = file("ref.txt", "a b c d\n");
  const auto unknown = bleuCommand({ref, "-i", hyp, "--tokenize", "ja-mecab"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.output, "recurlab_bleu: error: unknown tokenizer 'ja-mecab'; expected 13a, "
                            "intl, char, zh, none or moses\n");
  const auto empty = file("empty.txt", "");
  const auto both_empty = bleuCommand({empty, "-i", empty});
  EXPECT_EQ(both_empty.exit_code, 2);
  EXPECT_EQ(both_empty.output, "recurlab_bleu: error: " + empty + " is empty: nothing to score\n");
  const auto missing = bleuCommand({ref, "-i", (temp.root / "nope.txt").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("cannot open"), std::string::npos) << missing.output;
  const auto no_refs = bleuCommand({"-i", hyp});
  EXPECT_EQ(no_refs.exit_code, 2);
  EXPECT_NE(no_refs.output.find("expected reference files"), std::string::npos) << no_refs.output;
}

TEST_F(RecurlabBleuCommand, SacreBleuSpellingsAndInvalidUtf8) {
  const auto hyp = file("hyp.txt", "A man rides a bike.\n");
  const auto ref = file("ref.txt", "A man is riding a bicycle.\n");
  const auto sacre = bleuCommand({ref, "-i", hyp, "-lc", "-tok", "none", "-m", "bleu", "chrf", "-cw", "2"});
  EXPECT_EQ(sacre.exit_code, 0) << sacre.output;
  EXPECT_EQ(sacre.output, bleuCommand({ref, "-i", hyp, "--lowercase", "--tokenize", "none", "--metrics",
                                       "bleu", "chrf", "--chrf-word-order", "2"}).output);
  EXPECT_EQ(sacre.output.rfind("BLEU|nrefs:1|case:lc|eff:no|tok:none|smooth:exp|version:2.6.0 = 19.4 ", 0), 0u)
      << sacre.output;
  EXPECT_NE(sacre.output.find("\nchrF2++|"), std::string::npos) << sacre.output;
  const auto bad = file("bad.txt", "ab\xFF\n");
  const auto r = bleuCommand({ref, "-i", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "recurlab_bleu: error: " + bad + " line 1: invalid UTF-8 at byte 2\n");
}
