// Tombstone retention (PROTOCOL.md "Checkpoints": remove actions may be
// dropped from a checkpoint once their deletionTimestamp is older than the
// retention period): the table property delta.deletedFileRetentionDuration,
// a calendar interval as Delta Spark writes it ("interval 1 week").
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit {

inline constexpr std::string_view kDeletedFileRetentionProperty =
    "delta.deletedFileRetentionDuration";
// Its default, "interval 1 week".
inline constexpr int64_t kDefaultDeletedFileRetentionMillis = 7LL * 24 * 60 * 60 * 1000;

// The milliseconds of an interval: an optional "interval" keyword, then one
// or more "<whole number> <unit>" pairs, units week, day, hour, minute,
// second, millisecond, microsecond (singular or plural, any case), e.g.
// "interval 1 week", "2 days 12 hours". Months and years are refused, as
// Delta refuses them for this property (their length varies); so are signs,
// fractions and anything else. kInvalidArgument saying what was wrong.
StatusOr<int64_t> ParseIntervalMillis(std::string_view text);

// delta.deletedFileRetentionDuration of `metadata` in milliseconds, the
// default when absent. kInvalidArgument naming the property and its value
// when it does not parse: callers refuse to act rather than guess a period
// (a guess too short would drop tombstones VACUUM still needs).
StatusOr<int64_t> DeletedFileRetentionMillis(const Metadata& metadata);

}  // namespace deltacommit
