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

#include "adapters/aws/credentials.h"
#include "adapters/aws/http.h"
#include "adapters/s3/s3_object_store.h"

namespace deltacommit::testing {

// Why the S3 server cannot be used, or nullopt when it can.
std::optional<std::string> S3Unavailable();

// Why the DynamoDB server cannot be used, or nullopt when it can.
std::optional<std::string> DynamoDbUnavailable();

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
