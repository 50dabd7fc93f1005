#include "tests/support/resume_trace.h"

#include <signal.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "tests/support/file_text.h"

namespace recurlab::testing {
namespace {

// The trainer's lines (experiments/training/trainer.cpp), each as (unit, position).
const std::regex kCheckpointLine(R"(^checkpoint: (.+) at (epoch \d+ batch \d+ step \d+)$)");
const std::regex kResumeLine(R"(^resume: (.+) from (epoch \d+ batch \d+ step \d+)\b)");

// (unit, position, is_resume) for every checkpoint and resume line of `output`, in order.
struct Announcement {
  std::string unit, position;
  bool resume = false;
};
std::vector<Announcement> announcementsOf(const std::string& output) {
  std::vector<Announcement> found;
  std::string line;
  for (std::istringstream in(output); std::getline(in, line);) {
    if (const auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
    std::smatch m;
    if (std::regex_search(line, m, kCheckpointLine)) found.push_back({m[1], m[2], false});
    else if (std::regex_search(line, m, kResumeLine)) found.push_back({m[1], m[2], true});
  }
  return found;
}

// The units whose restart the run folder announced ("resume: <group> was cut off mid-way and
// has no checkpoint ...: it trains again from the start"): right only for a unit never
// checkpointed.
std::vector<std::string> restartedUnitsOf(const std::string& output) {
  static const std::regex restart(
      R"(^resume: (.+) was cut off mid-way and has no checkpoint .*trains again from the start)");
  std::vector<std::string> units;
  std::string line;
  for (std::istringstream in(output); std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, restart)) units.push_back(m[1]);
  }
  return units;
}

}  // namespace

ResumeTrace::ResumeTrace(std::string output_file) : output_file_(std::move(output_file)) {}

ChildResult ResumeTrace::run(const std::string& program, const std::vector<std::string>& args,
                             const std::string& kill_at, int kill_after_ms) {
  const size_t before = fileText(output_file_).size();
  const ChildResult r = runChild(program, args, kill_at, kill_after_ms, output_file_);
  record(before, r,
         (kill_at.empty() ? "" : " (kill at " + kill_at + ")") +
             (kill_after_ms >= 0 ? " (kill after " + std::to_string(kill_after_ms) + " ms)" : ""),
         kill_after_ms >= 0);
  return r;
}

// Announced checkpoints in `text` from byte `from`.
static int countCheckpoints(const std::string& text, size_t from) {
  int n = 0;
  for (size_t at = text.find("\ncheckpoint: ", from); at != std::string::npos;
       at = text.find("\ncheckpoint: ", at + 1))
    ++n;
  return n;
}

int ResumeTrace::checkpointCountOf(size_t run) const {
  return countCheckpoints("\n" + outputs_.at(run), 0);
}

ChildResult ResumeTrace::runKilledWhileTraining(const std::string& program,
                                                const std::vector<std::string>& args,
                                                int checkpoints, int delay_ms) {
  const size_t before = fileText(output_file_).size();
  const int pid = startChild(program, args, {}, output_file_);
  bool finished = false;
  ChildResult r;
  // Polled every 2 ms: the condition is the run's n-th checkpoint, at most 5 minutes away.
  for (int waited = 0; !finished && waited < 300000; waited += 2) {
    r = waitChild(pid, 2, finished);
    if (countCheckpoints(fileText(output_file_), before) >= checkpoints) break;
  }
  if (!finished) r = waitChild(pid, delay_ms, finished);
  if (!finished) {
    ::kill(-pid, SIGKILL);
    r = waitChild(pid, 60000, finished);
  }
  record(before, r,
         " (killed " + std::to_string(delay_ms) + " ms after checkpoint " +
             std::to_string(checkpoints) + ")",
         true);
  return r;
}

void ResumeTrace::record(size_t before, const ChildResult& r, const std::string& label,
                         bool from_outside) {
  outputs_.push_back(fileText(output_file_).substr(before));
  killed_from_outside_.push_back(r.killed && from_outside);
  labels_.push_back("run " + std::to_string(outputs_.size() - 1) + label +
                    (r.killed ? ", killed" : ", exit " + std::to_string(r.exit_code)));
}

void ResumeTrace::clear() {
  outputs_.clear();
  labels_.clear();
  killed_from_outside_.clear();
}

std::string ResumeTrace::wentOnFrom(size_t run, const std::string& had,
                                    const std::string& went_on) const {
  if (went_on == had) return "";
  const auto stepOf = [](const std::string& position) {
    return std::stoll(position.substr(position.rfind(' ') + 1));
  };
  if (killed_from_outside_.at(run) && stepOf(went_on) > stepOf(had)) return "";
  return "went on from " + went_on + ", but the last checkpoint put in place before the kill (" +
         labels_[run] + ") stood at " + had;
}

std::map<std::string, std::string> ResumeTrace::resumesOf(size_t run) const {
  std::map<std::string, std::string> resumes;
  for (const auto& a : announcementsOf(outputs_.at(run)))
    if (a.resume) resumes[a.unit] = a.position;
  return resumes;
}

std::map<std::string, std::string> ResumeTrace::lastCheckpointsUpTo(size_t run) const {
  std::map<std::string, std::string> last;
  for (size_t r = 0; r <= run && r < outputs_.size(); ++r)
    for (const auto& a : announcementsOf(outputs_[r]))
      if (!a.resume) last[a.unit] = a.position;
  return last;
}

std::string ResumeTrace::lastRunResumedFrom(const std::string& unit) const {
  if (outputs_.empty()) return "";
  const auto resumes = resumesOf(outputs_.size() - 1);
  const auto it = resumes.find(unit);
  return it == resumes.end() ? "" : std::regex_replace(it->second, std::regex(" batch \\d+"), "");
}

std::string ResumeTrace::lastUnitOf(size_t run) const {
  const auto found = announcementsOf(outputs_.at(run));
  return found.empty() ? "" : found.back().unit;
}

::testing::AssertionResult ResumeTrace::nextRunResumedWhereKilled(
    size_t run, const std::string& expected) const {
  if (run + 1 >= outputs_.size())
    return ::testing::AssertionFailure() << "no run after " << labels_.at(run);
  const std::string unit = lastUnitOf(run);
  const auto last = lastCheckpointsUpTo(run);
  if (unit.empty() || last.count(unit) == 0)
    return ::testing::AssertionFailure()
           << labels_[run] << " was killed before any checkpoint was put in place, so the kill "
           << "proves no resume: " << describe(run);
  const auto resumes = resumesOf(run + 1);
  const auto it = resumes.find(unit);
  if (it == resumes.end())
    return ::testing::AssertionFailure()
           << labels_[run + 1] << " did not resume " << unit << " (killed in " << labels_[run]
           << ", last checkpoint at " << last.at(unit) << "): " << describe(run + 1);
  if (const std::string wrong = wentOnFrom(run, last.at(unit), it->second); !wrong.empty())
    return ::testing::AssertionFailure() << labels_[run + 1] << ": " << unit << " " << wrong;
  if (!expected.empty() && it->second != expected)
    return ::testing::AssertionFailure()
           << labels_[run + 1] << " resumed " << unit << " from " << it->second
           << ", but the kill point " << labels_[run] << " leaves the last checkpoint at "
           << expected;
  return ::testing::AssertionSuccess() << labels_[run + 1] << " resumed " << unit << " from "
                                       << it->second;
}

::testing::AssertionResult ResumeTrace::everyResumeFromTheLastCheckpoint() const {
  for (size_t r = 0; r < outputs_.size(); ++r) {
    const auto before = r == 0 ? std::map<std::string, std::string>() : lastCheckpointsUpTo(r - 1);
    for (const auto& unit : restartedUnitsOf(outputs_[r]))
      if (before.count(unit) || before.count(unit + " rank 0"))
        return ::testing::AssertionFailure()
               << labels_[r] << " printed that " << unit << " trains again from the start, "
               << "though an earlier run had announced its checkpoint: " << describe(r);
    if (r == 0) continue;
    const auto resumes = resumesOf(r);
    std::set<std::string> trained;
    for (const auto& a : announcementsOf(outputs_[r])) trained.insert(a.unit);
    for (const auto& unit : trained) {
      const auto had = before.find(unit);
      const auto went_on = resumes.find(unit);
      if (had == before.end() && went_on != resumes.end() && !killed_from_outside_[r - 1])
        return ::testing::AssertionFailure()
               << labels_[r] << " resumed " << unit << " from " << went_on->second
               << ", a checkpoint no earlier run announced";
      if (had == before.end()) continue;
      if (went_on == resumes.end())
        return ::testing::AssertionFailure()
               << labels_[r] << " trained " << unit << " from the start, though its checkpoint at "
               << had->second << " was in place: " << describe(r);
      if (const std::string wrong = wentOnFrom(r - 1, had->second, went_on->second);
          !wrong.empty())
        return ::testing::AssertionFailure() << labels_[r] << ": " << unit << " " << wrong;
    }
  }
  return ::testing::AssertionSuccess();
}

std::string ResumeTrace::describe(size_t run) const {
  std::vector<std::string> lines;
  std::string line;
  for (std::istringstream in(outputs_.at(run)); std::getline(in, line);) lines.push_back(line);
  std::string text = labels_[run] + " (" + output_file_ + "), last lines:";
  for (size_t i = lines.size() > 12 ? lines.size() - 12 : 0; i < lines.size(); ++i)
    text += "\n  " + lines[i];
  return text;
}

void runWithChosenKills(ResumeTrace& trace, const std::string& program,
                        const std::vector<std::string>& args,
                        const std::vector<ChosenKill>& kills) {
  const size_t first = trace.runs();
  for (const auto& kill : kills) {
    const auto r = trace.run(program, args, kill.point);
    EXPECT_TRUE(r.killed) << "the child never reached kill point " << kill.point << ": "
                          << trace.describe(trace.runs() - 1);
  }
  const auto last = trace.run(program, args);
  EXPECT_FALSE(last.killed);
  EXPECT_EQ(last.exit_code, 0) << trace.describe(trace.runs() - 1);
  expectResumesAfterKills(trace, first, kills);
}

void expectResumesAfterKills(const ResumeTrace& trace, size_t first,
                             const std::vector<ChosenKill>& kills) {
  ASSERT_GT(trace.runs(), first + kills.size()) << "no run after the last kill";
  for (size_t k = 0; k < kills.size(); ++k) {
    if (kills[k].resumes)
      EXPECT_TRUE(trace.nextRunResumedWhereKilled(first + k, kills[k].expected));
    else
      EXPECT_TRUE(trace.resumesOf(first + k + 1).empty()) << trace.describe(first + k + 1);
  }
  EXPECT_TRUE(trace.everyResumeFromTheLastCheckpoint());
}

}  // namespace recurlab::testing
