// The test servers (scripts/test-servers up: Ceph RGW for S3, dynalite for
// DynamoDB) as the tests see them: endpoints, credentials and bucket from
// the environment variables that script prints, and for S3 a fresh key
// prefix per use so tests never collide.
//
// In CI (CI set) a missing server is a failure, never a skip.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/s3/s3_object_store.h"
#include "deltacommit/status.h"

namespace deltacommit::testing {

// Why the S3 server cannot be used, or nullopt when it can.
std::optional<std::string> S3Unavailable();

// Why the DynamoDB server cannot be used, or nullopt when it can.
std::optional<std::string> DynamoDbUnavailable();

// Why RGW's STS (GetSessionToken on the S3 endpoint, AWS_ENDPOINT_URL_STS)
// cannot be used, or nullopt when it can. Servers started by an older
// scripts/test-servers have S3 without STS.
std::optional<std::string> StsUnavailable();

// Temporary credentials of the test user from the test server's STS
// (GetSessionToken for 900 s, RGW's minimum), shared by the process's tests
// and renewed when less than 5 minutes are left; their source is "test
// session". REQUIRES: !StsUnavailable().
StatusOr<aws::Credentials> TestSessionCredentials();

// True when CI is set: tests must fail rather than skip without servers.
bool InCi();

// An S3ObjectStore on the test bucket under a new unique prefix, with the
// HTTP client and credentials it needs. REQUIRES: !S3Unavailable().
struct S3TestStore {
  std::unique_ptr<aws::HttpClient> http;
  std::unique_ptr<aws::CredentialsProvider> credentials;
  std::unique_ptr<S3ObjectStore> store;
  std::string uri;  // "s3://bucket/prefix"
};
S3TestStore NewS3TestStore(const std::string& purpose);

}  // namespace deltacommit::testing

// Skips (locally) or fails (CI) the current test when `why` (a call of one
// of the functions above) says its server is missing.
#define DC_REQUIRE_SERVER(why_expr)                                             \
  do {                                                                          \
    if (auto why = (why_expr)) {                                                \
      if (::deltacommit::testing::InCi()) FAIL() << "CI needs this server: " << *why; \
      GTEST_SKIP() << *why;                                                     \
    }                                                                           \
  } while (false)
#define DC_REQUIRE_S3() DC_REQUIRE_SERVER(::deltacommit::testing::S3Unavailable())
#define DC_REQUIRE_DYNAMODB() DC_REQUIRE_SERVER(::deltacommit::testing::DynamoDbUnavailable())
#define DC_REQUIRE_STS() DC_REQUIRE_SERVER(::deltacommit::testing::StsUnavailable())
