// The note under every table or figure of training time measured while a run trained.
#include "analysis/report_registry.h"

namespace recurlab::analysis {

void writeWallClockNote(Report& report) {
  report.paragraph(
      "Times and rates are wall-clock, measured while training: on a shared machine they also "
      "count the time other processes held the cores, so they compare models only when the runs "
      "shared the machine alike (threads per process: environment section). `make bench` "
      "compares speed side by side, in interleaved rounds.");
}

}  // namespace recurlab::analysis
