// The model checker of deltacommit's commit protocols (docs/model-checking.md):
// one schedule = N writers (and readers, recoverers, publishers) running the
// real Transaction and LogStore code of one mode on in-memory ports, in an
// interleaving and with faults picked by a seed (model/scheduler.h); then,
// with faults off, the survivors finish and the invariants are checked:
//   - versions contiguous from 0, every commit file parses (no torn file)
//   - each _delta_log/<v>.json written once (s3-dynamodb: every write of it
//     with the same bytes: racing recoverers copy the same temp object)
//   - every acknowledged commit present exactly once, at the version it was
//     acknowledged at; no commit present twice
//   - s3-dynamodb: every entry complete, its <v>.json in place
//   - service, coordinated: nothing ratified left unpublished once the
//     publisher ran; the latest ratified version is the latest <v>.json
//   - readers: snapshots never go back; coordinated: no version above the
//     service's ratified version is ever visible
//
// Thread-safety: RunSchedule may run in one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "model/scheduler.h"

namespace deltacommit::model {

enum class Mode { kLocal, kS3Conditional, kS3DynamoDb, kService, kCoordinated };

// "local", "s3-conditional", "s3-dynamodb", "service", "coordinated".
std::string_view ModeName(Mode mode);
std::optional<Mode> ParseMode(std::string_view name);
std::vector<Mode> AllModes();

struct ScheduleOptions {
  Mode mode = Mode::kLocal;
  uint64_t seed = 1;
  int writers = 3;
  int commits_per_writer = 2;
  // Deliberately broken stores whose put-if-absent overwrites (the object
  // store's and the DynamoDB table's), to show that the checker catches a
  // protocol that loses its mutual exclusion. (The service modes rest on
  // the state store's Ratify instead, which this does not break.)
  bool broken_put_if_absent = false;
};

struct ScheduleReport {
  std::vector<std::string> problems;  // empty: every invariant held
  int64_t steps = 0;
  int64_t acknowledged = 0;
  Version latest = -1;
  int64_t crashes = 0, lost_replies = 0, failures = 0, delays = 0;
  uint64_t trace_hash = 0;
  bool ok() const { return problems.empty(); }
};

// The fault plan a seed gives a mode: some schedules run fault-free, some
// with many faults.
FaultPlan PlanFor(Mode mode, uint64_t seed);

ScheduleReport RunSchedule(const ScheduleOptions& options);

// "model_check --mode <m> --seed <s> --writers <n> --schedules 1".
std::string ReproduceCommand(const ScheduleOptions& options);

}  // namespace deltacommit::model
