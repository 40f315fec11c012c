// S3ObjectStoreFactory against a scripted HTTP client: stores sign with the
// request's credentials only, refuse expired ones before sending, and S3
// error replies reach the observer by action and S3 code.
#include "service/commits/s3_object_store_factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "service/commits/testing/commit_requests.h"
#include "service/commits/testing/recording_observer.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Answers every request with `reply` and keeps the requests.
class ScriptedHttpClient : public aws::HttpClient {
 public:
  explicit ScriptedHttpClient(aws::HttpResponse reply) : reply_(std::move(reply)) {}
  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest& request) override {
    std::lock_guard lock(mu_);
    requests_.push_back(request);
    return reply_;
  }
  std::vector<aws::HttpRequest> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  const aws::HttpResponse reply_;
  std::mutex mu_;
  std::vector<aws::HttpRequest> requests_;
};

aws::HttpResponse SignatureMismatch() {
  aws::HttpResponse r;
  r.status = 403;
  r.body = "<Error><Code>SignatureDoesNotMatch</Code><RequestId>req-1</RequestId></Error>";
  return r;
}

TableAccess Access() {
  TableAccess access = testing::TestAccess("s3://bucket/tables/t",
                                           testing::TestCredentials(SystemClock()));
  access.endpoint.service.endpoint_url = "http://127.0.0.1:1";
  access.endpoint.service.region = "us-east-1";
  access.endpoint.service.allow_http = true;
  access.endpoint.service.path_style = true;
  return access;
}

TEST(S3ObjectStoreFactoryTest, SignsWithTheRequestCredentialsAndReportsS3ErrorCodes) {
  ScriptedHttpClient http(SignatureMismatch());
  testing::RecordingObserver observer;
  S3ObjectStoreFactory factory(http, observer, SystemClock(), aws::RetryPolicy{1, {}, {}});
  auto store = factory.Open(Access());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto listing = (*store)->List("_delta_log/");
  EXPECT_EQ(listing.status().code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(listing.status().message(),
              AllOf(HasSubstr("ListObjectsV2"), HasSubstr("SignatureDoesNotMatch"),
                    HasSubstr("the request"), Not(HasSubstr(testing::kTestSecret)),
                    Not(HasSubstr(testing::kTestSessionToken))));
  EXPECT_EQ(observer.S3Errors("ListObjectsV2 SignatureDoesNotMatch"), 1);
  EXPECT_EQ((*store)->Put("_delta_log/x", "y").code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(observer.S3Errors("PutObject SignatureDoesNotMatch"), 1);

  const aws::HttpRequest sent = http.requests().at(0);
  bool token = false;
  bool key_id = false;
  for (const auto& [name, value] : sent.headers) {
    if (name == "x-amz-security-token") token = value == testing::kTestSessionToken;
    if (name == "Authorization") key_id = value.find(testing::kTestKeyId) != std::string::npos;
  }
  EXPECT_TRUE(token) << "the request's session token is sent";
  EXPECT_TRUE(key_id) << "signed with the request's key";
}

TEST(S3ObjectStoreFactoryTest, ExpiredCredentialsAreRefusedBeforeSending) {
  ScriptedHttpClient http(SignatureMismatch());
  S3ObjectStoreFactory factory(http, NoCommitObserver());
  TableAccess access = Access();
  access.credentials.expiration_ms = SystemClock().NowMillis() - 1;
  auto store = factory.Open(access);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Head("_delta_log/x").status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(http.requests().empty());
}

TEST(S3ObjectStoreFactoryTest, NonS3TableIsInvalidArgument) {
  ScriptedHttpClient http(SignatureMismatch());
  S3ObjectStoreFactory factory(http, NoCommitObserver());
  TableAccess access = Access();
  access.table = "gs://bucket/t";
  EXPECT_EQ(factory.Open(access).status().code(), StatusCode::kInvalidArgument);
}

TEST(S3ActionOfTest, NamesTheS3Action) {
  aws::HttpRequest r;
  r.url = "http://h/b/k";
  EXPECT_EQ(S3ActionOf(r), "GetObject");
  r.url = "http://h/b?list-type=2&prefix=x";
  EXPECT_EQ(S3ActionOf(r), "ListObjectsV2");
  r.method = "HEAD";
  EXPECT_EQ(S3ActionOf(r), "HeadObject");
  r.method = "PUT";
  EXPECT_EQ(S3ActionOf(r), "PutObject");
  r.headers = {{"X-Amz-Copy-Source", "/b/src"}};
  EXPECT_EQ(S3ActionOf(r), "CopyObject");
  r.method = "DELETE";
  EXPECT_EQ(S3ActionOf(r), "DeleteObject");
}

}  // namespace
}  // namespace deltacommit::service
