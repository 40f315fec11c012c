// Each API's error shape and status for every Status code (the tables of
// docs/unity-catalog.md "Errors" and of UC's ErrorCode).
#include "service/unity/uc_errors.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace deltacommit::service::unity {
namespace {

using nlohmann::json;

TEST(UcErrorsTest, StatusCodesMapToBothApisStatuses) {
  struct Case {
    Status status;
    UcObject object;
    int uc_status;
    const char* code;
    int delta_status;
    const char* type;
  };
  const Case cases[] = {
      {InvalidArgumentError("m"), UcObject::kOther, 400, "INVALID_ARGUMENT", 400,
       "InvalidParameterValueException"},
      {NotFoundError("m"), UcObject::kTable, 404, "TABLE_NOT_FOUND", 404, "NoSuchTableException"},
      {NotFoundError("m"), UcObject::kSchema, 404, "SCHEMA_NOT_FOUND", 404,
       "NoSuchSchemaException"},
      {NotFoundError("m"), UcObject::kCatalog, 404, "CATALOG_NOT_FOUND", 404,
       "NoSuchCatalogException"},
      {AlreadyExistsError("m"), UcObject::kTable, 400, "TABLE_ALREADY_EXISTS", 409,
       "AlreadyExistsException"},
      {FailedPreconditionError("m"), UcObject::kOther, 400, "FAILED_PRECONDITION", 400,
       "InvalidParameterValueException"},
      {PermissionDeniedError("m"), UcObject::kOther, 403, "PERMISSION_DENIED", 403,
       "PermissionDeniedException"},
      {UnauthenticatedError("m"), UcObject::kOther, 401, "UNAUTHENTICATED", 401,
       "NotAuthorizedException"},
      {ResourceExhaustedError("m"), UcObject::kOther, 429, "RESOURCE_EXHAUSTED", 429,
       "ResourceExhaustedException"},
      {UnavailableError("m"), UcObject::kOther, 503, "TEMPORARILY_UNAVAILABLE", 503,
       "InternalServerErrorException"},
      {UnknownOutcomeError("m"), UcObject::kOther, 500, "COMMIT_STATE_UNKNOWN", 500,
       "CommitStateUnknownException"},
      {DataLossError("m"), UcObject::kOther, 500, "DATA_LOSS", 500, "InternalServerErrorException"},
      {InternalError("m"), UcObject::kOther, 500, "INTERNAL", 500, "InternalServerErrorException"},
  };
  for (const Case& c : cases) {
    UcError error = UcErrorFor(c.status, c.object);
    EXPECT_EQ(error.status, c.uc_status) << c.status.ToString();
    EXPECT_EQ(error.error_code, c.code) << c.status.ToString();
    EXPECT_EQ(error.delta_status, c.delta_status) << c.status.ToString();
    EXPECT_EQ(error.delta_type, c.type) << c.status.ToString();
  }
  EXPECT_EQ(UcErrorFor(UnknownOutcomeError("lost")).message, "lost; retry the request");
}

TEST(UcErrorsTest, EachApiAnswersInItsOwnShape) {
  const UcError error = CommitVersionConflict("version 3 is taken");
  http::Response rest = UcRestErrorAnswer(error);
  EXPECT_EQ(rest.status, 409);
  EXPECT_EQ(json::parse(rest.body),
            json::parse(R"({"error_code":"COMMIT_VERSION_CONFLICT","message":"version 3 is taken",
              "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo",
                          "reason":"COMMIT_VERSION_CONFLICT"}]})"));
  http::Response delta = DeltaApiErrorAnswer(error);
  EXPECT_EQ(delta.status, 409);
  EXPECT_EQ(json::parse(delta.body), json::parse(R"({"error":{"message":"version 3 is taken",
              "type":"CommitVersionConflictException","code":409}})"));
  EXPECT_EQ(DeltaApiErrorAnswer(MaxCommitsReached("cap")).status, 429);
  EXPECT_EQ(UcRestErrorAnswer(UpdateRequirementConflict("etag")).status, 409);
}

}  // namespace
}  // namespace deltacommit::service::unity
