// What the snapshot-load benchmarks share: the generated log and the raw
// simdjson parse that LoadSnapshot is measured against.
#pragma once

#include <chrono>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace deltacommit::bench {

// Commit `version` of a partitioned table: a commitInfo (and, in version 0,
// protocol and metaData) and `adds` adds, each with partition values and a
// stats string, as a writer of small appends leaves them.
std::string BenchCommit(int version, int adds);

double SecondsSince(std::chrono::steady_clock::time_point start);

// glibc's heap in use, in bytes: small blocks and the large ones it maps
// on their own (a snapshot's arena chunks and index are such).
double HeapInUse();

// Seconds to parse every line of commits[first, end) with simdjson's DOM
// (every value materialised): the floor any replay built on it can
// approach. One parser is kept warm across calls, so a few small commits
// are not timed as a buffer allocation.
double RawParseSeconds(const std::vector<std::string>& commits, size_t first = 0,
                       size_t end = std::numeric_limits<size_t>::max());

}  // namespace deltacommit::bench
