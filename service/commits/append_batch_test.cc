#include "service/commits/append_batch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/action_json.h"
#include "deltacommit/commit_coordinator.h"
#include "deltacommit/table_features.h"

namespace deltacommit::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string AddLine(const std::string& path) {
  return R"({"add":{"path":")" + path +
         R"(","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}})" "\n";
}

std::string TxnLine(const std::string& app, int64_t version) {
  return R"({"txn":{"appId":")" + app + R"(","version":)" + std::to_string(version) + "}}\n";
}

BlindAppend Parsed(const std::string& actions, Version read_version = 0) {
  StatusOr<BlindAppend> a = ParseBlindAppend(actions, read_version);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? *a : BlindAppend{};
}

// A table at version `latest` created at version 0, in-commit timestamps on
// or off.
AppendTableState Table(Version latest, bool ict) {
  AppendTableState s;
  Metadata m;
  m.id = "t";
  m.schema_string = R"({"type":"struct","fields":[]})";
  if (ict) m.configuration["delta.enableInCommitTimestamps"] = "true";
  s.protocol = ProtocolForNewTable(m).value();
  s.metadata = m;
  s.metadata_version = 0;
  s.latest = latest;
  return s;
}

std::vector<Action> Actions(const std::string& content) {
  ActionParser parser;
  return parser.ParseCommit(content).value();
}

TEST(ParseBlindAppendTest, TakesAddsTxnsAndTheWritersTxnId) {
  BlindAppend a = Parsed(R"({"commitInfo":{"txnId":"w1","operation":"WRITE"}})" "\n" +
                             AddLine("a.parquet") + TxnLine("app", 3),
                         5);
  EXPECT_EQ(a.adds.size(), 1u);
  ASSERT_EQ(a.txns.size(), 1u);
  EXPECT_EQ(a.txns[0].version, 3);
  EXPECT_EQ(a.txn_id, "w1");
  EXPECT_EQ(a.read_version, 5);
}

TEST(ParseBlindAppendTest, AnythingButABlindAppendIsRefusedNamingTheLine) {
  const std::string remove =
      R"({"remove":{"path":"a.parquet","deletionTimestamp":1,"dataChange":true}})";
  const std::string no_change =
      R"({"add":{"path":"b","partitionValues":{},"size":1,"modificationTime":1,"dataChange":false}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {AddLine("a") + remove, "line 2: remove: not a blind append"},
      {R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{}","partitionColumns":[],"configuration":{}}})",
       "line 1: metaData: not a blind append"},
      {no_change, "dataChange false"},
      {TxnLine("a", 1) + TxnLine("a", 2), "line 2: a second txn for appId \"a\""},
      {R"({"commitInfo":{}})" "\n" R"({"commitInfo":{}})", "line 2: a second commitInfo"},
      {R"({"commitInfo":{}})", "needs at least one add or txn"},
  };
  for (const auto& [actions, want] : cases) {
    StatusOr<BlindAppend> a = ParseBlindAppend(actions, 0);
    EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument) << actions;
    EXPECT_THAT(a.status().message(), HasSubstr(want)) << actions;
  }
  EXPECT_THAT(ParseBlindAppend(AddLine("a"), -1).status().message(), HasSubstr("read_version -1"));
}

TEST(BuildAppendBatchTest, MergesQueuedAppendsIntoTheNextVersionWithOneCommitInfo) {
  const AppendTableState state = Table(4, false);
  const BlindAppend a = Parsed(R"({"commitInfo":{"txnId":"w1"}})" "\n" + AddLine("a") +
                               TxnLine("app-a", 1));
  const BlindAppend b = Parsed(AddLine("b1") + AddLine("b2"));
  const BlindAppend* requests[] = {&a, &b};
  AppendBatch batch = BuildAppendBatch(state, requests, {}, 1'000, "deltacommit-service");
  EXPECT_EQ(batch.version, 5);
  ASSERT_EQ(batch.results.size(), 2u);
  for (const AppendResult& r : batch.results) {
    EXPECT_EQ(r.outcome, AppendOutcome::kMerged);
    EXPECT_EQ(r.version, 5);
  }
  std::vector<Action> actions = Actions(batch.content);
  ASSERT_EQ(actions.size(), 5u);
  const CommitInfo& info = std::get<CommitInfo>(actions[0]);
  EXPECT_EQ(info.operation, "WRITE");
  EXPECT_EQ(info.is_blind_append, true);
  EXPECT_EQ(info.read_version, 4);
  EXPECT_FALSE(info.in_commit_timestamp.has_value());
  EXPECT_EQ(info.timestamp, 1'000);
  EXPECT_THAT(*info.operation_parameters,
              ElementsAre(std::pair<std::string, std::string>{"mode", "\"Append\""},
                          std::pair<std::string, std::string>{"mergedTxnIds",
                                                              R"("[\"w1\"]")"}));
  EXPECT_EQ(std::get<AddFile>(actions[1]).path, "a");
  EXPECT_EQ(std::get<SetTransaction>(actions[2]).app_id, "app-a");
  EXPECT_EQ(std::get<AddFile>(actions[4]).path, "b2");
}

TEST(BuildAppendBatchTest, InCommitTimestampsIncreaseEvenWhenTheClockGoesBack) {
  AppendTableState state = Table(1, true);
  state.last_in_commit_timestamp = 5'000;
  const BlindAppend a = Parsed(AddLine("a"));
  const BlindAppend* requests[] = {&a};
  AppendBatch batch = BuildAppendBatch(state, requests, {}, 1'000, "e");
  EXPECT_EQ(batch.commit_timestamp_ms, 5'001);
  EXPECT_EQ(std::get<CommitInfo>(Actions(batch.content)[0]).in_commit_timestamp, 5'001);
  ApplyBatch(batch, &state);
  EXPECT_EQ(state.latest, 2);
  EXPECT_EQ(state.last_in_commit_timestamp, 5'001);
}

TEST(BuildAppendBatchTest, AnAppliedTxnIsADuplicateThatSaysWhereItLanded) {
  AppendTableState state = Table(6, false);
  state.app_txns["app"] = AppliedTxn{7, 6};
  const BlindAppend same = Parsed(AddLine("a") + TxnLine("app", 7));
  const BlindAppend older = Parsed(AddLine("a") + TxnLine("app", 5));
  const BlindAppend mixed = Parsed(AddLine("a") + TxnLine("app", 7) + TxnLine("new", 1));
  const BlindAppend* requests[] = {&same, &older, &mixed};
  AppendBatch batch = BuildAppendBatch(state, requests, {}, 1, "e");
  EXPECT_EQ(batch.results[0].outcome, AppendOutcome::kDuplicate);
  EXPECT_EQ(batch.results[0].version, 6);
  EXPECT_EQ(batch.results[1].outcome, AppendOutcome::kDuplicate);
  EXPECT_EQ(batch.results[1].version, -1) << "superseded by txn version 7";
  EXPECT_EQ(batch.results[2].outcome, AppendOutcome::kTxnConflict);
  EXPECT_THAT(batch.results[2].detail, HasSubstr("another writer uses the same appId"));
  EXPECT_TRUE(batch.content.empty());
}

TEST(BuildAppendBatchTest, AMetadataChangeAfterTheReadVersionIsRefused) {
  AppendTableState state = Table(9, false);
  state.metadata_version = 8;
  const BlindAppend stale = Parsed(AddLine("a"), 7);
  const BlindAppend fresh = Parsed(AddLine("b"), 8);
  const BlindAppend* requests[] = {&stale, &fresh};
  AppendBatch batch = BuildAppendBatch(state, requests, {}, 1, "e");
  EXPECT_EQ(batch.results[0].outcome, AppendOutcome::kMetadataChanged);
  EXPECT_EQ(batch.results[0].version, 8);
  EXPECT_EQ(batch.results[1].outcome, AppendOutcome::kMerged);
}

TEST(BuildAppendBatchTest, ASecondAppendOfAnAppAndAFullBatchWaitForTheNext) {
  const AppendTableState state = Table(0, false);
  const BlindAppend a1 = Parsed(AddLine("a1") + TxnLine("a", 1));
  const BlindAppend a2 = Parsed(AddLine("a2") + TxnLine("a", 2));
  const BlindAppend b = Parsed(AddLine("b"));
  const BlindAppend c = Parsed(AddLine("c"));
  const BlindAppend* requests[] = {&a1, &a2, &b, &c};
  AppendBatch batch = BuildAppendBatch(state, requests, BatchLimits{2, 1 << 20}, 1, "e");
  EXPECT_EQ(batch.results[0].outcome, AppendOutcome::kMerged);
  EXPECT_EQ(batch.results[1].outcome, AppendOutcome::kNextBatch);
  EXPECT_EQ(batch.results[2].outcome, AppendOutcome::kMerged);
  EXPECT_EQ(batch.results[3].outcome, AppendOutcome::kNextBatch);
  // One oversized append still goes alone.
  const BlindAppend* big[] = {&b};
  EXPECT_EQ(BuildAppendBatch(state, big, BatchLimits{10, 1}, 1, "e").results[0].outcome,
            AppendOutcome::kMerged);
}

TEST(ApplyCommitTest, TracksMetadataTxnsAndTimestampsOfOtherCommits) {
  AppendTableState state = Table(2, false);
  Metadata changed = *state.metadata;
  changed.configuration["delta.appendOnly"] = "true";
  CommitInfo info;
  info.in_commit_timestamp = 77;
  SetTransaction txn;
  txn.app_id = "stream";
  txn.version = 12;
  ApplyCommit(3, {info, changed, txn}, &state);
  EXPECT_EQ(state.latest, 3);
  EXPECT_EQ(state.metadata_version, 3);
  EXPECT_EQ(state.metadata->configuration.at("delta.appendOnly"), "true");
  EXPECT_EQ(state.last_in_commit_timestamp, 77);
  EXPECT_EQ(state.app_txns.at("stream"), (AppliedTxn{12, 3}));
}

}  // namespace
}  // namespace deltacommit::service
