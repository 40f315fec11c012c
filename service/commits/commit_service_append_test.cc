// CommitService appends (docs/protocols/group-commit.md): server-assigned
// versions, group commit, duplicates by txn, the blind-append rules, on
// MemoryObjectStores and SQLite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <set>
#include <thread>

#include "deltacommit/action_json.h"
#include "deltacommit/testing/recording_step_hooks.h"
#include "service/commits/commit_service_fixture.h"

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;

std::string AddLine(const std::string& path) { return testing::AppendActions(path); }

std::string TxnLine(const std::string& app, int64_t version) {
  return R"({"txn":{"appId":")" + app + R"(","version":)" + std::to_string(version) + "}}\n";
}

std::string CreateActions(bool in_commit_timestamps) {
  return testing::CreateTableActions(in_commit_timestamps);
}

class AppendTest : public CommitServiceTest {
 protected:
  ~AppendTest() override { StopService(); }

  void Create(bool in_commit_timestamps = false) {
    ASSERT_TRUE(CommitInline(0, CreateActions(in_commit_timestamps)).ok());
  }
  CommitReply Append(const std::string& actions, Version read_version = 0) {
    return service().Commit(testing::AppendCommit(Access(), read_version, actions));
  }
  std::vector<Action> ActionsOf(Version version) {
    ActionParser parser;
    auto parsed = parser.ParseCommit(Read(CommitPath(version)));
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    return parsed.ok() ? *parsed : std::vector<Action>{};
  }
  std::vector<std::string> AddedPaths(Version version) {
    std::vector<std::string> paths;
    for (const Action& a : ActionsOf(version)) {
      if (const auto* add = std::get_if<AddFile>(&a)) paths.push_back(add->path);
    }
    return paths;
  }
  std::optional<CommitInfo> InfoOf(Version version) {
    for (const Action& a : ActionsOf(version)) {
      if (const auto* info = std::get_if<CommitInfo>(&a)) return *info;
    }
    return std::nullopt;
  }

  RecordingStepHooks hooks_;
};

TEST_F(AppendTest, TheServiceAssignsTheNextVersionAndWritesOneCommitInfo) {
  Create();
  CommitReply reply = Append(R"({"commitInfo":{"txnId":"w1"}})" "\n" + AddLine("a.parquet"));
  ASSERT_TRUE(reply.ok()) << reply.message;
  EXPECT_EQ(reply.version, 1);
  EXPECT_TRUE(reply.published);
  EXPECT_EQ(reply.merged, 1);
  EXPECT_EQ(AddedPaths(1), std::vector<std::string>{"a.parquet"});
  std::optional<CommitInfo> info = InfoOf(1);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->operation, "WRITE");
  EXPECT_EQ(info->is_blind_append, true);
  EXPECT_EQ(info->read_version, 0);
  EXPECT_THAT(Read(CommitPath(1)), HasSubstr(R"(\"w1\")"));  // in mergedTxnIds
  EXPECT_TRUE(StagedFiles().empty());
  ASSERT_TRUE(Append(AddLine("b.parquet")).ok());
  EXPECT_EQ(AddedPaths(2), std::vector<std::string>{"b.parquet"});
}

TEST_F(AppendTest, ConcurrentAppendsAreMergedIntoFewerVersionsEachFileOnce) {
  Create();
  // The first batch is held at its stage step until every other append is
  // queued behind it, so the next batch has several to merge.
  constexpr int kWriters = 12;
  std::atomic<int> arrived{0};
  std::atomic<bool> held{false};
  hooks_.SetCallback([&](std::string_view step) {
    if (step == "service/append-after-stage" && !held.exchange(true)) {
      while (arrived.load() < kWriters) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return OkStatus();
  });
  CommitServiceOptions options;
  options.hooks = &hooks_;
  NewService(options);
  std::vector<CommitReply> replies(kWriters);
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] {
      ++arrived;
      replies[static_cast<size_t>(i)] =
          Append(AddLine("f" + std::to_string(i)) + TxnLine("w" + std::to_string(i), 1));
    });
  }
  for (std::thread& t : writers) t.join();
  std::set<Version> versions;
  int64_t merged_total = 0;
  for (const CommitReply& r : replies) {
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_TRUE(r.published);
    if (versions.insert(r.version).second) merged_total += r.merged;
  }
  EXPECT_EQ(merged_total, kWriters);
  EXPECT_LT(versions.size(), static_cast<size_t>(kWriters));
  EXPECT_EQ(*versions.begin(), 1);
  EXPECT_EQ(*versions.rbegin(), static_cast<Version>(versions.size()));  // contiguous
  std::multiset<std::string> files;
  for (Version v : versions) {
    for (const std::string& p : AddedPaths(v)) files.insert(p);
  }
  EXPECT_EQ(files.size(), static_cast<size_t>(kWriters));
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(files.count("f" + std::to_string(i)), 1u);
  EXPECT_EQ(CommitFiles().size(), versions.size() + 1);
}

// A burst of appends from an appId the table has never seen reads the state
// store once for it (a negative cache), not once per append.
TEST_F(AppendTest, ABurstFromANewAppIdReadsTheStateStoreOnce) {
  Create();
  constexpr int kBurst = 5;
  std::atomic<int> queued{0};
  std::atomic<bool> holding{false};
  std::atomic<bool> hold{false};
  hooks_.SetCallback([&](std::string_view step) {
    if (step == "service/append-after-stage" && hold.exchange(false)) {
      holding = true;
      while (queued.load() < kBurst) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return OkStatus();
  });
  CommitServiceOptions options;
  options.hooks = &hooks_;
  NewService(options);
  ASSERT_TRUE(Append(AddLine("warm") + TxnLine("warm", 1)).ok());  // tracks the table
  state_->ResetCallCounts();
  // A leader's batch is held until the burst is queued behind it, so one
  // batch sees all of the burst.
  hold = true;
  std::thread leader([&] { EXPECT_TRUE(Append(AddLine("lead") + TxnLine("lead", 1), 1).ok()); });
  while (!holding.load()) std::this_thread::yield();
  std::vector<std::thread> writers;
  std::vector<CommitReply> replies(kBurst);
  for (int i = 0; i < kBurst; ++i) {
    writers.emplace_back([&, i] {
      ++queued;
      replies[static_cast<size_t>(i)] =
          Append(AddLine("b" + std::to_string(i)) + TxnLine("burst", i + 1), 1);
    });
  }
  leader.join();
  for (std::thread& t : writers) t.join();
  for (const CommitReply& r : replies) EXPECT_TRUE(r.ok()) << r.message;
  // One read for "lead", one for "burst".
  EXPECT_EQ(state_->CallCount(testing::StateStoreOp::kLatestAppTxn), 2);
}

// Without group commit each batch answers one append; a long queue drains
// one by one, and nobody is refused for having waited.
TEST_F(AppendTest, WithoutGroupCommitALongQueueDrainsOneVersionEach) {
  Create();
  CommitServiceOptions options;
  options.appends.batch.max_appends = 1;
  NewService(options);
  constexpr int kWriters = 150;
  std::vector<CommitReply> replies(kWriters);
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] {
      replies[static_cast<size_t>(i)] =
          Append(AddLine("f" + std::to_string(i)) + TxnLine("w" + std::to_string(i), 1));
    });
  }
  for (std::thread& t : writers) t.join();
  std::set<Version> versions;
  for (const CommitReply& r : replies) {
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.merged, 1);
    versions.insert(r.version);
  }
  EXPECT_EQ(versions.size(), static_cast<size_t>(kWriters));
  EXPECT_EQ(CommitFiles().size(), static_cast<size_t>(kWriters + 1));
}

// S3 refusing a batch leader's credentials answers that leader only: an
// append with good credentials queued behind it still lands. Which waiting
// thread leads the next batch is the scheduler's choice, so both arrival
// orders are run; in at least one the bad writer leads (and is refused).
TEST_F(AppendTest, ABadLeadersRefusedCredentialsDoNotFailTheOthers) {
  Create();
  std::atomic<bool> hold{false}, holding{false};
  hooks_.SetCallback([&](std::string_view step) {
    if (step == "service/append-after-stage" && hold.exchange(false)) {
      holding = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return OkStatus();
  });
  CommitServiceOptions options;
  options.hooks = &hooks_;
  NewService(options);
  int refused = 0;
  for (const bool bad_first : {true, false}) {
    hold = true;
    holding = false;
    const std::string round = bad_first ? "1" : "2";
    std::thread first([&] { EXPECT_TRUE(Append(AddLine("first" + round)).ok()); });
    while (!holding) std::this_thread::yield();
    CommitReply bad, good;
    std::function<void()> send_bad = [&] {
      bad = service().Commit(testing::AppendCommit(
          Access("WRONGsecret"), 0, AddLine("bad" + round) + TxnLine("bad" + round, 1)));
    };
    std::function<void()> send_good = [&] { good = Append(AddLine("good" + round) + TxnLine("good" + round, 1)); };
    std::thread a(bad_first ? send_bad : send_good);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::thread b(bad_first ? send_good : send_bad);
    first.join();
    a.join();
    b.join();
    ASSERT_TRUE(good.ok()) << CommitOutcomeName(good.outcome) << ": " << good.message;
    // Refused when it led; else merged into the good writer's batch, which
    // its token allowed.
    ASSERT_TRUE(bad.ok() || bad.outcome == CommitOutcome::kCredentialsRejected)
        << CommitOutcomeName(bad.outcome) << ": " << bad.message;
    refused += bad.ok() ? 0 : 1;
  }
  EXPECT_GE(refused, 1) << "the bad writer never led a batch: the test tested nothing";
}

TEST_F(AppendTest, AReplayedTxnIsADuplicateAnsweredWithItsVersion) {
  Create();
  const std::string append = AddLine("a.parquet") + TxnLine("app", 7);
  ASSERT_TRUE(Append(append).ok());
  CommitReply again = Append(append);
  ASSERT_TRUE(again.ok()) << again.message;
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.version, 1);
  EXPECT_EQ(CommitFiles().size(), 2u);
  // Remembered by the state store across service instances too.
  NewService();
  CommitReply third = Append(append);
  EXPECT_TRUE(third.duplicate);
  EXPECT_EQ(third.version, 1);
  // After a metadata change a new instance reads the log back to version 2
  // only: the state store's record of the txn answers.
  ASSERT_TRUE(CommitInline(2, CreateActions(false)).ok());
  NewService();
  CommitReply fourth = Append(append);
  EXPECT_TRUE(fourth.duplicate);
  EXPECT_EQ(fourth.version, 1);
  CommitReply mixed = Append(AddLine("b") + TxnLine("app", 7) + TxnLine("other", 1), 2);
  EXPECT_EQ(mixed.outcome, CommitOutcome::kTxnConflict);
  EXPECT_THAT(mixed.message, HasSubstr("appId \"app\""));
}

TEST_F(AppendTest, ACrashAfterRatifyIsFoundByTheRetrysTxn) {
  Create();
  hooks_.FailAt("service/append-after-ratify", UnavailableError("crash"));
  CommitServiceOptions options;
  options.hooks = &hooks_;
  NewService(options);
  const std::string append = AddLine("a.parquet") + TxnLine("app", 1);
  EXPECT_EQ(Append(append).outcome, CommitOutcome::kUnavailable);
  NewService(options);  // the service restarts
  CommitReply retry = Append(append);
  ASSERT_TRUE(retry.ok()) << retry.message;
  EXPECT_TRUE(retry.duplicate);
  EXPECT_EQ(retry.version, 1);
  EXPECT_EQ(AddedPaths(1), std::vector<std::string>{"a.parquet"});
  EXPECT_EQ(CommitFiles().size(), 2u);
}

TEST_F(AppendTest, AMetadataChangeAfterTheReadVersionIsRefused) {
  Create();
  ASSERT_TRUE(Append(AddLine("a")).ok());  // version 1; the service tracks the table
  ASSERT_TRUE(CommitInline(2, CreateActions(false)).ok());  // a new metaData
  CommitReply stale = Append(AddLine("b"), 1);
  EXPECT_EQ(stale.outcome, CommitOutcome::kMetadataChanged);
  EXPECT_EQ(stale.latest, 2);
  EXPECT_THAT(stale.message, HasSubstr("changed in version 2, after read_version 1"));
  CommitReply fresh = Append(AddLine("b"), 2);
  ASSERT_TRUE(fresh.ok()) << fresh.message;
  EXPECT_EQ(fresh.version, 3);
}

TEST_F(AppendTest, InCommitTimestampsIncreaseOnTablesThatHaveThem) {
  Create(true);
  ASSERT_TRUE(Append(AddLine("a")).ok());
  std::optional<CommitInfo> info = InfoOf(1);
  ASSERT_TRUE(info && info->in_commit_timestamp);
  EXPECT_GT(*info->in_commit_timestamp, 1'700'000'000'000);
}

TEST_F(AppendTest, BadAppendsAreRefusedNamingTheProblem) {
  Create();
  const std::string remove =
      R"({"remove":{"path":"a.parquet","deletionTimestamp":1,"dataChange":true}})";
  CommitReply not_blind = Append(AddLine("a") + remove);
  EXPECT_EQ(not_blind.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(not_blind.message, HasSubstr("line 2: remove: not a blind append"));
  CommitReply outside = Append(AddLine("../other/x.parquet"));
  EXPECT_EQ(outside.outcome, CommitOutcome::kBadRequest);
  EXPECT_EQ(Append(AddLine("a"), -1).outcome, CommitOutcome::kBadRequest);
  CommitRequest versioned = testing::ServiceCommit(Access(), 1, AddLine("a"));
  versioned.append = true;
  versioned.read_version = 0;
  CommitReply with_version = service().Commit(versioned);
  EXPECT_EQ(with_version.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(with_version.message, HasSubstr("the service assigns it"));
  EXPECT_EQ(CommitFiles().size(), 1u);
}

TEST_F(AppendTest, TablesWhoseMetadataIsNotInTheJsonLogAreRefused) {
  CommitReply empty = Append(AddLine("a"));
  EXPECT_EQ(empty.outcome, CommitOutcome::kAppendUnavailable);
  EXPECT_THAT(empty.message, HasSubstr("no commits yet"));
  // Versions 0 and 1 cleaned up after a checkpoint: only 2 and 3 remain.
  for (Version v = 2; v <= 3; ++v) ASSERT_TRUE(memory().Put(CommitPath(v), AddLine("x")).ok());
  CommitReply checkpointed = Append(AddLine("a"), 3);
  EXPECT_EQ(checkpointed.outcome, CommitOutcome::kAppendUnavailable);
  EXPECT_THAT(checkpointed.message, HasSubstr("is gone"));
  EXPECT_THAT(checkpointed.message, HasSubstr("commit with a version instead"));
}

TEST_F(AppendTest, CommitsAroundTheServiceAreCaughtUpWith) {
  Create();
  ASSERT_TRUE(Append(AddLine("a") + TxnLine("app", 1)).ok());  // tracked at 1
  // Another instance (or a versioned commit) writes version 2 with the
  // app's next txn; this instance's state must not miss it.
  NewService();
  ASSERT_TRUE(CommitInline(2, AddLine("b") + TxnLine("app", 2)).ok());
  CommitReply replay = Append(AddLine("b2") + TxnLine("app", 2));
  EXPECT_TRUE(replay.duplicate);
  EXPECT_EQ(replay.version, 2);
  ASSERT_TRUE(Append(AddLine("c") + TxnLine("app", 3)).ok());
  EXPECT_EQ(AddedPaths(3), std::vector<std::string>{"c"});
}

}  // namespace
}  // namespace deltacommit::service
