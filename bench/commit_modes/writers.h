// W `deltacommit demo-writer` processes on one table, started together and
// waited for: the load of one bench run.
#pragma once

#include <string>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit::bench {

struct WriterRun {
  std::string table;
  std::vector<std::string> options;  // the mode's table options
  int writers = 1;
  int commits = 1;
  bool remove_one = false;  // the conflicting mix (demo-writer --remove-one)
  std::string out_prefix;   // writer i writes <out_prefix>.<i>.jsonl and .err
};

// Runs the writers with DELTACOMMIT_METER=1; the files of their JSON lines.
// An error names the writers that failed and what they wrote on stderr.
StatusOr<std::vector<std::string>> RunWriters(const WriterRun& run);

}  // namespace deltacommit::bench
