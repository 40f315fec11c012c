// Delta's conflict rules (Delta Spark's ConflictChecker, in its order):
// protocol, metadata, domain metadata, app txn ids, concurrent adds vs what
// was read (per isolation level), removes vs files read, removes vs removes.
//
// Thread-safety: pure functions over values.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"

namespace deltacommit {

enum class IsolationLevel { kSerializable, kWriteSerializable, kSnapshotIsolation };

std::string_view IsolationLevelName(IsolationLevel level);  // "Serializable", ...
std::optional<IsolationLevel> ParseIsolationLevel(std::string_view name);

enum class ConflictType {
  kProtocolChanged,
  kMetadataChanged,
  kConcurrentDomainMetadata,
  kConcurrentTransaction,  // an app id this txn read was updated
  kConcurrentAppend,       // files added that this txn should have read
  kConcurrentDeleteRead,   // a file this txn read was removed
  kConcurrentDeleteDelete, // a file this txn removes was removed
};

std::string_view ConflictTypeName(ConflictType type);  // "ConcurrentAppend", ...

struct Conflict {
  ConflictType type;
  Version winning_version = -1;
  std::string detail;  // e.g. the file or partition concerned
  std::string Describe() const;
};

// One column test of a partition predicate: the file's partition value (null
// as nullopt) must be one of `values`.
struct PartitionFilter {
  std::string column;
  std::vector<std::optional<std::string>> values;
};
// A conjunction of filters; a read set holds a disjunction of these.
using PartitionPredicate = std::vector<PartitionFilter>;

struct ReadSet {
  bool whole_table = false;
  std::vector<PartitionPredicate> predicates;
  std::set<std::string> files;    // paths read (removed files count as read)
  std::set<std::string> app_ids;  // app ids whose txn version was read
};

// What the current transaction is and did.
struct CurrentTransaction {
  const ReadSet* read = nullptr;
  const std::vector<Action>* actions = nullptr;
  bool is_blind_append = false;
  bool table_partitioned = false;
  IsolationLevel isolation_level = IsolationLevel::kWriteSerializable;
};

// The first conflict between `current` and the winning commit `winner_version`
// with `winner_actions`, or none (the current transaction may rebase).
std::optional<Conflict> CheckConflict(const CurrentTransaction& current,
                                      Version winner_version,
                                      const std::vector<Action>& winner_actions);

bool MatchesPredicate(const NullableStringMap& partition_values,
                      const PartitionPredicate& predicate);

}  // namespace deltacommit
