// The `service` log store: Transactions commit through the (scripted) commit
// service over HTTP; snapshots read the log from the object store.
#include "deltacommit/logstore/service_log_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/log_path.h"
#include "deltacommit/service_client/log_store_test_util.h"
#include "service/testing/client/service_test_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;

class ServiceLogStoreTest : public ServiceFixture {
 protected:
  void SetUp() override {
    ServiceFixture::SetUp();
    client_ = MakeClient();
    log_ = std::make_unique<ServiceLogStore>(store_, *client_, std::string(kTable));
    // These tests are of the versioned path; appends are tested below and
    // against `deltacommit serve`.
    log_->DisableAssignedVersions();
    auto created = CreateTable(*log_, clock_, sleeper_);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  std::unique_ptr<service_client::HttpCommitServiceClient> client_;
  std::unique_ptr<ServiceLogStore> log_;
};

TEST_F(ServiceLogStoreTest, EveryVersionIsSentInlineAndReadFromTheStore) {
  auto outcome = Append(*log_, LatestSnapshot(*log_), {"a.parquet"}, clock_, sleeper_);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->version, 1);
  std::vector<RecordedRequest> sent = service_.requests();
  ASSERT_EQ(sent.size(), 2u);  // version 0 too: the service creates the table
  EXPECT_EQ(Body(sent[0])["version"], 0);
  EXPECT_EQ(Body(sent[1])["version"], 1);
  EXPECT_EQ(Body(sent[1])["actions"], store_.Get(CommitPath(1)).value());
  auto snapshot = LatestSnapshot(*log_);
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 1);
  EXPECT_EQ(snapshot->active_files().size(), 1u);
  // The service's staged objects are in the listing, and ignored.
  auto listing = log_->List(0);
  ASSERT_TRUE(listing.ok());
  EXPECT_THAT(Keys(*listing), ::testing::Contains(HasSubstr("_staged_commits/")));
  EXPECT_FALSE(log_->ListsRatifiedStagedCommits());
}

TEST_F(ServiceLogStoreTest, AWriterThatLostItsVersionRebasesOnTheWinner) {
  auto stale = LatestSnapshot(*log_);
  ASSERT_TRUE(Append(*log_, stale, {"a.parquet"}, clock_, sleeper_).ok());
  auto outcome = Append(*log_, stale, {"b.parquet"}, clock_, sleeper_);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 2);
  EXPECT_EQ(outcome->rebases, 1);
  auto snapshot = LatestSnapshot(*log_);
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 2);
  EXPECT_EQ(snapshot->active_files().size(), 2u);
}

TEST_F(ServiceLogStoreTest, WriteOfATakenVersionIsAlreadyExists) {
  Status st = log_->Write(0, "{\"commitInfo\":{}}\n");
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("version_taken"));
}

TEST_F(ServiceLogStoreTest, ALostReplyIsSettledByReadingTheVersionBack) {
  // Every answer is lost after the service applied the commit, so the
  // client ends with kUnknownOutcome and the Transaction reads version 1
  // back: it holds this transaction's commit.
  service_.ReplaceCommitAnswers(4, ApiError(502, "bad_gateway", "proxy lost the answer"));
  auto outcome = Append(*log_, LatestSnapshot(*log_), {"a.parquet"}, clock_, sleeper_);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 1);
  EXPECT_EQ(service_.latest_version(), 1);
  EXPECT_EQ(service_.CountRequests("POST"), 1u + 4u);
}

TEST_F(ServiceLogStoreTest, RefusalsPassThroughWithTheServicesMessage) {
  service_.ScriptCommits([](const http::Request&) {
    return std::optional<http::Response>(
        ApiError(403, "forbidden", "token etl may not commit to s3://bucket/events"));
  });
  auto outcome = Append(*log_, LatestSnapshot(*log_), {"a.parquet"}, clock_, sleeper_);
  EXPECT_EQ(outcome.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(outcome.status().message(), HasSubstr("may not commit to s3://bucket/events"));
}

// A blind append is offered to the service first; one that cannot assign
// versions (append_unavailable: here the scripted model always) gets the
// versioned commit instead, and no more offers from this log store.
TEST_F(ServiceLogStoreTest, AnAppendTheServiceDeclinesIsCommittedWithAVersion) {
  ServiceLogStore log(store_, *client_, std::string(kTable));
  ASSERT_TRUE(log.AssignsVersions());
  for (const char* file : {"a.parquet", "b.parquet"}) {
    auto outcome = Append(log, LatestSnapshot(log), {file}, clock_, sleeper_);
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    EXPECT_EQ(outcome->result, CommitResult::kCommitted);
    EXPECT_FALSE(outcome->assigned);
  }
  EXPECT_FALSE(log.AssignsVersions());
  std::vector<RecordedRequest> sent = service_.requests();
  ASSERT_EQ(sent.size(), 4u);  // create; append offer, version 1; version 2
  const auto offer = Body(sent[1]);
  EXPECT_EQ(offer["append"], true);
  EXPECT_EQ(offer["read_version"], 0);
  EXPECT_FALSE(offer.contains("version"));
  // The offer carries a txn (the writer's appId), so a resend is recognised.
  EXPECT_THAT(offer["actions"].get<std::string>(), HasSubstr("\"txn\""));
  EXPECT_EQ(Body(sent[2])["version"], 1);
  EXPECT_EQ(Body(sent[3])["version"], 2);
}

}  // namespace
}  // namespace deltacommit::testing
