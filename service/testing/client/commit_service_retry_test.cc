// The commit service client's retries: bounded, only where safe, and a lost
// reply is never reported as a plain failure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "service/testing/client/service_test_fixture.h"
#include "deltacommit/log_path.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr std::string_view kActions = "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n";

ServiceCommitRequest Inline(Version version) {
  ServiceCommitRequest r;
  r.table = std::string(kTable);
  r.version = version;
  r.actions = std::string(kActions);
  return r;
}

// A one-shot latch.
class Latch {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

using RetryTest = ServiceFixture;

TEST_F(RetryTest, ServiceUnavailableIsRetriedABoundedNumberOfTimes) {
  service_.ScriptCommits([](const http::Request&) {
    return std::optional<http::Response>(ApiError(503, "unavailable", "S3 is down"));
  });
  auto client = MakeClient();
  Status st = client->Commit(Inline(1)).status;
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_THAT(st.message(), HasSubstr("after 4 attempts"));
  EXPECT_THAT(st.message(), HasSubstr("S3 is down"));
  EXPECT_EQ(service_.CountRequests("POST"), 4u);
  ASSERT_THAT(sleeper_.sleeps(), SizeIs(3));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_LE(sleeper_.sleeps()[i].count(), 100 << i) << "backoff bound of retry " << i + 1;
  }
}

TEST_F(RetryTest, AServerErrorThatMayHaveBeenAppliedEndsAsUnknownOutcome) {
  service_.ScriptCommits([](const http::Request&) {
    return std::optional<http::Response>(ApiError(500, "internal", "handler failed"));
  });
  auto client = MakeClient();
  Status st = client->Commit(Inline(1)).status;
  EXPECT_EQ(st.code(), StatusCode::kUnknownOutcome) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("may have been applied"));
  EXPECT_EQ(service_.CountRequests("POST"), 4u);
}

TEST_F(RetryTest, AServerErrorThenTheAnswer) {
  std::atomic<int> calls{0};
  service_.ScriptCommits([&calls](const http::Request&) -> std::optional<http::Response> {
    if (calls++ == 0) return ApiError(502, "bad_gateway", "proxy lost it");
    return std::nullopt;  // the model commits
  });
  auto client = MakeClient();
  ServiceCommitResult result = client->Commit(Inline(0));
  EXPECT_TRUE(result.status.ok()) << result.status.ToString();
  EXPECT_EQ(service_.latest_version(), 0);
}

TEST_F(RetryTest, ALostReplyIsResentAndTheServiceAnswersTheSameCommitOnce) {
  // The service applies the commit but answers after the client's timeout.
  service_.DelayCommitAnswers(1, std::chrono::milliseconds(2500));
  auto client = MakeClient("", std::chrono::milliseconds(1000));
  ServiceCommitResult result = client->Commit(Inline(0));
  ASSERT_TRUE(result.status.ok()) << result.status.ToString();
  EXPECT_EQ(service_.CountRequests("POST"), 2u);
  EXPECT_EQ(service_.latest_version(), 0);
  EXPECT_EQ(store_.Get(CommitPath(0)).value(), kActions);
}

TEST_F(RetryTest, AConnectionClosedWithoutAnswerThenAnswersAfterARestart) {
  // The server stops while the commit is in flight: it is applied, the
  // connection closes without an answer; the client's retry reaches the
  // restarted server, which answers the same commit 200.
  Latch arrived, restarted;
  service_.ScriptCommits([&](const http::Request&) -> std::optional<http::Response> {
    arrived.Open();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return std::nullopt;  // the model applies it; the answer is dropped
  });
  // The retry's backoff waits for the restart, so the test needs no timing.
  class WaitingSleeper : public Sleeper {
   public:
    explicit WaitingSleeper(Latch& latch) : latch_(latch) {}
    void Sleep(std::chrono::milliseconds) override { latch_.Wait(); }

   private:
    Latch& latch_;
  } waiting(restarted);
  aws::HttpOptions http_options;
  http_ = aws::NewCurlHttpClient(http_options);
  provider_ = aws::StaticCredentialsProvider(Credentials(), clock_);
  service_client::CommitServiceOptions options{service_.url(),
                                               std::string(ScriptedCommitService::kToken), ""};
  service_client::HttpCommitServiceClient client(options, *http_, *provider_, clock_, waiting);
  auto commit = std::async(std::launch::async, [&] { return client.Commit(Inline(0)); });
  arrived.Wait();
  service_.Stop();  // closes the connection; returns once the handler is done
  service_.ScriptCommits(nullptr);
  ASSERT_TRUE(service_.Start().ok());
  restarted.Open();
  ServiceCommitResult result = commit.get();
  ASSERT_TRUE(result.status.ok()) << result.status.ToString();
  EXPECT_EQ(service_.CountRequests("POST"), 2u);
  EXPECT_EQ(service_.latest_version(), 0);
}

TEST_F(RetryTest, ALostReplyWithNoLaterAnswerIsAnUnknownOutcome) {
  Latch arrived;
  service_.ScriptCommits([&](const http::Request&) -> std::optional<http::Response> {
    arrived.Open();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return std::nullopt;
  });
  auto client = MakeClient();
  auto commit = std::async(std::launch::async, [&] { return client->Commit(Inline(0)); });
  arrived.Wait();
  service_.Stop();  // every retry finds nobody listening: "not sent"
  Status st = commit.get().status;
  EXPECT_EQ(st.code(), StatusCode::kUnknownOutcome) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("after 4 attempts"));
  EXPECT_THAT(st.message(), HasSubstr("may have been applied"));
  EXPECT_EQ(service_.latest_version(), 0);  // it was applied
}

TEST_F(RetryTest, AnUnreachableServiceIsUnavailableNotUnknown) {
  service_.Stop();
  auto client = MakeClient();
  Status st = client->Commit(Inline(0)).status;
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("could not connect"));
  EXPECT_THAT(sleeper_.sleeps(), SizeIs(3));
}

TEST_F(RetryTest, CredentialsThatExpireDuringBackoffAreNotSent) {
  // The first answer is lost (applied); during the backoff the credentials
  // expire, so nothing more is sent, and the outcome stays unknown.
  service_.DelayCommitAnswers(1, std::chrono::milliseconds(2500));
  auto client = MakeClient("", std::chrono::milliseconds(1000));
  class ExpiringSleeper : public Sleeper {
   public:
    explicit ExpiringSleeper(FakeClock& clock) : clock_(clock) {}
    void Sleep(std::chrono::milliseconds) override { clock_.Advance(std::chrono::hours(2)); }

   private:
    FakeClock& clock_;
  } expiring(clock_);
  service_client::CommitServiceOptions options{service_.url(),
                                               std::string(ScriptedCommitService::kToken), ""};
  service_client::HttpCommitServiceClient expiring_client(options, *http_, *provider_, clock_,
                                                          expiring);
  Status st = expiring_client.Commit(Inline(0)).status;
  EXPECT_EQ(st.code(), StatusCode::kUnknownOutcome) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("expired"));
  EXPECT_EQ(service_.CountRequests("POST"), 1u);
  client.reset();
}

}  // namespace
}  // namespace deltacommit::testing
