#pragma once
// Runs a program as a child process (fork + exec), for the SIGKILL resume tests: optionally
// with RECURLAB_KILL_AT set (common/runtime/kill_point.h), optionally killed with SIGKILL
// by this process after a delay (with the child's own children: it runs in its own process
// group, which the kill hits as a whole).
#include <string>
#include <utility>
#include <vector>

namespace recurlab::testing {

struct ChildResult {
  bool killed = false;  // ended by SIGKILL
  int exit_code = -1;   // when it exited
};

// `kill_at`: "" or "<point>:<n>"; `kill_after_ms` < 0: never killed by the parent. The
// child's stdout and stderr go to `output_file` (appended).
ChildResult runChild(const std::string& program, const std::vector<std::string>& args,
                     const std::string& kill_at, int kill_after_ms, const std::string& output_file);

// Starts the program in the background (its own process group), with `environment` set in the
// child, stdout and stderr appended to `output_file`.
int startChild(const std::string& program, const std::vector<std::string>& args,
               const std::vector<std::pair<std::string, std::string>>& environment,
               const std::string& output_file);
// Waits up to `timeout_ms` for a child of startChild; `finished` false = still running then.
ChildResult waitChild(int pid, int timeout_ms, bool& finished);

// A command-line tool's run, its stdout and stderr kept apart (a score a script reads must be on
// stdout, messages on stderr). `scratch` is a folder for the two files.
struct CommandOutput {
  int exit_code = -1;
  std::string out, err;
};
CommandOutput runCommand(const std::string& program, const std::vector<std::string>& args,
                         const std::string& scratch);

// build/<name>: the binaries sit beside the test binary.
std::string siblingBinary(const std::string& name);

}  // namespace recurlab::testing
