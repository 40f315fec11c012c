// Builders of commit requests for the commit service's tests.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "adapters/aws/credentials.h"
#include "deltacommit/clock.h"
#include "service/commits/commit_types.h"

namespace deltacommit::service::testing {

inline constexpr char kTestKeyId[] = "AKIATESTKEYID0000001";
inline constexpr char kTestSecret[] = "TESTsecretKEYvalue/0123456789abcdefABCDEF";
inline constexpr char kTestSessionToken[] = "TESTsessionTOKEN+value/zyxwvutsrq9876543210";

// A commit file: a commitInfo with an inCommitTimestamp, then one add of
// "part-<tag>.parquet" (so different tags give different content).
std::string CommitActions(std::string_view tag, int64_t timestamp_ms = 1'700'000'000'000);

// Temporary credentials valid for an hour after `clock`'s now.
aws::Credentials TestCredentials(Clock& clock, std::string secret = kTestSecret,
                                 std::string session_token = kTestSessionToken,
                                 std::string key_id = kTestKeyId);

// Access to `table` through an endpoint named "test" (no real URL).
TableAccess TestAccess(const std::string& table, aws::Credentials credentials);

CommitRequest ServiceCommit(const TableAccess& access, Version version, std::string actions);
CommitRequest CoordinatedCommit(const TableAccess& access, Version version,
                                std::string staged_file);

}  // namespace deltacommit::service::testing
