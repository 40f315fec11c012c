// RatifyConflict and the two conflicts of StateStore::Ratify, built in one
// place so that every store reports them alike.
//
// Thread-safety: values and pure functions.
#pragma once

#include <optional>

#include "service/state/commit_record.h"

namespace deltacommit::service {

// Why Ratify did not ratify: filled when it returns kAlreadyExists or
// kFailedPrecondition, so the caller can answer a replay or a 409 without
// reading again (which could see a later state).
struct RatifyConflict {
  // The table's latest ratified version.
  std::optional<Version> latest;
  // kAlreadyExists: the record that holds the version; nullopt when that
  // record was forgotten by ForgetPublishedBefore (it is published).
  std::optional<CommitRecord> existing;
};

// kAlreadyExists: `wanted`'s version is taken (by `existing`, when known);
// fills `conflict` unless it is null.
Status VersionTaken(const CommitRecord& wanted, Version latest,
                    std::optional<CommitRecord> existing,
                    RatifyConflict* conflict);

// kFailedPrecondition: `wanted`'s version is not latest + 1; fills
// `conflict` unless it is null.
Status NotNextVersion(const CommitRecord& wanted, Version latest,
                      RatifyConflict* conflict);

}  // namespace deltacommit::service
