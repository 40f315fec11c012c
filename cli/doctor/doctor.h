// `deltacommit doctor`: live checks that the credentials, endpoints and
// permissions a table's commit mode needs are there, one check per
// permission, each OK / WARN / FAIL (or SKIP when a check it depends on
// failed). Messages name the action, the resource and the credential source,
// never a secret.
//
// Probes write only under `_delta_log/.tmp/` (S3; `_delta_log/_staged_commits/`
// for the commit service modes, where their staged commits go; unique names
// that are no log file's, deleted again), with a condition that must fail
// (DynamoDB), or as a commit request the commit service must refuse before
// its commit logic (invalid credentials): a doctor run never changes what
// readers of the table see.
//
// Thread-safety: not thread-safe; one run at a time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/clock.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {

enum class Verdict { kOk, kWarn, kFail, kSkip };

// "OK", "WARN", "FAIL", "SKIP".
const char* VerdictName(Verdict verdict);

struct DoctorCheck {
  std::string name;    // "s3:PutObject", "DynamoDB endpoint", ...
  Verdict verdict = Verdict::kOk;
  std::string detail;  // what was checked, or what is wrong and what to do
};

class DoctorReport {
 public:
  void Add(std::string name, Verdict verdict, std::string detail);
  // OK with `ok_detail` when `status` is OK, else FAIL with its message.
  void AddStatus(std::string name, const Status& status, std::string ok_detail);

  const std::vector<DoctorCheck>& checks() const { return checks_; }
  bool failed() const;  // any FAIL

 private:
  std::vector<DoctorCheck> checks_;
};

// "S3 credentials" / "DynamoDB credentials": resolved, not expired; names
// the source, the redacted key id and the expiry. False when there are none
// (the service's remaining checks are then skipped).
bool CheckCredentials(const std::string& service, aws::CredentialsProvider& credentials,
                      Clock& clock, DoctorReport& report);

// "<service> endpoint": one unsigned request to `endpoint_url`; any HTTP
// reply means reachable. Its Date header against the local clock: SigV4
// refuses requests more than 15 minutes off (FAIL), 5 minutes is a WARN.
// False when unreachable.
bool CheckEndpoint(const std::string& service, const std::string& endpoint_url,
                   aws::HttpClient& http, Clock& clock, DoctorReport& report);

// The checks of each mode, on a table opened with TableFlags::skip_setup.
void CheckLocalTable(TableAdapters& table, DoctorReport& report);
// The S3 side of every S3 mode; returns the latest commit the listing found
// (nullopt when none, or when it could not list).
std::optional<Version> CheckS3Table(TableAdapters& table, DoctorReport& report);
void CheckDynamoDbTable(TableAdapters& table, DoctorReport& report);  // s3-dynamodb's table
// service / coordinated (doctor/service.cc): the credentials the writer
// sends (STS GetSessionToken), the service (reachable, ready), the token
// (commit and read on this table) and the service's ratified commits
// against `listed_latest`, the latest commit CheckS3Table listed.
void CheckCommitService(TableAdapters& table, const TableFlags& options,
                        std::optional<Version> listed_latest, DoctorReport& report);

// "commit coordinator" (doctor/coordinator.cc), every mode: the table's
// coordinator (delta.coordinatedCommits.commitCoordinator-preview) lets this
// mode commit: FAIL when a filesystem mode meets a coordinated table or the
// coordinated mode a table without one.
void CheckTableCoordinator(TableAdapters& table, DoctorReport& report);

// Marks `names` as skipped because `why`.
void SkipChecks(const std::vector<std::string>& names, const std::string& why,
                DoctorReport& report);

}  // namespace deltacommit::cli
