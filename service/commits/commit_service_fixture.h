// The unit tests' CommitService on MemoryObjectStores (MemoryStoreFactory)
// and a SQLite state store in a temporary file, behind a FaultyStateStore.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "contract/temp_dir.h"
#include "deltacommit/log_path.h"
#include "service/commits/commit_service.h"
#include "service/commits/testing/commit_requests.h"
#include "service/commits/testing/faulty_state_store.h"
#include "service/commits/testing/memory_store_factory.h"
#include "service/commits/testing/recording_observer.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service {

class CommitServiceTest : public ::testing::Test {
 protected:
  CommitServiceTest() {
    auto store = SqliteStateStore::Open({dir_.path() + "/state.db"});
    if (!store.ok()) ADD_FAILURE() << store.status().ToString();
    sqlite_ = std::move(store).value();
    state_ = std::make_unique<testing::FaultyStateStore>(*sqlite_);
  }

  // A (new) service over the same state and objects: another instance.
  CommitService& NewService(CommitServiceOptions options = {}) {
    service_.reset();
    if (options.observer == nullptr) options.observer = &observer_;
    service_ = std::make_unique<CommitService>(*state_, factory_, options);
    return *service_;
  }
  void StopService() { service_.reset(); }
  // Built on first use: call once before threads share it.
  CommitService& service() {
    if (!service_) NewService();
    return *service_;
  }

  TableAccess Access(std::string secret = testing::kTestSecret) {
    return testing::TestAccess(table_, testing::TestCredentials(SystemClock(), std::move(secret)));
  }
  CommitReply CommitInline(Version version, const std::string& actions) {
    return service().Commit(testing::ServiceCommit(Access(), version, actions));
  }
  // Puts a staged commit as a coordinated-mode writer does; returns its key.
  std::string PutStaged(Version version, const std::string& actions) {
    const std::string key = StagedCommitPath(version, NewUuid());
    EXPECT_TRUE(memory().Put(key, actions).ok());
    return key;
  }

  MemoryObjectStore& memory() { return factory_.Memory(table_); }
  FaultInjectingObjectStore& faults() { return factory_.Faults(table_); }
  std::string Read(const std::string& key) {
    auto data = memory().Get(key);
    return data.ok() ? *data : "<" + data.status().ToString() + ">";
  }
  // Keys under `prefix`, in order.
  std::vector<std::string> Keys(const std::string& prefix) {
    std::vector<std::string> keys;
    auto listing = memory().List(prefix);
    EXPECT_TRUE(listing.ok());
    if (listing.ok()) {
      for (const auto& m : *listing) keys.push_back(m.key);
    }
    return keys;
  }
  std::vector<std::string> CommitFiles() {
    std::vector<std::string> out;
    for (const std::string& key : Keys(std::string(kLogDir))) {
      if (ParseLogPath(key.substr(kLogDir.size())).type == LogFileType::kCommit) {
        out.push_back(key);
      }
    }
    return out;
  }
  std::vector<std::string> StagedFiles() { return Keys("_delta_log/_staged_commits/"); }

  TempDir dir_;
  std::unique_ptr<SqliteStateStore> sqlite_;
  std::unique_ptr<testing::FaultyStateStore> state_;
  testing::MemoryStoreFactory factory_{testing::kTestSecret};
  testing::RecordingObserver observer_;
  const std::string table_ = "s3://bucket/t-" + NewUuid();
  std::unique_ptr<CommitService> service_;
};

}  // namespace deltacommit::service
