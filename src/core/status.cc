#include "deltacommit/status.h"

namespace deltacommit {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kFailedPrecondition: return "FailedPrecondition";
    case StatusCode::kPermissionDenied: return "PermissionDenied";
    case StatusCode::kUnauthenticated: return "Unauthenticated";
    case StatusCode::kUnimplemented: return "Unimplemented";
    case StatusCode::kDataLoss: return "DataLoss";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kDeadlineExceeded: return "DeadlineExceeded";
    case StatusCode::kResourceExhausted: return "ResourceExhausted";
    case StatusCode::kInternal: return "Internal";
    case StatusCode::kUnknownOutcome: return "UnknownOutcome";
  }
  return "Unknown";
}

namespace {

// "<head>: <tail>". Built with append: GCC 12 at -O3 reports a false
// -Wrestrict on `std::string(a) + ": " + b` (GCC bug 105329).
std::string Join(std::string_view head, const std::string& tail) {
  std::string out;
  out.reserve(head.size() + 2 + tail.size());
  out.append(head).append(": ").append(tail);
  return out;
}

}  // namespace

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, Join(context, message_));
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return Join(StatusCodeName(code_), message_);
}

Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
Status AlreadyExistsError(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
Status PermissionDeniedError(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
Status UnauthenticatedError(std::string m) { return {StatusCode::kUnauthenticated, std::move(m)}; }
Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
Status DataLossError(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
Status DeadlineExceededError(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }
Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
Status UnknownOutcomeError(std::string m) { return {StatusCode::kUnknownOutcome, std::move(m)}; }

}  // namespace deltacommit
