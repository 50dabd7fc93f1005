// recurlab_bleu as a user runs it (HYP REF [REF ...]): sacreBLEU's README example with two
// reference files gives sacreBLEU's line on stdout (nothing on stderr), --lowercase,
// --score-only and --width change what it says, and a reference file of another length is an
// error on stderr naming both files, with nothing on stdout.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::metrics {
namespace {

namespace fs = std::filesystem;

recurlab::testing::CommandOutput runBleu(const fs::path& scratch,
                                         const std::vector<std::string>& args) {
  return recurlab::testing::runCommand(recurlab::testing::siblingBinary("recurlab_bleu"), args,
                                       scratch.string());
}

// A failed run: a non-zero exit, the error on stderr, nothing on stdout.
void expectError(const recurlab::testing::CommandOutput& r, const std::string& message) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
}

std::string write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file.string();
}

TEST(RecurlabBleuCommandLine, ScoresTheSacreBleuReadmeExample) {
  ASSERT_TRUE(fs::exists(recurlab::testing::siblingBinary("recurlab_bleu")));
  recurlab::testing::TempRoot tmp("recurlab_bleu_cli");
  const auto hyp =
      write(tmp.root / "hyp.txt",
            "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n");
  const auto ref1 = write(tmp.root / "ref1.txt",
                          "The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n");
  const auto ref2 =
      write(tmp.root / "ref2.txt",
            "The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n");
  // sacreBLEU 2.x: BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17
  // ref_len = 18).
  const auto both = runBleu(tmp.root, {hyp, ref1, ref2});
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(both.err, "");
  EXPECT_EQ(both.out,
            "BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 48.5 "
            "82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n");
  const auto score = runBleu(tmp.root, {hyp, ref1, ref2, "--score-only", "--width", "2"});
  EXPECT_EQ(score.exit_code, 0) << score.err;
  EXPECT_EQ(score.out, "48.53\n");
}

TEST(RecurlabBleuCommandLine, LowercaseAndErrors) {
  recurlab::testing::TempRoot tmp("recurlab_bleu_cli_lc");
  const auto hyp = write(tmp.root / "hyp.txt", "THE CAT SAT ON THE MAT\n");
  const auto ref = write(tmp.root / "ref.txt", "the cat sat on the mat\n");
  const auto mixed = runBleu(tmp.root, {hyp, ref, "-b"});
  EXPECT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_EQ(mixed.out, "0.0\n");
  const auto lower = runBleu(tmp.root, {hyp, ref, "--lowercase"});
  EXPECT_EQ(lower.exit_code, 0) << lower.err;
  EXPECT_EQ(lower.out.rfind(
                "BLEU|nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0 = 100.0 ", 0),
            0u)
      << lower.out;
  const auto two_lines = write(tmp.root / "two.txt", "a\nb\n");
  expectError(runBleu(tmp.root, {hyp, two_lines}),
              hyp + " has 1 lines but " + two_lines + " has 2");
  expectError(runBleu(tmp.root, {hyp}), "expected reference files and hypotheses");
  const auto none = (tmp.root / "none.txt").string();
  expectError(runBleu(tmp.root, {hyp, none}), "cannot open " + none);
}

}  // namespace
}  // namespace recurlab::metrics
