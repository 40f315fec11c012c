// ObjectStore: the port to a blob store rooted at one table (a local
// directory, or an S3 bucket + prefix). Keys are relative to that root
// ("_delta_log/00000000000000000000.json"), '/'-separated, never starting
// with '/', never containing "." or ".." segments or empty segments; a key
// that breaks these rules gets kInvalidArgument ("path outside the table").
//
// Codes every call may return besides those listed: kUnavailable (store down,
// retryable), kPermissionDenied, kUnauthenticated, kDeadlineExceeded.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit {

struct ObjectMeta {
  std::string key;
  int64_t size = 0;
  int64_t last_modified_ms = 0;  // epoch milliseconds
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

struct ByteRange {
  int64_t offset = 0;
  int64_t length = 0;  // bytes from offset; the result may be shorter at EOF
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // A description for messages, e.g. "file:///data/t" or "s3://b/t".
  virtual std::string Describe() const = 0;

  // The whole object, or `range` of it. kNotFound if absent.
  virtual StatusOr<std::string> Get(std::string_view key,
                                    std::optional<ByteRange> range = std::nullopt) = 0;

  // kNotFound if absent.
  virtual StatusOr<ObjectMeta> Head(std::string_view key) = 0;

  // Every object whose key starts with `prefix` and sorts after `start_after`
  // (byte order), recursively, sorted by key. An empty result is OK.
  virtual StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                                 std::string_view start_after = {}) = 0;

  // Creates `key` with `data` only if no object has that key; the object
  // appears complete or not at all. kAlreadyExists if taken (by anyone);
  // kUnknownOutcome if it may have been written but the reply was lost.
  virtual Status PutIfAbsent(std::string_view key, std::string_view data) = 0;

  // Creates or replaces `key` atomically. kUnknownOutcome as above.
  virtual Status Put(std::string_view key, std::string_view data) = 0;

  // Copies `src` to `dst`. With if_absent, kAlreadyExists if `dst` exists.
  // kNotFound if `src` is absent.
  virtual Status Copy(std::string_view src, std::string_view dst, bool if_absent) = 0;

  // Removes `key`; OK if it was already absent.
  virtual Status Delete(std::string_view key) = 0;
};

// OK if `key` obeys the key rules above; kInvalidArgument naming the key and
// the rule otherwise.
Status ValidateObjectKey(std::string_view key);

// For List: a prefix may end part-way through a name ("_delta_log/0000"),
// but everything before its last '/' must obey the key rules, so a listing
// can never reach outside the table either.
Status ValidateListPrefix(std::string_view prefix);

}  // namespace deltacommit
