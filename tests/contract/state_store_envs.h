// The StateStore implementations as the state store suites see them: each
// env owns one store (store()), can open another store object on the same
// backing store, as a second service instance would (NewPeer()), and can
// close and reopen its store (Reopen()).
//
// DynamoDB: the test server from the environment (TESTINFRA.md); every env
// of a process shares one DynamoDB table, created at first use, and tests
// keep apart by using fresh table URIs.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>

#include "common/dynamodb_test_client.h"
#include "common/test_servers.h"
#include "deltacommit/log_path.h"
#include "service/state/dynamodb_state_store.h"
#include "service/state/sqlite_state_store.h"
#include "temp_dir.h"

namespace deltacommit::service {

class SqliteEnv {
 public:
  static constexpr const char* kName = "Sqlite";

  SqliteEnv() { Reopen(); }
  StateStore& store() { return *store_; }
  std::shared_ptr<StateStore> NewPeer() { return Open(); }
  void Reopen() {
    store_.reset();  // closes the file first
    store_ = Open();
  }
  const std::string& path() const { return path_; }

 private:
  std::shared_ptr<StateStore> Open() {
    auto store = SqliteStateStore::Open({path_});
    if (!store.ok()) {
      ADD_FAILURE() << store.status().ToString();
      return nullptr;
    }
    return std::shared_ptr<StateStore>(std::move(store).value());
  }

  TempDir dir_;
  std::string path_ = dir_.path() + "/state.db";
  std::shared_ptr<StateStore> store_;
};

class DynamoDbEnv {
 public:
  static constexpr const char* kName = "DynamoDb";
  static bool Available() {
    return !deltacommit::testing::DynamoDbUnavailable().has_value();
  }

  DynamoDbEnv() {
    if (Available()) store_ = NewPeer();
  }
  StateStore& store() { return *store_; }
  std::shared_ptr<StateStore> NewPeer() {
    // Each store object has its own client, as another instance would.
    auto both = std::make_shared<ClientAndStore>();
    both->store = std::make_unique<DynamoDbStateStore>(
        *both->dynamodb.client, SharedTable(*both->dynamodb.client));
    return std::shared_ptr<StateStore>(
        both, both->store.get());  // keeps the client alive
  }
  void Reopen() { store_ = NewPeer(); }

  // The DynamoDB table of this process's tests, created at first use.
  static const std::string& SharedTable(dynamodb::DynamoDbClient& client) {
    static const std::string name = "dc_test_state_" + NewUuid();
    static std::once_flag once;
    static Status created;
    std::call_once(once, [&] {
      created = CreateServiceStateTable(
          client, name, dynamodb::DeltaLogTableBilling::PayPerRequest());
    });
    if (!created.ok()) ADD_FAILURE() << created.ToString();
    return name;
  }

 private:
  struct ClientAndStore {
    deltacommit::testing::DynamoDbTestClient dynamodb;
    std::unique_ptr<DynamoDbStateStore> store;
  };

  std::shared_ptr<StateStore> store_;
};

}  // namespace deltacommit::service
