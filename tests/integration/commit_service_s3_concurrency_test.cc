// Racing writers through the commit service on RGW: 8 threads x 20 commits
// through one instance, and through two instances sharing one state store
// (SQLite file; DynamoDB on dynalite), each writer rebasing on
// VersionTaken / VersionAhead. Versions must be contiguous from 0 with
// every commit present exactly once. And appenders (server-assigned
// versions) over two instances, mixed with a versioned writer.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "deltacommit/action_json.h"

#include "commit_service_fixture.h"

namespace deltacommit::service {
namespace {

using testing::CommitActions;
using testing::FirstCommitActions;

constexpr int kWriters = 8;
constexpr int kCommitsEach = 20;

template <typename Env>
class CommitServiceS3Concurrency : public CommitServiceOnS3Test<Env> {
 protected:
  // Writer `w` commits kCommitsEach commits through `service`, rebasing on
  // conflicts; every other outcome fails the test.
  void Write(CommitService& service, int w) {
    Version next = 0;
    for (int i = 0; i < kCommitsEach; ++i) {
      const std::string tag = "w" + std::to_string(w) + "-" + std::to_string(i);
      for (;;) {
        CommitReply reply = service.Commit(
            testing::ServiceCommit(this->Access(), next, testing::CommitActionsAt(next, tag)));
        if (reply.ok()) break;
        ASSERT_TRUE(reply.outcome == CommitOutcome::kVersionTaken ||
                    reply.outcome == CommitOutcome::kVersionAhead)
            << CommitOutcomeName(reply.outcome) << ": " << reply.message;
        next = *reply.latest + 1;
      }
      ++next;
    }
  }

  // Runs the writers, writer w on services[w % size], and checks the log.
  void RunAndCheck(const std::vector<CommitService*>& services) {
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] { Write(*services[static_cast<size_t>(w) % services.size()], w); });
    }
    for (std::thread& t : writers) t.join();
    for (CommitService* s : services) ASSERT_TRUE(s->publisher().WaitIdle(std::chrono::seconds(60)));
    const std::vector<std::string> contents = this->ContiguousCommits(kWriters * kCommitsEach);
    std::set<std::string> distinct(contents.begin(), contents.end());
    EXPECT_EQ(distinct.size(), static_cast<size_t>(kWriters * kCommitsEach)) << "a commit twice";
    for (int w = 0; w < kWriters; ++w) {
      for (int i = 0; i < kCommitsEach; ++i) {
        const std::string tag = "w" + std::to_string(w) + "-" + std::to_string(i);
        // Version 0 carries the table's protocol and metaData too.
        EXPECT_TRUE(distinct.contains(CommitActions(tag)) ||
                    distinct.contains(FirstCommitActions(tag)))
            << "acknowledged commit " << w << "-" << i << " missing";
      }
    }
    auto pending = services[0]->PendingCommits(this->table_, 0);
    ASSERT_TRUE(pending.ok());
    EXPECT_EQ(pending->latest, kWriters * kCommitsEach - 1);
  }
};
TYPED_TEST_SUITE(CommitServiceS3Concurrency, StateStoreEnvs, EnvName);

TYPED_TEST(CommitServiceS3Concurrency, EightWritersThroughOneInstanceGetContiguousVersions) {
  auto service = this->NewService();
  this->RunAndCheck({service.get()});
}

TYPED_TEST(CommitServiceS3Concurrency, EightWritersOverTwoInstancesSharingTheStateStore) {
  // Each instance has its own store object (and, for DynamoDB, client), as
  // two processes would; only the state store keeps them apart.
  std::shared_ptr<StateStore> peer = this->env_->NewPeer();
  ASSERT_NE(peer, nullptr);
  auto first = this->NewService();
  auto second = this->NewService(peer.get());
  this->RunAndCheck({first.get(), second.get()});
}

// Appends through two instances sharing the state store, while a versioned
// writer commits too: every append lands once, in the version it was told;
// the instances' batches race for versions and the loser's appends go in a
// later batch (never a second copy).
TYPED_TEST(CommitServiceS3Concurrency, AppendersOverTwoInstancesLandOnceInTheirVersions) {
  std::shared_ptr<StateStore> peer = this->env_->NewPeer();
  ASSERT_NE(peer, nullptr);
  auto first = this->NewService();
  auto second = this->NewService(peer.get());
  ASSERT_TRUE(first->Commit(testing::ServiceCommit(this->Access(), 0,
                                                   testing::CreateTableActions())).ok());
  std::map<std::string, Version> told;
  std::mutex mu;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      CommitService& service = w % 2 == 0 ? *first : *second;
      for (int i = 0; i < kCommitsEach; ++i) {
        const std::string path = "w" + std::to_string(w) + "-" + std::to_string(i) + ".parquet";
        CommitReply reply = service.Commit(testing::AppendCommit(
            this->Access(), 0, testing::AppendActions(path, "w" + std::to_string(w), i)));
        ASSERT_TRUE(reply.ok()) << CommitOutcomeName(reply.outcome) << ": " << reply.message;
        std::lock_guard lock(mu);
        told[path] = reply.version;
      }
    });
  }
  // A versioned writer in the middle of it, rebasing as any writer does.
  threads.emplace_back([&] {
    Version next = 1;
    for (int i = 0; i < 5; ++i) {
      const std::string actions = testing::AppendActions("versioned-" + std::to_string(i));
      for (;;) {
        CommitReply reply = second->Commit(testing::ServiceCommit(this->Access(), next, actions));
        if (reply.ok()) break;
        ASSERT_TRUE(reply.outcome == CommitOutcome::kVersionTaken ||
                    reply.outcome == CommitOutcome::kVersionAhead) << reply.message;
        next = *reply.latest + 1;
      }
      ++next;
    }
  });
  for (std::thread& t : threads) t.join();
  const std::vector<std::string> keys = this->LogKeys(LogFileType::kCommit);
  const std::vector<std::string> contents = this->ContiguousCommits(keys.size());
  std::map<std::string, std::vector<Version>> added;
  ActionParser parser;
  for (size_t v = 0; v < contents.size(); ++v) {
    auto actions = parser.ParseCommit(contents[v]);
    ASSERT_TRUE(actions.ok()) << actions.status().ToString();
    for (const Action& a : *actions) {
      if (const auto* add = std::get_if<AddFile>(&a)) added[add->path].push_back(static_cast<Version>(v));
    }
  }
  EXPECT_EQ(added.size(), static_cast<size_t>(kWriters * kCommitsEach + 5));
  for (const auto& [path, version] : told) {
    ASSERT_EQ(added[path].size(), 1u) << path;
    EXPECT_EQ(added[path][0], version) << path;
  }
}

}  // namespace
}  // namespace deltacommit::service
