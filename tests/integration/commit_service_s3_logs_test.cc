// Credentials never reach the logs: every line the commit service logs
// during a run on RGW (commits, a refused secret, expired credentials,
// background publishing, a log written around the service) is captured at
// trace level, and neither the log nor any reply holds a secret access key,
// a session token or a whole access key id.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "commit_service_fixture.h"

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CommitActions;
using testing::FirstCommitActions;

constexpr char kSessionToken[] = "FQoGZXIvYXdzSESSIONtokenUNDERtest0123456789";  // RGW ignores it
constexpr char kWrongSecret[] = "WRONGsecretKEYunderTEST/0123456789abcdef";

// Sends every log line of the process to a string while alive.
class CapturedLogs {
 public:
  CapturedLogs() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    auto logger = std::make_shared<spdlog::logger>("captured", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLogs() { spdlog::set_default_logger(previous_); }
  std::string text() {
    spdlog::default_logger()->flush();
    return out_.str();
  }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream out_;
};

template <typename Env>
using CommitServiceS3Logs = CommitServiceOnS3Test<Env>;
TYPED_TEST_SUITE(CommitServiceS3Logs, StateStoreEnvs, EnvName);

TYPED_TEST(CommitServiceS3Logs, NoSecretOrSessionTokenIsEverLoggedOrReplied) {
  CapturedLogs logs;
  std::vector<std::string> replies;
  auto service = this->NewService();
  auto send = [&](CommitRequest request) {
    request.access.credentials.session_token = kSessionToken;
    CommitReply reply = service->Commit(request);
    replies.push_back(reply.message);
    return reply;
  };
  // Commits, a replay, a conflict.
  ASSERT_TRUE(send(testing::ServiceCommit(this->Access(), 0, FirstCommitActions("a"))).ok());
  ASSERT_TRUE(send(testing::ServiceCommit(this->Access(), 0, FirstCommitActions("a"))).ok());
  send(testing::ServiceCommit(this->Access(), 0, FirstCommitActions("b")));
  // Refused and expired credentials.
  EXPECT_EQ(send(testing::ServiceCommit(this->Access(kWrongSecret), 1, CommitActions("c"))).outcome,
            CommitOutcome::kCredentialsRejected);
  TableAccess expired = this->Access();
  expired.credentials.expiration_ms = 1'000;
  EXPECT_EQ(send(testing::ServiceCommit(expired, 1, CommitActions("c"))).outcome,
            CommitOutcome::kCredentialsInvalid);
  // Coordinated commits, published in the background.
  const std::string staged = StagedCommitPath(1, NewUuid());
  ASSERT_TRUE(this->reader_->Put(staged, CommitActions("c")).ok());
  ASSERT_TRUE(send(testing::CoordinatedCommit(this->Access(), 1, staged)).ok());
  ASSERT_TRUE(service->publisher().WaitIdle(std::chrono::seconds(30)));
  // A ratified commit whose <v>.json a writer took around the service.
  service->publisher().Stop();
  const std::string staged2 = StagedCommitPath(2, NewUuid());
  ASSERT_TRUE(this->reader_->Put(staged2, CommitActions("d")).ok());
  ASSERT_TRUE(send(testing::CoordinatedCommit(this->Access(), 2, staged2)).ok());
  ASSERT_TRUE(this->reader_->Put(CommitPath(2), CommitActions("theirs")).ok());
  EXPECT_EQ(send(testing::ServiceCommit(this->Access(), 3, CommitActions("e"))).outcome,
            CommitOutcome::kLogInconsistent);

  const std::string text = logs.text();
  EXPECT_THAT(text, HasSubstr("LOG INCONSISTENT"));  // the capture works
  EXPECT_THAT(text, HasSubstr("commit " + this->table_ + " version 0"));
  const std::string key_id = std::getenv("AWS_ACCESS_KEY_ID");
  for (const std::string& secret : {std::string(std::getenv("AWS_SECRET_ACCESS_KEY")),
                                   std::string(kWrongSecret), std::string(kSessionToken), key_id}) {
    EXPECT_THAT(text, Not(HasSubstr(secret)));
    for (const std::string& message : replies) EXPECT_THAT(message, Not(HasSubstr(secret)));
  }
}

}  // namespace
}  // namespace deltacommit::service
