// The S3 test server (scripts/test-servers up) as the tests see it: the
// endpoint, credentials and bucket from the environment variables that
// script prints, and a fresh key prefix per use so tests never collide.
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

// Skips (locally) or fails (CI) the current test when there is no S3 server.
#define DC_REQUIRE_S3()                                                          \
  do {                                                                           \
    if (auto why = ::deltacommit::testing::S3Unavailable()) {                    \
      if (::deltacommit::testing::InCi()) FAIL() << "CI needs the S3 server: " << *why; \
      GTEST_SKIP() << *why;                                                      \
    }                                                                            \
  } while (false)
