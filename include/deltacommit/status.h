// Status and StatusOr<T>: the error model of every deltacommit API.
//
// A closed set of codes (google-cloud-cpp's canonical codes plus
// kUnknownOutcome). No exception crosses a module boundary: code that throws
// is wrapped where it is called and turned into a Status.
//
// kUnknownOutcome means a write may or may not have been applied (the reply
// was lost). The caller must read back before retrying, or it may lose or
// duplicate a commit.
//
// Thread-safety: values; const methods are safe to call concurrently.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace deltacommit {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kPermissionDenied,
  kUnauthenticated,
  kUnimplemented,
  kDataLoss,
  kUnavailable,
  kDeadlineExceeded,
  kResourceExhausted,
  kInternal,
  kUnknownOutcome,
};

// "InvalidArgument", "NotFound", ...
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK; costs nothing.
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code_ == StatusCode::kAlreadyExists; }
  bool IsUnknownOutcome() const { return code_ == StatusCode::kUnknownOutcome; }

  // A copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  // "NotFound: <message>" or "OK".
  std::string ToString() const;

  // Explicitly discards a status the caller has decided not to act on.
  void IgnoreError() const {}

  friend bool operator==(const Status&, const Status&) = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status FailedPreconditionError(std::string message);
Status PermissionDeniedError(std::string message);
Status UnauthenticatedError(std::string message);
Status UnimplementedError(std::string message);
Status DataLossError(std::string message);
Status UnavailableError(std::string message);
Status DeadlineExceededError(std::string message);
Status ResourceExhaustedError(std::string message);
Status InternalError(std::string message);
Status UnknownOutcomeError(std::string message);

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // REQUIRES: !status.ok() (an OK status without a value becomes kInternal).
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "StatusOr built from OK");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok(). On an rvalue the value is moved out and returned by
  // value, so `for (auto& x : F().value())` never dangles.
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T value() && { return *std::move(value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T operator*() && { return *std::move(value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace deltacommit

#define DC_CONCAT_INNER_(a, b) a##b
#define DC_CONCAT_(a, b) DC_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function if it is not OK.
#define DC_RETURN_IF_ERROR(expr)                        \
  do {                                                  \
    ::deltacommit::Status dc_status_ = (expr);          \
    if (!dc_status_.ok()) return dc_status_;            \
  } while (false)

// `DC_ASSIGN_OR_RETURN(auto x, F());` declares x from F()'s value or returns
// its error.
#define DC_ASSIGN_OR_RETURN(lhs, expr) \
  DC_ASSIGN_OR_RETURN_IMPL_(DC_CONCAT_(dc_statusor_, __LINE__), lhs, expr)
#define DC_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
