#pragma once
// Crash injection for the SIGKILL resume tests: with RECURLAB_KILL_AT="<point>:<n>" in the
// environment, the process kills itself with SIGKILL the n-th time it passes killPoint(point)
// (a real kill: no destructor runs, nothing is flushed or closed). With RECURLAB_KILL_RANK=r
// as well, only the data-parallel rank r (RANK in the environment) kills itself. Without the
// variables it costs one branch.
namespace recurlab::experiments {

void killPoint(const char* point);

}  // namespace recurlab::experiments
