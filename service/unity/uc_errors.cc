#include "service/unity/uc_errors.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "service/unity/uc_json.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;

UcError Make(int status, std::string code, int delta_status, std::string delta_type,
             std::string message) {
  return {status, std::move(code), delta_status, std::move(delta_type), std::move(message)};
}

UcError NotFound(UcObject object, std::string message) {
  switch (object) {
    case UcObject::kCatalog:
      return Make(404, "CATALOG_NOT_FOUND", 404, "NoSuchCatalogException", std::move(message));
    case UcObject::kSchema:
      return Make(404, "SCHEMA_NOT_FOUND", 404, "NoSuchSchemaException", std::move(message));
    case UcObject::kTable:
      return Make(404, "TABLE_NOT_FOUND", 404, "NoSuchTableException", std::move(message));
    case UcObject::kOther:
      break;
  }
  return Make(404, "NOT_FOUND", 404, "NotFoundException", std::move(message));
}

// UC REST answers a taken name 400 (since UC 0.4.1); the Delta API 409.
UcError AlreadyExists(UcObject object, std::string message) {
  switch (object) {
    case UcObject::kCatalog:
      return Make(400, "CATALOG_ALREADY_EXISTS", 409, "AlreadyExistsException", std::move(message));
    case UcObject::kSchema:
      return Make(400, "SCHEMA_ALREADY_EXISTS", 409, "AlreadyExistsException", std::move(message));
    case UcObject::kTable:
      return Make(400, "TABLE_ALREADY_EXISTS", 409, "AlreadyExistsException", std::move(message));
    case UcObject::kOther:
      break;
  }
  return Make(409, "ALREADY_EXISTS", 409, "AlreadyExistsException", std::move(message));
}

}  // namespace

UcError UcErrorFor(const Status& status, UcObject object) {
  std::string message = status.message();
  switch (status.code()) {
    case StatusCode::kOk:
    case StatusCode::kInternal:
    case StatusCode::kDataLoss:
      break;
    case StatusCode::kInvalidArgument:
      return Make(400, "INVALID_ARGUMENT", 400, "InvalidParameterValueException",
                  std::move(message));
    case StatusCode::kNotFound:
      return NotFound(object, std::move(message));
    case StatusCode::kAlreadyExists:
      return AlreadyExists(object, std::move(message));
    case StatusCode::kFailedPrecondition:
      return Make(400, "FAILED_PRECONDITION", 400, "InvalidParameterValueException",
                  std::move(message));
    case StatusCode::kPermissionDenied:
      return Make(403, "PERMISSION_DENIED", 403, "PermissionDeniedException", std::move(message));
    case StatusCode::kUnauthenticated:
      return Make(401, "UNAUTHENTICATED", 401, "NotAuthorizedException", std::move(message));
    case StatusCode::kResourceExhausted:
      return Make(429, "RESOURCE_EXHAUSTED", 429, "ResourceExhaustedException", std::move(message));
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
      // UC has no code for it; Databricks' is TEMPORARILY_UNAVAILABLE. Both
      // clients retry a 503.
      return Make(503, "TEMPORARILY_UNAVAILABLE", 503, "InternalServerErrorException",
                  std::move(message));
    case StatusCode::kUnknownOutcome:
      return Make(500, "COMMIT_STATE_UNKNOWN", 500, "CommitStateUnknownException",
                  std::move(message) + "; retry the request");
    case StatusCode::kUnimplemented:
      return Make(501, "UNIMPLEMENTED", 501, "NotImplementedException", std::move(message));
  }
  return Make(500, status.code() == StatusCode::kDataLoss ? "DATA_LOSS" : "INTERNAL", 500,
              "InternalServerErrorException", std::move(message));
}

UcError CommitVersionConflict(std::string message) {
  return Make(409, "COMMIT_VERSION_CONFLICT", 409, "CommitVersionConflictException",
              std::move(message));
}

UcError UpdateRequirementConflict(std::string message) {
  return Make(409, "UPDATE_REQUIREMENT_CONFLICT", 409, "UpdateRequirementConflictException",
              std::move(message));
}

UcError MaxCommitsReached(std::string message) {
  return Make(429, "RESOURCE_EXHAUSTED", 429, "ResourceExhaustedException", std::move(message));
}

http::Response UcRestErrorAnswer(const UcError& error) {
  Json body = {{"error_code", error.error_code},
               {"message", error.message},
               {"details", Json::array({{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                                         {"reason", error.error_code}}})}};
  return http::Response::Json(error.status, DumpJson(body));
}

http::Response DeltaApiErrorAnswer(const UcError& error) {
  Json body = {
      {"error",
       {{"message", error.message}, {"type", error.delta_type}, {"code", error.delta_status}}}};
  return http::Response::Json(error.delta_status, DumpJson(body));
}

}  // namespace deltacommit::service::unity
