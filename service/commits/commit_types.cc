#include "service/commits/commit_types.h"

#include <utility>

namespace deltacommit::service {

std::string_view CommitOutcomeName(CommitOutcome outcome) {
  switch (outcome) {
    case CommitOutcome::kOk:
      return "ok";
    case CommitOutcome::kVersionTaken:
      return "version_taken";
    case CommitOutcome::kVersionAhead:
      return "version_ahead";
    case CommitOutcome::kBadRequest:
      return "bad_request";
    case CommitOutcome::kTooLarge:
      return "too_large";
    case CommitOutcome::kCredentialsInvalid:
      return "credentials_invalid";
    case CommitOutcome::kCredentialsRejected:
      return "credentials_rejected";
    case CommitOutcome::kUnavailable:
      return "unavailable";
    case CommitOutcome::kLogInconsistent:
      return "log_inconsistent";
    case CommitOutcome::kMetadataChanged:
      return "metadata_changed";
    case CommitOutcome::kTxnConflict:
      return "txn_conflict";
    case CommitOutcome::kAppendUnavailable:
      return "append_unavailable";
    case CommitOutcome::kForbidden:
      return "forbidden";
    case CommitOutcome::kTooManyUnpublished:
      return "too_many_unpublished";
  }
  return "unavailable";
}

CommitReply CommitReply::Ok(Version version, bool published) {
  CommitReply reply;
  reply.outcome = CommitOutcome::kOk;
  reply.version = version;
  reply.published = published;
  return reply;
}

CommitReply CommitReply::VersionTaken(Version latest, std::string message) {
  CommitReply reply = Error(CommitOutcome::kVersionTaken, std::move(message));
  reply.latest = latest;
  return reply;
}

CommitReply CommitReply::VersionAhead(Version latest, std::string message) {
  CommitReply reply = Error(CommitOutcome::kVersionAhead, std::move(message));
  reply.latest = latest;
  return reply;
}

CommitReply CommitReply::Error(CommitOutcome outcome, std::string message) {
  CommitReply reply;
  reply.outcome = outcome;
  reply.message = std::move(message);
  return reply;
}

}  // namespace deltacommit::service
