// Table URIs and object keys that arrive from clients of the commit service,
// checked before they name anything the service reads, writes or authorises.
//
// A table has exactly one accepted spelling after normalisation, so that the
// state store, the token prefixes and the S3 keys all agree on which table a
// request is about, and no spelling can reach outside the bucket or prefix it
// names (no "..", no encoded separators, no backslashes).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit::service {

// Longest table URI accepted, in bytes.
inline constexpr size_t kMaxTableUriLength = 1024;

// A normalised table root: "s3://bucket", "s3://bucket/prefix", or a table
// on the service's own file system, "file:///absolute/path" (served only
// under a configured [local] root: local_tables.h).
struct TableUri {
  std::string uri;         // "s3://analytics/events", "file:///srv/tables/events"
  std::string bucket;      // "analytics"; empty for a local table
  std::string key_prefix;  // "events"; no leading or trailing '/'; may be empty
  std::string local_path;  // "/srv/tables/events" for a local table, else empty
  bool is_local() const { return !local_path.empty(); }
  friend bool operator==(const TableUri&, const TableUri&) = default;
};

// Checks and normalises a table root URI. Accepted: s3://, s3a:// and s3n://
// (any case; the result is s3://), one trailing '/' (dropped); and
// file:///absolute/path (no host; the same segment rules; not "/" itself),
// also in Hadoop's spelling file:/absolute/path (the result is file:///...). Refused with
// kInvalidArgument, naming what was wrong: another scheme; more than
// kMaxTableUriLength bytes; a bucket name outside S3's rules (3-63 of a-z,
// 0-9, '.', '-'); an empty, "." or ".." segment; a '\'; a percent-escape of
// '/', '\', '.', '%' or a control character; control characters or spaces;
// a query or fragment; a "_delta_log" segment (a table root is never inside
// a log). The message quotes the URI with control characters escaped and
// long input shortened.
StatusOr<TableUri> NormalizeTableUri(std::string_view uri);

// True iff `prefix` (a normalised table URI) covers `table`: equal, or a
// parent at a '/' boundary. "s3://b/data" covers "s3://b/data" and
// "s3://b/data/x" but not "s3://b/database"; "s3://b" covers the bucket.
bool TablePrefixCovers(std::string_view prefix, const TableUri& table);

// Checks a staged commit's key as a client gives it, relative to the table
// root: "_delta_log/_staged_commits/<20-digit version>.<uuid>.json" naming
// `version`. kInvalidArgument for a key that could leave the table (".."
// etc.), any other name, or another version; the message says which.
Status ValidateStagedCommitKey(std::string_view key, Version version);

}  // namespace deltacommit::service
