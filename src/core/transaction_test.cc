#include "deltacommit/transaction.h"

#include <gtest/gtest.h>

#include <thread>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/schema.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/forked_child.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

using testing::OutputOfForkedChild;

AddFile Add(std::string path) {
  AddFile a;
  a.path = std::move(path);
  a.size = 10;
  return a;
}

// A log where another writer always takes the version just before ours:
// every write of ours loses a race without a conflict.
class AlwaysBeatenLogStore : public LogStore {
 public:
  explicit AlwaysBeatenLogStore(LogStore& log) : log_(log) {}
  std::string Describe() const override { return log_.Describe(); }
  Status Write(Version version, std::string_view content) override {
    CommitInfo info;
    info.operation = "WRITE";
    const std::string rival =
        ActionsToCommit({info, Add("rival-" + std::to_string(version) + ".parquet")});
    if (Status st = log_.Write(version, rival); !st.ok()) return st;
    return log_.Write(version, content);
  }
  StatusOr<std::vector<ObjectMeta>> List(Version from) override { return log_.List(from); }
  StatusOr<std::string> Read(std::string_view key) override { return log_.Read(key); }

 private:
  LogStore& log_;
};

// A log store whose service would assign versions but declines every
// append (the Transaction then commits it with a version), recording the
// writer appId each append was offered with.
class AppIdRecordingLogStore : public LogStore {
 public:
  explicit AppIdRecordingLogStore(LogStore& log) : log_(log) {}
  std::string Describe() const override { return log_.Describe(); }
  Status Write(Version version, std::string_view content) override {
    return log_.Write(version, content);
  }
  StatusOr<std::vector<ObjectMeta>> List(Version from) override { return log_.List(from); }
  StatusOr<std::string> Read(std::string_view key) override { return log_.Read(key); }
  bool AssignsVersions() const override { return true; }
  StatusOr<BlindAppendResult> AppendBlind(Version, std::string_view content) override {
    constexpr std::string_view kAppId = R"("appId":")";
    const size_t at = content.find(kAppId);
    if (at == std::string_view::npos) return InternalError("no txn in the append");
    const size_t start = at + kAppId.size();
    offered.emplace_back(content.substr(start, content.find('"', start) - start));
    return FailedPreconditionError("append_unavailable");
  }
  std::vector<std::string> offered;

 private:
  LogStore& log_;
};

class TransactionTest : public ::testing::Test {
 protected:
  void SetUp() override { CreateTable({}); }

  void CreateTable(StringMap configuration) {
    Protocol p;
    Metadata m;
    m.id = "tbl";
    m.schema_string = SchemaStringFromArgument("id:long").value();
    m.configuration = std::move(configuration);
    if (m.configuration.count("delta.enableInCommitTimestamps")) {
      p.min_writer_version = 7;
      p.writer_features = std::vector<std::string>{"inCommitTimestamp"};
    }
    Transaction txn(log_, nullptr, {}, clock_, sleeper_);
    txn.AddAction(p);
    txn.AddAction(m);
    auto outcome = txn.Commit();
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    ASSERT_EQ(outcome->version, 0);
  }

  std::shared_ptr<const Snapshot> Latest() {
    auto s = LoadSnapshot(log_, {});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return *s;
  }

  CommitOutcome CommitAdds(std::shared_ptr<const Snapshot> snap, std::vector<std::string> paths) {
    Transaction txn(log_, std::move(snap), {}, clock_, sleeper_);
    for (auto& p : paths) txn.AddAction(Add(p));
    auto outcome = txn.Commit();
    EXPECT_TRUE(outcome.ok()) << outcome.status().ToString();
    return *outcome;
  }

  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  MemoryObjectStore memory_{clock_};
  FaultInjectingObjectStore store_{memory_, sleeper_};
  ObjectStoreLogStore log_{store_, "memory"};
};

TEST_F(TransactionTest, CommitWritesReadVersionPlusOneWithCommitInfoFirst) {
  CommitOutcome o = CommitAdds(Latest(), {"a.parquet"});
  EXPECT_EQ(o.result, CommitResult::kCommitted);
  EXPECT_EQ(o.version, 1);
  EXPECT_EQ(o.attempts, 1);
  auto actions = ReadCommit(log_, 1);
  ASSERT_TRUE(actions.ok());
  ASSERT_EQ(actions->size(), 2u);
  auto* info = std::get_if<CommitInfo>(&actions->front());
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->operation, "WRITE");
  EXPECT_EQ(info->read_version, 0);
  EXPECT_EQ(info->is_blind_append, true);
  EXPECT_EQ(info->isolation_level, "WriteSerializable");
  EXPECT_TRUE(info->txn_id.has_value());
  EXPECT_FALSE(info->in_commit_timestamp.has_value());
}

TEST_F(TransactionTest, StaleBlindAppendRebasesOverConcurrentAppends) {
  auto stale = Latest();
  CommitAdds(Latest(), {"x.parquet"});
  CommitAdds(Latest(), {"y.parquet"});
  CommitOutcome o = CommitAdds(stale, {"z.parquet"});
  EXPECT_EQ(o.result, CommitResult::kCommitted);
  EXPECT_EQ(o.version, 3);
  // One lost write: version 2 is found by listing, not by losing again.
  EXPECT_EQ(o.attempts, 2);
  EXPECT_EQ(o.rebases, 2);
  EXPECT_EQ(Latest()->active_files().size(), 3u);
  EXPECT_EQ(sleeper_.sleeps().size(), 1u);  // backoff after the lost race
}

TEST_F(TransactionTest, EachWinningCommitIsReadOnce) {
  auto stale = Latest();
  CommitAdds(Latest(), {"x.parquet"});
  CommitAdds(Latest(), {"y.parquet"});
  store_.ResetCallCounts();
  CommitOutcome o = CommitAdds(stale, {"z.parquet"});
  EXPECT_EQ(o.rebases, 2);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kGet), 2);          // versions 1 and 2, once each
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kList), 1);         // what was committed meanwhile
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kPutIfAbsent), 2);  // lost 1, wrote 3
}

TEST_F(TransactionTest, AWriterFarBehindCatchesUpWithOneLostWrite) {
  auto stale = Latest();
  for (int i = 0; i < 30; ++i) CommitAdds(Latest(), {"f" + std::to_string(i)});
  store_.ResetCallCounts();
  CommitOutcome o = CommitAdds(stale, {"late.parquet"});
  EXPECT_EQ(o.version, 31);
  EXPECT_EQ(o.rebases, 30);
  EXPECT_EQ(o.attempts, 2);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kPutIfAbsent), 2);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kGet), 30);  // each winner checked once
}

TEST_F(TransactionTest, ACatchUpStopsAtTheFirstConflictingWinner) {
  CommitAdds(Latest(), {"shared.parquet"});
  auto stale = Latest();
  CommitAdds(Latest(), {"a.parquet"});
  {
    Transaction remover(log_, Latest(), {}, clock_, sleeper_);
    RemoveFile rm;
    rm.path = "shared.parquet";
    remover.AddAction(rm);
    ASSERT_EQ(remover.Commit()->result, CommitResult::kCommitted);  // version 3
  }
  CommitAdds(Latest(), {"b.parquet"});
  Transaction txn(log_, stale, {}, clock_, sleeper_);
  txn.AddReadFile("shared.parquet");
  RemoveFile rm;
  rm.path = "shared.parquet";
  txn.AddAction(rm);
  auto o = txn.Commit();
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_EQ(o->result, CommitResult::kConflict);
  EXPECT_EQ(o->conflict->winning_version, 3);
  EXPECT_EQ(Latest()->version(), 4);  // the loser wrote nothing
}

TEST_F(TransactionTest, TwoRemovesOfSameFileExactlyOneWins) {
  CommitAdds(Latest(), {"shared.parquet"});
  auto snap = Latest();
  auto remover = [&](std::shared_ptr<const Snapshot> s) {
    Transaction txn(log_, s, {}, clock_, sleeper_);
    txn.AddReadFile("shared.parquet");
    RemoveFile rm;
    rm.path = "shared.parquet";
    txn.AddAction(rm);
    return txn.Commit();
  };
  auto first = remover(snap);
  auto second = remover(snap);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->result, CommitResult::kCommitted);
  ASSERT_EQ(second->result, CommitResult::kConflict);
  EXPECT_EQ(second->conflict->type, ConflictType::kConcurrentDeleteRead);
  EXPECT_EQ(second->conflict->winning_version, 2);
  EXPECT_EQ(Latest()->version(), 2);  // the loser wrote nothing
}

TEST_F(TransactionTest, LostReplyOnWrittenCommitIsDetectedAsOurs) {
  store_.DropReplyOnNthCall(ObjectStoreOp::kPutIfAbsent, 1);
  CommitOutcome o = CommitAdds(Latest(), {"a.parquet"});
  EXPECT_EQ(o.result, CommitResult::kCommitted);
  EXPECT_EQ(o.version, 1);
  EXPECT_EQ(Latest()->version(), 1);  // written once, not twice
  EXPECT_EQ(Latest()->active_files().size(), 1u);
}

TEST_F(TransactionTest, LostRequestIsRetriedAtSameVersion) {
  // The write never reached the store but the writer cannot know that.
  store_.FailNthCall(ObjectStoreOp::kPutIfAbsent, 1, UnknownOutcomeError("timeout"));
  CommitOutcome o = CommitAdds(Latest(), {"a.parquet"});
  EXPECT_EQ(o.result, CommitResult::kCommitted);
  EXPECT_EQ(o.version, 1);
}

TEST_F(TransactionTest, AppTransactionMakesRetryIdempotent) {
  auto snap = Latest();
  Transaction first(log_, snap, {}, clock_, sleeper_);
  first.AddAction(Add("a.parquet"));
  first.SetAppTransaction("job-1", 5);
  ASSERT_EQ(first.Commit()->result, CommitResult::kCommitted);
  // A retry from the same stale snapshot finds its own txn in the winner.
  Transaction retry(log_, snap, {}, clock_, sleeper_);
  retry.AddAction(Add("a-retry.parquet"));
  retry.SetAppTransaction("job-1", 5);
  auto o = retry.Commit();
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->result, CommitResult::kAlreadyCommitted);
  // And from a fresh snapshot, without writing.
  Transaction again(log_, Latest(), {}, clock_, sleeper_);
  again.AddAction(Add("a-again.parquet"));
  again.SetAppTransaction("job-1", 5);
  EXPECT_EQ(again.Commit()->result, CommitResult::kAlreadyCommitted);
  EXPECT_EQ(Latest()->version(), 1);
  EXPECT_EQ(Latest()->AppVersion("job-1"), 5);
}

// An append without a txn of its own takes a writer appId held by no
// other append of the process; one after another reuse it. A forked child
// starts with none of its parent's: both would number their appends alike.
TEST_F(TransactionTest, AppendsWithoutATxnTakeAWriterAppIdNoOtherAppendHolds) {
  AppIdRecordingLogStore log(log_);
  auto offer = [&](const std::string& path) {
    Transaction txn(log, Latest(), {}, clock_, sleeper_);
    txn.AddAction(Add(path));
    auto outcome = txn.Commit();
    EXPECT_TRUE(outcome.ok()) << outcome.status().ToString();
    return log.offered.empty() ? std::string() : log.offered.back();
  };
  const std::string first = offer("a.parquet");
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(offer("b.parquet"), first) << "reused once the first append ended";
  {
    Transaction held(log, Latest(), {}, clock_, sleeper_);
    held.AddAction(Add("c.parquet"));
    ASSERT_TRUE(held.Commit().ok());
    const std::string held_id = log.offered.back();
    EXPECT_NE(offer("d.parquet"), held_id) << "taken while `held` holds its appId";
  }
  // Two children, one after the other, each with an appId of its own, and
  // none the parent takes next.
  const std::optional<std::string> child = OutputOfForkedChild([&] { return offer("c1.parquet"); });
  const std::optional<std::string> sibling =
      OutputOfForkedChild([&] { return offer("c2.parquet"); });
  ASSERT_TRUE(child.has_value() && sibling.has_value());
  EXPECT_TRUE(child->starts_with("deltacommit-writer-")) << *child;
  EXPECT_NE(*child, first) << "the child's appIds are its own";
  EXPECT_NE(*sibling, *child) << "so are its sibling's";
  {
    Transaction held_a(log, Latest(), {}, clock_, sleeper_);
    held_a.AddAction(Add("f.parquet"));
    ASSERT_TRUE(held_a.Commit().ok());
    Transaction held_b(log, Latest(), {}, clock_, sleeper_);
    held_b.AddAction(Add("g.parquet"));
    ASSERT_TRUE(held_b.Commit().ok());
    const std::string parents_new = offer("h.parquet");  // none free: a new one
    EXPECT_NE(parents_new, *child);
    EXPECT_NE(parents_new, *sibling);
  }
  EXPECT_EQ(offer("e.parquet"), first) << "the parent's stay its own";
}

TEST_F(TransactionTest, GivesUpAfterMaxAttemptsWithClearError) {
  auto stale = Latest();
  for (int i = 0; i < 3; ++i) CommitAdds(Latest(), {"f" + std::to_string(i)});
  TransactionOptions o;
  o.max_attempts = 2;
  AlwaysBeatenLogStore beaten(log_);
  Transaction txn(beaten, stale, o, clock_, sleeper_);
  txn.AddAction(Add("late.parquet"));
  auto outcome = txn.Commit();
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(outcome.status().message().find("gave up after 2 attempts"), std::string::npos);
}

TEST_F(TransactionTest, BackoffIsBoundedFullJitter) {
  TransactionOptions o;
  o.backoff_base = std::chrono::milliseconds(4);
  o.backoff_cap = std::chrono::milliseconds(50);
  auto stale = Latest();
  for (int i = 0; i < 10; ++i) CommitAdds(Latest(), {"f" + std::to_string(i)});
  sleeper_.Clear();
  o.max_attempts = 10;
  AlwaysBeatenLogStore beaten(log_);
  Transaction txn(beaten, stale, o, clock_, sleeper_);
  txn.AddAction(Add("late.parquet"));
  ASSERT_EQ(txn.Commit().status().code(), StatusCode::kResourceExhausted);
  ASSERT_EQ(sleeper_.sleeps().size(), 10u);  // after each lost race
  for (auto d : sleeper_.sleeps()) {
    EXPECT_GE(d.count(), 0);
    EXPECT_LE(d.count(), 50);
  }
}

TEST_F(TransactionTest, RejectsActionsThatMayNotBeCommitted) {
  auto expect_invalid = [&](Action a, const std::string& needle) {
    Transaction txn(log_, Latest(), {}, clock_, sleeper_);
    txn.AddAction(std::move(a));
    auto o = txn.Commit();
    ASSERT_FALSE(o.ok()) << needle;
    EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(o.status().message().find(needle), std::string::npos) << o.status().message();
  };
  expect_invalid(CommitInfo{}, "commitInfo");
  expect_invalid(UnknownAction{"futureThing", "{}"}, "futureThing");
  expect_invalid(Add("../outside.parquet"), "must stay inside the table");
  expect_invalid(Add("%2E%2E/escape.parquet"), "must stay inside the table");
  expect_invalid(Add("_delta_log/x.json"), "is inside _delta_log");
  expect_invalid(Add("s3://elsewhere/x.parquet"), "is an absolute URI");
  AddFile negative = Add("n.parquet");
  negative.size = -1;
  expect_invalid(negative, "size -1 is negative");
  expect_invalid(Sidecar{}, "belongs in checkpoints");
  EXPECT_EQ(Latest()->version(), 0);
}

TEST_F(TransactionTest, CreatingNeedsProtocolAndMetadata) {
  MemoryObjectStore other(clock_);
  ObjectStoreLogStore log(other, "memory");
  Transaction txn(log, nullptr, {}, clock_, sleeper_);
  txn.AddAction(Add("a"));
  auto o = txn.Commit();
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("protocol and a metaData"), std::string::npos);
}

TEST_F(TransactionTest, ConcurrentCreateOneWinsOtherConflicts) {
  MemoryObjectStore other(clock_);
  ObjectStoreLogStore log(other, "memory");
  auto create = [&] {
    Transaction txn(log, nullptr, {}, clock_, sleeper_);
    txn.AddAction(Protocol{});
    Metadata m;
    m.id = NewUuid();
    m.schema_string = SchemaStringFromArgument("id:long").value();
    txn.AddAction(m);
    return txn.Commit();
  };
  auto a = create();
  auto b = create();
  EXPECT_EQ(a->result, CommitResult::kCommitted);
  EXPECT_EQ(b->result, CommitResult::kConflict);
}

TEST_F(TransactionTest, InCommitTimestampsStrictlyIncreaseEvenWhenClockGoesBack) {
  MemoryObjectStore other(clock_);
  ObjectStoreLogStore log(other, "memory");
  {
    Transaction txn(log, nullptr, {}, clock_, sleeper_);
    Protocol p;
    p.min_writer_version = 7;
    p.writer_features = std::vector<std::string>{"inCommitTimestamp"};
    Metadata m;
    m.id = "t";
    m.schema_string = SchemaStringFromArgument("id:long").value();
    m.configuration["delta.enableInCommitTimestamps"] = "true";
    txn.AddAction(p);
    txn.AddAction(m);
    ASSERT_TRUE(txn.Commit().ok());
  }
  auto s0 = LoadSnapshot(log, {}).value();
  ASSERT_TRUE(s0->in_commit_timestamp().has_value());
  clock_.SetMillis(*s0->in_commit_timestamp() - 1000);  // clock skew
  Transaction txn(log, s0, {}, clock_, sleeper_);
  txn.AddAction(Add("a"));
  ASSERT_TRUE(txn.Commit().ok());
  auto s1 = LoadSnapshot(log, {}).value();
  EXPECT_GT(*s1->in_commit_timestamp(), *s0->in_commit_timestamp());
  auto actions = ReadCommit(log, 1).value();
  EXPECT_TRUE(std::holds_alternative<CommitInfo>(actions.front()));
}

TEST_F(TransactionTest, ManyThreadsBlindAppendEveryCommitLandsOnce) {
  constexpr int kThreads = 8, kCommits = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommits; ++i) {
        Transaction txn(log_, LoadSnapshot(log_, {}).value(), {}, clock_, sleeper_);
        txn.AddAction(Add("t" + std::to_string(t) + "-" + std::to_string(i)));
        auto o = txn.Commit();
        ASSERT_TRUE(o.ok()) << o.status().ToString();
        ASSERT_EQ(o->result, CommitResult::kCommitted);
      }
    });
  }
  for (auto& th : threads) th.join();
  auto s = Latest();
  EXPECT_EQ(s->version(), kThreads * kCommits);
  EXPECT_EQ(s->active_files().size(), static_cast<size_t>(kThreads * kCommits));
}

}  // namespace
}  // namespace deltacommit
