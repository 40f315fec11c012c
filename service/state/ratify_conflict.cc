#include "service/state/ratify_conflict.h"

#include <string>
#include <utility>

namespace deltacommit::service {

Status VersionTaken(const CommitRecord& wanted, Version latest,
                    std::optional<CommitRecord> existing,
                    RatifyConflict* conflict) {
  std::string message = "version " + std::to_string(wanted.version) + " of " +
                        wanted.table + " is already ratified (latest is " +
                        std::to_string(latest) + "): ";
  if (existing) {
    message += SameCommit(*existing, wanted) ? "by this same commit, "
                                             : "by another commit, ";
    message += DescribeCommit(*existing);
  } else {
    message += "its record is not kept, as the version is published";
  }
  if (conflict != nullptr) *conflict = {latest, std::move(existing)};
  return AlreadyExistsError(std::move(message));
}

Status NotNextVersion(const CommitRecord& wanted, Version latest,
                      RatifyConflict* conflict) {
  if (conflict != nullptr) *conflict = {latest, std::nullopt};
  return FailedPreconditionError(
      "cannot ratify version " + std::to_string(wanted.version) + " of " +
      wanted.table + ": the latest ratified version is " +
      std::to_string(latest) + ", so only version " +
      std::to_string(latest + 1) + " can be ratified next");
}

}  // namespace deltacommit::service
