// Committers: one thread each, committing small blind appends to its table
// as fast as it can for a while, and rebasing on a version conflict (retry
// at the latest version + 1, as a Delta writer does after checking that
// nothing conflicts). How a commit is attempted (through the commit
// service, or straight to S3) is a CommitMethod.
//
// Commit `seq` of committer `id` adds the file c<id>/part-<seq>.parquet and
// carries txn {appId: "c<id>", version: seq}, so the log can be checked
// afterwards: each acknowledged commit present exactly once, at the version
// it was acknowledged as.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"

namespace deltacommit::bench {

// The outcome of one attempt to make `content` version `version`.
struct Attempt {
  enum class Kind { kCommitted, kConflict, kError };
  Kind kind = Kind::kError;
  Version latest = -1;  // kConflict: the latest version; retry at latest + 1
  Version version = -1;  // kCommitted: the version the service assigned (appends)
  bool unpublished = false;  // kCommitted: the service answered published=false
  std::string
      error;  // kError: "503 unavailable", "transport UnknownOutcome", ...
  bool refusal =
      false;  // kError: a 503, or a connection the server did not take
};

// One way to commit to one table. Used by one thread. After an error the
// runner retries the same content at the same version, so a method must tell
// its own earlier attempt that landed (lost reply) from another writer's.
class CommitMethod {
 public:
  virtual ~CommitMethod() = default;
  virtual Attempt Try(Version version, const std::string& content) = 0;
};

using CommitMethodFactory =
    std::function<std::unique_ptr<CommitMethod>(const std::string& table)>;

struct CommitterResult {
  int id = 0;
  std::string table;
  std::vector<std::pair<int64_t, Version>>
      commits;                       // (seq, version) acknowledged
  std::vector<double> latencies_ms;  // per commit, first attempt to success
  int64_t attempts = 0;
  int64_t conflicts = 0;    // 409s (service) or taken versions (direct)
  int64_t unpublished = 0;  // acknowledged with published=false
  int64_t refusals = 0;
  int64_t abandoned = 0;  // given up after errors: may or may not be in the log
  std::map<std::string, int64_t> errors;
};

struct LoadRun {
  double seconds = 0;  // from the start until the last committer stopped
  std::vector<CommitterResult> committers;
};

// Runs one committer per entry of `tables` (its table) for `duration`,
// all starting together; each starts at version `first_version` and learns
// the real latest from its first conflict. A committer stops starting
// commits at the deadline and gives up a commit at a conflict after it.
LoadRun RunCommitters(const std::vector<std::string>& tables,
                      const CommitMethodFactory& factory,
                      std::chrono::milliseconds duration,
                      Version first_version);

// The commit file of commit `seq` of committer `id`.
std::string CommitContent(int id, int64_t seq);
// Committer and seq from an add path CommitContent wrote; false otherwise.
bool ParseAddPath(std::string_view path, int& id, int64_t& seq);
// Version 0 of a bench table: protocol and metaData.
std::string CreateTableContent();

}  // namespace deltacommit::bench
