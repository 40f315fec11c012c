// A bucket of a test's own on the test S3 server (Ceph RGW), for what must
// not touch the shared bucket: bucket policies that deny an action. Removed
// with its policy and everything in it when the object goes.
#pragma once

#include <memory>
#include <string>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/s3/s3_object_store.h"

namespace deltacommit::testing {

class S3TestBucket {
 public:
  // Creates "<purpose>-<uuid prefix>". REQUIRES: the S3 test server is up
  // (DC_REQUIRE_S3); a failed create is a test failure.
  explicit S3TestBucket(const std::string& purpose);
  ~S3TestBucket();
  S3TestBucket(const S3TestBucket&) = delete;
  S3TestBucket& operator=(const S3TestBucket&) = delete;

  const std::string& name() const { return name_; }
  // An object store over the whole bucket (key prefix "").
  S3ObjectStore& store() { return *store_; }

  // A bucket policy denying `action` ("s3:PutObject", "s3:ListBucket", ...)
  // to everyone, on the bucket's objects (on the bucket for ListBucket).
  // RGW applies an explicit Deny to the bucket owner too.
  void Deny(const std::string& action);

  // One signed request to the bucket, path style: `query` is "" or "?...".
  aws::HttpResponse Send(const std::string& method, const std::string& query,
                         const std::string& body);

 private:
  aws::AwsServiceConfig service_;
  std::unique_ptr<aws::HttpClient> http_;
  std::unique_ptr<aws::CredentialsProvider> credentials_;
  std::string name_;
  std::unique_ptr<S3ObjectStore> store_;
};

}  // namespace deltacommit::testing
