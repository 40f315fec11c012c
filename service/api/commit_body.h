// The body of `POST /v1/commits` (docs/api.md), parsed strictly: the body
// must be one JSON object whose fields are exactly the documented ones, each
// of its documented type, with no key repeated. Anything else is refused
// with a message naming the field, so that a client's typo ("stagedFile")
// is an error rather than a silently different request.
//
// Messages never quote a value of `credentials` (nor, for malformed JSON,
// any of the body): a client's secret must not come back in a reply or go
// into a log.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/status.h"

namespace deltacommit::service {

struct CommitBody {
  std::string table;  // as sent; the caller normalises it
  Version version = -1;  // -1 for an append
  bool append = false;   // a blind append: the service assigns the version
  Version read_version = -1;  // an append's snapshot version
  std::optional<std::string> actions;      // service mode
  std::optional<std::string> staged_file;  // coordinated mode
  // As sent (source "request"); missing fields stay empty, and the commit
  // service answers them with credentials_invalid (422).
  aws::Credentials credentials;
  bool has_credentials = false;  // the body has a "credentials" field
  // Set when credentials.expiration is not an RFC 3339 time: also 422,
  // after the request is authorised.
  std::optional<std::string> credentials_problem;
  std::string endpoint;  // empty: the bucket's endpoint
};

// kInvalidArgument (400 bad_request) naming what is wrong: not JSON, not an
// object, an unknown, repeated or missing field, a field of the wrong type,
// a negative or non-integer version, both or neither of actions and
// staged_file; for an append (`"append": true`), a version, a staged_file
// or a missing read_version.
StatusOr<CommitBody> ParseCommitBody(std::string_view body);

}  // namespace deltacommit::service
