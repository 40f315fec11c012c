// The answers of the commit service's API (docs/api.md), both ways: the
// service writes them, its client (and doctor, the load bench and the
// scripted stand-in service) reads them. Written once, so that the bytes one
// side sends are the ones the other reads.
//
// The reads are those of a client that may be talking to something else (a
// proxy's page, an older service): ParseErrorBody and ParseHealthAnswer are
// lenient, the others refuse what does not fit with kInternal naming what is
// wrong and quoting a short, escaped excerpt of the body. Serialising never
// throws: bytes that are not valid UTF-8 are replaced.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/status.h"

namespace deltacommit::service_wire {

// 200 to POST /v1/commits.
struct CommitAnswer {
  Version version = -1;
  bool published = false;
  int64_t merged = 0;      // an append: the appends that share `version`; 0: not sent
  bool duplicate = false;  // an append whose txns were applied before; false: not sent
  // An append on a table with in-commit timestamps: the one its version's
  // commitInfo holds (a writer that applies its own append needs it).
  std::optional<int64_t> in_commit_timestamp;
  friend bool operator==(const CommitAnswer&, const CommitAnswer&) = default;
};

// {"version": 7, "published": true, "merged"?: n, "duplicate"?: true,
//  "in_commit_timestamp"?: ms}.
std::string SerializeCommitAnswer(const CommitAnswer& answer);
// kInternal without an integer "version", or with a field of another type.
StatusOr<CommitAnswer> ParseCommitAnswer(std::string_view body);

// The body of every refusal: {"error": {"code", "message", "latest_version"?,
// "reason"?}}.
struct ErrorBody {
  std::string code;  // "bad_request", "version_taken", ...
  std::string message;
  std::optional<Version> latest_version;  // 409 only
  std::string reason;  // 424 only: "access_denied" or "invalid_credentials"; empty: not sent
  friend bool operator==(const ErrorBody&, const ErrorBody&) = default;
};

std::string SerializeErrorBody(const ErrorBody& error);
// Lenient: a body that is not the API's (a proxy's HTML page) leaves `code`
// empty and puts "(no body)" or "not the API's error body: \"<excerpt>\""
// into `message`. The code and reason are cut to 64 bytes, the message to
// 2,000, each with control characters escaped; a field of another type is
// left out.
ErrorBody ParseErrorBody(std::string_view body);

// 200 to GET /v1/tables/{table}/commits.
struct PendingCommitsAnswer {
  std::string table;  // the normalised table URI
  PendingCommits pending;
};

// {"table", "latest_version", "commits": [{"version", "staged_file", "size",
// "commit_timestamp"}]}.
std::string SerializePendingCommits(const PendingCommitsAnswer& answer);
// Checked for a request from `start`: an integer latest_version >= -1;
// commits ascending, each with start <= version <= latest_version and a
// staged_file that is "_delta_log/_staged_commits/<its version>.<uuid>.json".
// `table`, `size` and `commit_timestamp` are read when they are of their
// type. kInternal naming what is wrong.
StatusOr<PendingCommitsAnswer> ParsePendingCommits(std::string_view body, Version start);

// GET /healthz and /readyz: {"status": "ok"}, {"status": "ready"},
// {"status": "unavailable", "reason": "state store: <code>"},
// {"status": "stopping"}.
struct HealthAnswer {
  std::string status;
  std::string reason;  // empty: not sent
  friend bool operator==(const HealthAnswer&, const HealthAnswer&) = default;
};

std::string SerializeHealthAnswer(const HealthAnswer& answer);
// Lenient: a field that is missing or not a string is left empty.
HealthAnswer ParseHealthAnswer(std::string_view body);

}  // namespace deltacommit::service_wire
