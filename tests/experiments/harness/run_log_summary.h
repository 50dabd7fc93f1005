#pragma once
// Every finished unit of a run folder (all its logs) as text: status, result attributes and
// the tables under it without their timing columns. Two runs that computed the same thing
// give equal summaries.
#include <map>
#include <string>

namespace recurlab::testing {

// group -> summary; a group finished in two logs is reported as "<group> (twice)".
std::map<std::string, std::string> finishedUnits(const std::string& folder);

}  // namespace recurlab::testing
