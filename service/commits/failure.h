// Failure: why a step of the commit logic could not go on, with where it
// came from, so that the same Status code can be answered differently (an
// S3 kPermissionDenied is the writer's credentials; a state store one is
// the service's own problem).
//
// Thread-safety: values and pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "deltacommit/status.h"
#include "service/commits/commit_observer.h"
#include "service/commits/commit_types.h"

namespace deltacommit::service {

enum class FailureKind {
  kObjectStore,      // an S3 call, with the request's credentials
  kStateStore,       // the service's state store
  kLogInconsistent,  // the log disagrees with a ratified commit
  kStep,             // a step hook stopped the protocol (a simulated crash)
};

struct Failure {
  FailureKind kind = FailureKind::kObjectStore;
  Status status;
};

// An optional<Failure> is the result of a step that returns nothing else.
using StepResult = std::optional<Failure>;

// The failure of an S3 call (the observer already saw its S3 code).
Failure ObjectStoreFailure(Status status);

// What a kCredentialsRejected reply's message starts with.
inline constexpr std::string_view kCredentialsRejectedPrefix =
    "S3 refused the request's credentials: ";
// The failure of state store call `operation` ("Ratify"), reported to
// `observer`.
Failure StateStoreFailure(CommitObserver& observer, std::string_view operation, Status status);

// True when S3 refused the request's credentials (kUnauthenticated: unknown
// key, bad signature, invalid or expired token; kPermissionDenied).
bool IsCredentialsRejected(const Failure& failure);

// The reply for `failure`:
//   kObjectStore      credentials refused -> kCredentialsRejected (reason
//                     access_denied or invalid_credentials); kNotFound
//                     or kInvalidArgument (no such bucket, a bad key) ->
//                     kBadRequest; anything else -> kUnavailable
//   kStateStore       kUnavailable
//   kLogInconsistent  kLogInconsistent
//   kStep             kUnavailable (a crashed service sends no reply; this
//                     is what a test sees instead)
CommitReply ReplyFor(const Failure& failure);

}  // namespace deltacommit::service
