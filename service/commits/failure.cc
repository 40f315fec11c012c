#include "service/commits/failure.h"

#include <string>
#include <utility>

namespace deltacommit::service {

Failure ObjectStoreFailure(Status status) {
  return Failure{FailureKind::kObjectStore, std::move(status)};
}

Failure StateStoreFailure(CommitObserver& observer, std::string_view operation, Status status) {
  observer.OnStateStoreError(operation, status.code());
  return Failure{FailureKind::kStateStore,
                 status.WithContext("state store " + std::string(operation))};
}

bool IsCredentialsRejected(const Failure& failure) {
  const StatusCode code = failure.status.code();
  return failure.kind == FailureKind::kObjectStore &&
         (code == StatusCode::kUnauthenticated || code == StatusCode::kPermissionDenied);
}

CommitReply ReplyFor(const Failure& failure) {
  const std::string& message = failure.status.message();
  switch (failure.kind) {
    case FailureKind::kObjectStore: {
      if (IsCredentialsRejected(failure)) {
        CommitReply reply = CommitReply::Error(
            CommitOutcome::kCredentialsRejected, std::string(kCredentialsRejectedPrefix) + message);
        reply.reason = failure.status.code() == StatusCode::kPermissionDenied
                           ? "access_denied"
                           : "invalid_credentials";
        return reply;
      }
      const StatusCode code = failure.status.code();
      if (code == StatusCode::kNotFound || code == StatusCode::kInvalidArgument) {
        return CommitReply::Error(CommitOutcome::kBadRequest, message);
      }
      return CommitReply::Error(CommitOutcome::kUnavailable,
                                "S3 failed: " + message + "; retry later");
    }
    case FailureKind::kStateStore:
      return CommitReply::Error(CommitOutcome::kUnavailable,
                                "the service's " + message + "; retry later");
    case FailureKind::kLogInconsistent:
      return CommitReply::Error(CommitOutcome::kLogInconsistent, message);
    case FailureKind::kStep:
      return CommitReply::Error(CommitOutcome::kUnavailable, message);
  }
  return CommitReply::Error(CommitOutcome::kUnavailable, message);
}

}  // namespace deltacommit::service
