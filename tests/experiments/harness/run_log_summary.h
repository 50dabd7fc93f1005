#pragma once
// Every finished unit of a run folder (all its logs) as text: status, result attributes and
// the tables under it without their timing columns. Two runs that computed the same thing
// give equal summaries.
#include <cstdint>
#include <map>
#include <string>

namespace recurlab::testing {

// group -> summary; a group finished in two logs is reported as "<group> (twice)".
std::map<std::string, std::string> finishedUnits(const std::string& folder);

// group -> its resumed_from_checkpoint count, for every finished unit of the folder's logs
// that has one (1: the run that finished it started from the unit's checkpoint).
std::map<std::string, int64_t> resumedUnits(const std::string& folder);

// group -> "epoch E step S": where the run that finished the unit went on from (its
// resumed_from_epoch and resumed_from_step; "epoch 0 step 0" when it did not resume).
std::map<std::string, std::string> resumePositions(const std::string& folder);

// The sum of resumedUnits(folder).
int64_t resumedUnitCount(const std::string& folder);

}  // namespace recurlab::testing
