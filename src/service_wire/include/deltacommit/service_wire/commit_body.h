// The body of `POST /v1/commits` (docs/api.md), both ways: the client
// writes it (SerializeCommitBody, after ValidateCommitRequest) and the
// service reads it strictly (ParseCommitBody). Written once, so that what
// one side sends and the other reads cannot drift apart.
//
// The strict parse refuses a body that is not one JSON object whose fields
// are exactly the documented ones, each of its documented type, with no key
// repeated, naming the field: a client's typo ("stagedFile") is an error
// rather than a silently different request. Its messages never quote a value
// of `credentials` (nor, for malformed JSON, any of the body): a client's
// secret must not come back in a reply or go into a log.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/status.h"

namespace deltacommit::service_wire {

// "credentials": the writer's temporary AWS credentials as they travel. The
// expiration is the text sent, so that a body reads back as it was written
// and doctor's probe can send one that is no time (docs/api.md, doctor).
struct RequestCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;              // empty: not sent
  std::optional<std::string> expiration;  // RFC 3339; nullopt: not sent
  friend bool operator==(const RequestCredentials&, const RequestCredentials&) = default;
};

struct CommitBody {
  std::string table;          // the table root URI as sent; the service normalises it
  Version version = -1;       // -1 for an append (no "version")
  bool append = false;        // a blind append: the service assigns the version
  Version read_version = -1;  // an append's snapshot version
  std::optional<std::string> actions;      // service mode: the commit's JSON lines
  std::optional<std::string> staged_file;  // coordinated mode: the staged commit's key
  std::optional<RequestCredentials> credentials;  // nullopt: none (a local table)
  std::string endpoint;  // an allowlisted endpoint's name; empty: the bucket's
  friend bool operator==(const CommitBody&, const CommitBody&) = default;
};

// {"table", "version" | "append": true + "read_version", "actions" and/or
// "staged_file" (those set), "credentials"?, "endpoint"?}; credentials with
// session_token and expiration only when not empty. Bytes that are not
// valid UTF-8 (a commit's content need not be, to the byte) are replaced
// rather than thrown on: the service then refuses the commit as malformed.
std::string SerializeCommitBody(const CommitBody& commit);

// The service's strict read. kInvalidArgument (400 bad_request) naming what
// is wrong: not JSON, not an object, nested deeper than a commit is, an
// unknown, repeated or missing field, a field of the wrong type, a negative
// or non-integer version, both or neither of actions and staged_file; for an
// append (`"append": true`), a version, a staged_file or a missing
// read_version. Credentials are not checked here (see ToAwsCredentials).
StatusOr<CommitBody> ParseCommitBody(std::string_view body);

// The client's checks before it sends anything: kInvalidArgument unless the
// request names a table, a version >= 0 and exactly one of actions /
// staged_file; or, for an append, no version, a read_version >= 0 and
// actions holding a txn (without one, a resent append would land twice).
Status ValidateCommitRequest(const ServiceCommitRequest& request);

// The body the client sends for `request`: its actions or its staged file
// (whichever is not empty), `credentials` (null for a local table, which
// takes none) and `endpoint` (empty: none).
CommitBody ToCommitBody(const ServiceCommitRequest& request,
                        const aws::Credentials* credentials, std::string_view endpoint);

// `credentials` as the client sends them: the expiration, when they have
// one, in RFC 3339 UTC.
RequestCredentials ToRequestCredentials(const aws::Credentials& credentials);

// The credentials the service signs with, source "request"; a field the
// body lacks stays empty (the service answers 422 credentials_invalid).
// kInvalidArgument when the expiration is not an RFC 3339 time, quoting at
// most 40 bytes of it and no other field (the service answers that 422 too,
// but only after it has authorised the request).
StatusOr<aws::Credentials> ToAwsCredentials(const RequestCredentials& sent);

}  // namespace deltacommit::service_wire
