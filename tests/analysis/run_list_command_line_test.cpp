// The analysis tools' command line: runs are the positional arguments, --help prints the
// options, and a bad option or a call without runs is one line naming the tool, then the
// options, exit status 2 (unless an option that needs no run is given).
#include "analysis/run_list_command_line.h"

#include <gtest/gtest.h>

#include <boost/program_options.hpp>

#include <sstream>

namespace recurlab::analysis {
namespace {

namespace po = boost::program_options;

struct Parsed {
  RunListCommandLine cl;
  std::string out, err;
};

Parsed parse(const std::vector<const char*>& args) {
  std::vector<const char*> argv = {"recurlab_tool"};
  argv.insert(argv.end(), args.begin(), args.end());
  po::options_description options("recurlab_tool RUN...\nOptions");
  options.add_options()("help,h", "show this help")("list", "list something")(
      "out", po::value<std::string>()->default_value("here"), "output folder");
  std::ostringstream out, err;
  Parsed p;
  p.cl = parseRunListCommandLine(static_cast<int>(argv.size()), argv.data(), options,
                                 {"recurlab_tool", "run folders", "give at least one run", {"list"}},
                                 out, err);
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(RunListCommandLine, RunsAreThePositionalArgumentsBesideTheToolsOptions) {
  const auto p = parse({"a", "--out", "there", "b"});
  EXPECT_FALSE(p.cl.exit_status);
  EXPECT_EQ(p.cl.runs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.cl.options["out"].as<std::string>(), "there");
  EXPECT_EQ(p.out + p.err, "");
}

TEST(RunListCommandLine, HelpPrintsTheOptionsAndEndsWithStatusZero) {
  const auto p = parse({"--help"});
  ASSERT_TRUE(p.cl.exit_status);
  EXPECT_EQ(*p.cl.exit_status, 0);
  EXPECT_NE(p.out.find("--out arg (=here)"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("run folders"), std::string::npos) << p.out;
  EXPECT_EQ(p.err, "");
}

TEST(RunListCommandLine, ABadOptionOrNoRunIsOneLineNamingTheToolThenTheOptions) {
  auto p = parse({"--nope", "a"});
  ASSERT_TRUE(p.cl.exit_status);
  EXPECT_EQ(*p.cl.exit_status, 2);
  EXPECT_EQ(p.err.rfind("recurlab_tool: unrecognised option '--nope'\n", 0), 0u) << p.err;
  EXPECT_NE(p.err.find("--out arg"), std::string::npos) << p.err;
  p = parse({"--out", "x"});
  ASSERT_TRUE(p.cl.exit_status);
  EXPECT_EQ(*p.cl.exit_status, 2);
  EXPECT_EQ(p.err.rfind("recurlab_tool: give at least one run\n", 0), 0u) << p.err;
  p = parse({"--list"});  // needs no run
  EXPECT_FALSE(p.cl.exit_status) << p.err;
  EXPECT_TRUE(p.cl.runs.empty());
}

}  // namespace
}  // namespace recurlab::analysis
