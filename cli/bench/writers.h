// `deltacommit bench`: W `deltacommit demo-writer` (or demo-primitive) processes spread
// round-robin over a mode's tables, started together and waited for: the
// load of one run.
#pragma once

#include <string>
#include <vector>

#include "bench/stats.h"
#include "deltacommit/status.h"

namespace deltacommit::cli {

struct WriterRun {
  std::string self;                  // this binary
  // demo-writer, or demo-primitive (then `extra` names the primitive).
  std::string subcommand = "demo-writer";
  std::vector<std::string> extra;
  std::vector<std::string> tables;   // writer i commits to tables[i % size]
  std::vector<std::string> options;  // the mode's table options
  int writers = 1;
  int commits = 1;
  bool remove_one = false;  // the conflicting mix (demo-writer --remove-one)
  bool checkpoint = true;   // demo-writer --checkpoint
  std::string out_prefix;   // writer i writes <out_prefix>.<i>.jsonl and .err
};

// Runs the writers (the caller has set DELTACOMMIT_METER=1 for them to
// inherit); where each wrote its lines. An error names the writers that
// failed and what they wrote on stderr.
StatusOr<std::vector<WriterOutput>> RunWriters(const WriterRun& run);

}  // namespace deltacommit::cli
