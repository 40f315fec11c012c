// Commit rules: which files a commit may name and which actions it may
// carry. Written once, applied by the library's Transaction before it
// writes and by the commit service before it stages, ratifies or publishes,
// so that the two can never disagree about what a table may contain.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/conflict.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"

namespace deltacommit {

// OK when `path`, the path of an action as the protocol writes it (URI-
// encoded), names a file inside the table `table_uri` ("s3://b/t",
// "file:///data/t"): relative to the table root, or an absolute URI under
// it (s3a:// and s3n:// count as s3://; file:/p as file:///p). With an
// empty `table_uri` (unknown) every absolute path is refused.
// Once percent-decoded, the path must be valid UTF-8 with no control
// character, no backslash, no leading '/', no empty, "." or ".." segment,
// and must not start with "_delta_log/" (the log is not data: a tombstone of
// a log file would let a cleanup delete it). kInvalidArgument naming
// `field` ("add.path"), the path and the rule otherwise.
Status CheckActionPath(std::string_view table_uri, std::string_view field,
                       std::string_view path);

// CheckActionPath, then the key under the table root of the file `path`
// names, percent-decoded: "p=1/a b.parquet" for "p=1/a%20b.parquet", and
// for "s3://b/t/p=1/a%20b.parquet" in the table "s3://b/t".
StatusOr<std::string> ActionPathKey(std::string_view table_uri, std::string_view field,
                                    std::string_view path);

// CheckActionPath for every file `action` names: add, remove and cdc paths
// and an absolute ("p") deletion vector. OK for actions that name none.
Status CheckActionPaths(std::string_view table_uri, const Action& action);

// What a commit is written on.
struct CommitBase {
  std::string_view table_uri;  // see CheckActionPath; "" when unknown
  bool creating = false;       // the commit is version 0
  // The table's protocol and metadata at the commit's read version; null
  // when creating, or when the caller cannot know them (then the rules that
  // need them are applied to what the commit itself carries).
  const Protocol* protocol = nullptr;
  const Metadata* metadata = nullptr;
};

// Checks the actions of one commit (with or without its commitInfo):
//   - every action one this build knows, none that belongs in checkpoints;
//     at most one commitInfo, protocol and metaData; txn appIds non-empty
//     and unique; add sizes not negative; no file added or removed twice;
//   - every path inside the table (CheckActionPaths);
//   - version 0 carries protocol and metaData; a protocol action never
//     downgrades the table's protocol nor drops a feature;
//   - no data-changing remove on an append-only table; domainMetadata only
//     on tables with the feature, and never in a "delta." domain.
// kInvalidArgument naming the action and the rule. These keep the table
// sound whoever writes; whether this build may write the table's features
// (CheckWriteSupported) is the writer's own question, asked by Transaction.
Status CheckCommitActions(const CommitBase& base, const std::vector<Action>& actions);

// CheckCommitActions in two halves, for a caller that meets the actions one
// at a time (the service, line by line) and learns the table's state later:
// Add applies the rules of one action given those before it, Finish the
// rules of the whole commit. It copies what it keeps of each action.
class CommitChecker {
 public:
  explicit CommitChecker(std::string table_uri) : table_uri_(std::move(table_uri)) {}

  Status Add(const Action& action);
  // REQUIRES: every action was added. `base.table_uri` is not consulted.
  Status Finish(const CommitBase& base) const;
  // Whether Finish consults the table's protocol and metadata for these
  // actions (a protocol action, a data-changing remove, domainMetadata, a
  // deletion vector).
  bool NeedsTableState() const;

 private:
  std::string table_uri_;
  int commit_infos_ = 0;
  std::optional<Protocol> protocol_;
  std::optional<Metadata> metadata_;
  std::set<FileKey> adds_, removes_;
  std::set<std::string, std::less<>> app_ids_;
  std::optional<std::string> first_data_remove_;  // its path
  std::optional<std::string> first_deletion_vector_;  // the add or remove, and its path
  std::vector<std::string> domains_;
};

// A read predicate guards only partition columns: on any other column it
// would match no file's partition values and so guard nothing.
// kInvalidArgument naming the column and the table's partition columns.
Status CheckReadPredicate(const PartitionPredicate& predicate, const Metadata& metadata);

}  // namespace deltacommit
