// Builders of commit requests for the commit service's tests.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/clock.h"
#include "service/commits/commit_types.h"

namespace deltacommit::service::testing {

inline constexpr char kTestKeyId[] = "AKIATESTKEYID0000001";
inline constexpr char kTestSecret[] = "TESTsecretKEYvalue/0123456789abcdefABCDEF";
inline constexpr char kTestSessionToken[] = "TESTsessionTOKEN+value/zyxwvutsrq9876543210";

// A commit file: a commitInfo with an inCommitTimestamp, then one add of
// "part-<tag>.parquet" (so different tags give different content).
std::string CommitActions(std::string_view tag, int64_t timestamp_ms = 1'700'000'000'000);

// CommitActions for version 0, which must also carry protocol and metaData
// (no columns; a fixed table id, so the same tag gives the same bytes).
std::string FirstCommitActions(std::string_view tag, int64_t timestamp_ms = 1'700'000'000'000);

// The commit for `version`: FirstCommitActions for 0, else CommitActions.
std::string CommitActionsAt(Version version, std::string_view tag,
                            int64_t timestamp_ms = 1'700'000'000'000);

// Version 0 of a table: commitInfo, protocol and metaData (no columns),
// with in-commit timestamps on or off.
std::string CreateTableActions(bool in_commit_timestamps = false);

// A blind append: the add of "<path>" and, when `app` is not empty, the txn
// (app, txn_version).
std::string AppendActions(std::string_view path, std::string_view app = "",
                          int64_t txn_version = 0);

// Temporary credentials valid for an hour after `clock`'s now.
aws::Credentials TestCredentials(Clock& clock, std::string secret = kTestSecret,
                                 std::string session_token = kTestSessionToken,
                                 std::string key_id = kTestKeyId);

// Access to `table` through an endpoint named "test" (no real URL).
TableAccess TestAccess(const std::string& table, aws::Credentials credentials);

CommitRequest ServiceCommit(const TableAccess& access, Version version, std::string actions);
// An append (no version) of `actions` for files written at `read_version`.
CommitRequest AppendCommit(const TableAccess& access, Version read_version, std::string actions);
CommitRequest CoordinatedCommit(const TableAccess& access, Version version,
                                std::string staged_file);

}  // namespace deltacommit::service::testing
