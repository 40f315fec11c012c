// Errors of the Unity Catalog APIs the service speaks, in each API's own
// shape and status (docs/unity-catalog.md "Errors"):
//
//   UC REST 2.1   {"error_code": "TABLE_NOT_FOUND", "message": "...",
//                  "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
//                               "reason": "TABLE_NOT_FOUND"}]}
//   Delta API v1  {"error": {"message": "...", "type": "NoSuchTableException",
//                            "code": 404}}
//
// One UcError describes the error for both; the two APIs disagree on some
// statuses (a name already taken is 400 TABLE_ALREADY_EXISTS on UC REST
// but 409 AlreadyExistsException on the Delta API), so each kind carries
// both. Clients act on the status (Delta Spark: 409 rebases and retries,
// 400 fails, 404 is an unknown table, 429 and 5xx are retried).
//
// Thread-safety: values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "deltacommit/status.h"
#include "service/http/http_message.h"

namespace deltacommit::service::unity {

// What a Status names when it is kNotFound or kAlreadyExists.
enum class UcObject { kCatalog, kSchema, kTable, kOther };

struct UcError {
  int status = 500;        // UC REST 2.1
  std::string error_code;  // "TABLE_NOT_FOUND", ...
  int delta_status = 500;  // Delta API v1
  std::string delta_type;  // "NoSuchTableException", ...
  std::string message;
};

// The error for a failed call of the catalog, state or commit logic:
// kInvalidArgument -> 400 INVALID_ARGUMENT, kNotFound -> 404
// <object>_NOT_FOUND, kAlreadyExists -> <object>_ALREADY_EXISTS (400 / 409),
// kFailedPrecondition -> 400 FAILED_PRECONDITION, kPermissionDenied -> 403,
// kUnauthenticated -> 401, kResourceExhausted -> 429, kUnavailable -> 503
// TEMPORARILY_UNAVAILABLE, kUnknownOutcome -> 500 COMMIT_STATE_UNKNOWN
// (retry the request), kUnimplemented -> 501, else 500 INTERNAL.
UcError UcErrorFor(const Status& status, UcObject object = UcObject::kOther);

// The errors of commits, which the codes above do not tell apart.
UcError CommitVersionConflict(std::string message);      // 409 both
UcError UpdateRequirementConflict(std::string message);  // 409 both
UcError MaxCommitsReached(std::string message);          // 429 both

// A value, or the error to answer in either API's shape: what a rule both
// APIs share returns, since the rule knows which object a "not found" names.
template <typename T>
class UcOr {
 public:
  UcOr(T value) : value_(std::move(value)) {}        // NOLINT: implicit, as StatusOr
  UcOr(UcError error) : value_(std::move(error)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(value_); }
  const UcError& error() const { return std::get<UcError>(value_); }
  T& operator*() { return std::get<T>(value_); }
  const T& operator*() const { return std::get<T>(value_); }
  T* operator->() { return &std::get<T>(value_); }
  const T* operator->() const { return &std::get<T>(value_); }

 private:
  std::variant<T, UcError> value_;
};

http::Response UcRestErrorAnswer(const UcError& error);
http::Response DeltaApiErrorAnswer(const UcError& error);

}  // namespace deltacommit::service::unity
