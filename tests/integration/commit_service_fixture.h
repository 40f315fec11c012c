// The commit service on the test servers: real S3 (Ceph RGW, real SigV4)
// through S3ObjectStoreFactory, and a state store per Env (SQLite in a
// temporary file, or DynamoDB on dynalite; tests/contract/state_store_envs.h).
// Each test gets a fresh table URI under the test bucket.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/test_servers.h"
#include "contract/state_store_envs.h"
#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/log_path.h"
#include "deltacommit/s3/s3_object_store.h"
#include "service/commits/commit_service.h"
#include "service/commits/s3_object_store_factory.h"
#include "service/commits/testing/commit_requests.h"
#include "service/commits/testing/recording_observer.h"

namespace deltacommit::service {

// Counts the requests that reach the shared HTTP client.
class CountingHttpClient : public aws::HttpClient {
 public:
  explicit CountingHttpClient(aws::HttpClient& base) : base_(base) {}
  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest& request) override {
    ++sent_;
    return base_.Send(request);
  }
  int64_t sent() const { return sent_.load(); }

 private:
  aws::HttpClient& base_;
  std::atomic<int64_t> sent_{0};
};

struct EnvName {
  template <typename Env>
  static std::string GetName(int /*index*/) {
    return Env::kName;
  }
};

template <typename Env>
class CommitServiceOnS3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_S3();
    if constexpr (requires { Env::Available(); }) {
      if (!Env::Available()) {
        DC_REQUIRE_DYNAMODB();
      }
    }
    env_ = std::make_unique<Env>();
    auto endpoint = aws::ResolveServiceConfig("s3", {});
    ASSERT_TRUE(endpoint.ok()) << endpoint.status().ToString();
    endpoint_.name = "test-rgw";
    endpoint_.service = *endpoint;
    endpoint_.enforces_if_none_match = true;  // RGW does (TESTINFRA.md)
    bucket_ = std::getenv("DELTACOMMIT_TEST_BUCKET");
    prefix_ = "tests/commit-service-" + NewUuid();
    table_ = "s3://" + bucket_ + "/" + prefix_;
    factory_ = std::make_unique<S3ObjectStoreFactory>(counting_http_, observer_);
    reader_credentials_ = aws::DefaultCredentialsChain({});
    reader_ = std::make_unique<S3ObjectStore>(S3StoreConfig{bucket_, prefix_, *endpoint, {}},
                                              *http_, *reader_credentials_);
  }

  // A service instance over `state` (default: the env's store).
  std::unique_ptr<CommitService> NewService(StateStore* state = nullptr,
                                            CommitServiceOptions options = {}) {
    options.observer = &observer_;
    return std::make_unique<CommitService>(state ? *state : env_->store(), *factory_, options);
  }

  // The test user's keys as a writer would send them: with an expiration
  // (RGW's user has no session token).
  TableAccess Access(std::string secret = "") {
    aws::Credentials c;
    c.access_key_id = std::getenv("AWS_ACCESS_KEY_ID");
    c.secret_access_key = secret.empty() ? std::getenv("AWS_SECRET_ACCESS_KEY") : secret;
    c.expiration_ms = SystemClock().NowMillis() + 3'600'000;
    TableAccess access;
    access.table = table_;
    access.endpoint = endpoint_;
    access.credentials = std::move(c);
    return access;
  }

  std::string Read(const std::string& key) {
    auto data = reader_->Get(key);
    return data.ok() ? *data : "<" + data.status().ToString() + ">";
  }
  // Keys under _delta_log/ of the given type, in order.
  std::vector<std::string> LogKeys(LogFileType type) {
    std::vector<std::string> keys;
    auto listing = reader_->List(kLogDir);
    EXPECT_TRUE(listing.ok()) << listing.status().ToString();
    if (!listing.ok()) return keys;
    for (const ObjectMeta& m : *listing) {
      if (ParseLogPath(m.key.substr(kLogDir.size())).type == type) keys.push_back(m.key);
    }
    return keys;
  }
  // Checks that _delta_log holds versions 0..count-1, each once, and returns
  // their contents in version order.
  std::vector<std::string> ContiguousCommits(size_t count) {
    std::vector<std::string> keys = LogKeys(LogFileType::kCommit);
    EXPECT_EQ(keys.size(), count);
    std::vector<std::string> contents;
    for (size_t v = 0; v < keys.size(); ++v) {
      EXPECT_EQ(keys[v], CommitPath(static_cast<Version>(v))) << "versions not contiguous";
      contents.push_back(Read(keys[v]));
    }
    return contents;
  }

  std::unique_ptr<Env> env_;
  std::unique_ptr<aws::HttpClient> http_ = aws::NewCurlHttpClient();
  CountingHttpClient counting_http_{*http_};
  testing::RecordingObserver observer_;
  S3Endpoint endpoint_;
  std::string bucket_;
  std::string prefix_;
  std::string table_;
  std::unique_ptr<S3ObjectStoreFactory> factory_;
  std::unique_ptr<aws::CredentialsProvider> reader_credentials_;
  std::unique_ptr<S3ObjectStore> reader_;
};

using StateStoreEnvs = ::testing::Types<SqliteEnv, DynamoDbEnv>;

}  // namespace deltacommit::service
