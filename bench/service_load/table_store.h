// An S3ObjectStore rooted at one bench table, on the endpoint and with the
// keys of the environment (the test servers' RGW and user), over its own
// libcurl client: a thread that owns one has its own S3 connection.
#pragma once

#include <memory>
#include <string>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/s3/s3_object_store.h"
#include "deltacommit/status.h"

namespace deltacommit::bench {

struct TableStore {
  std::unique_ptr<aws::HttpClient> http;
  std::unique_ptr<aws::CredentialsProvider> credentials;
  std::unique_ptr<S3ObjectStore> store;
};

// `table` is "s3://bucket/prefix". The error names what is missing.
StatusOr<TableStore> OpenTableStore(const std::string& table);

}  // namespace deltacommit::bench
