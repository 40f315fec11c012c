// The forwarding wrappers of the core's ports: every call reaches the
// wrapped port with its arguments and comes back with its answer, whether
// the wrapper borrows or owns the port, and a subclass that overrides one
// call still forwards the others.
#include "deltacommit/forwarding_ports.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/testing/json_lines_parquet_handler.h"
#include "deltacommit/testing/memory_coordination_table.h"
#include "deltacommit/testing/memory_object_store.h"
#include "deltacommit/testing/recording_commit_service_client.h"

namespace deltacommit {
namespace {

SetTransaction Txn(std::string app_id, int64_t version) {
  SetTransaction txn;
  txn.app_id = std::move(app_id);
  txn.version = version;
  return txn;
}

using ::testing::ElementsAre;

std::vector<std::string> Keys(const std::vector<ObjectMeta>& listed) {
  std::vector<std::string> keys;
  for (const ObjectMeta& meta : listed) keys.push_back(meta.key);
  return keys;
}

TEST(ForwardingObjectStoreTest, EveryCallReachesTheWrappedStore) {
  MemoryObjectStore base;
  ForwardingObjectStore store(base);
  EXPECT_EQ(&store.base(), &base);
  EXPECT_EQ(store.Describe(), base.Describe());

  ASSERT_TRUE(store.Put("t/a", "0123456789").ok());
  EXPECT_EQ(*base.Get("t/a"), "0123456789");
  ASSERT_TRUE(store.PutIfAbsent("t/b", "b").ok());
  EXPECT_TRUE(store.PutIfAbsent("t/b", "again").IsAlreadyExists());
  EXPECT_EQ(*base.Get("t/b"), "b");
  ASSERT_TRUE(store.Copy("t/a", "t/c", /*if_absent=*/true).ok());
  EXPECT_TRUE(store.Copy("t/a", "t/c", /*if_absent=*/true).IsAlreadyExists());
  EXPECT_EQ(*base.Get("t/c"), "0123456789");

  EXPECT_EQ(*store.Get("t/a"), "0123456789");
  EXPECT_EQ(*store.Get("t/a", ByteRange{2, 3}), "234");
  EXPECT_EQ(store.Head("t/a")->size, 10);
  EXPECT_TRUE(store.Head("t/none").status().IsNotFound());
  EXPECT_THAT(Keys(*store.List("t/")), ElementsAre("t/a", "t/b", "t/c"));
  EXPECT_THAT(Keys(*store.List("t/", "t/a")), ElementsAre("t/b", "t/c"));

  ASSERT_TRUE(store.Delete("t/c").ok());
  EXPECT_TRUE(base.Head("t/c").status().IsNotFound());
}

TEST(ForwardingObjectStoreTest, OwnsTheStoreItIsGiven) {
  auto owned = std::make_unique<MemoryObjectStore>();
  MemoryObjectStore* raw = owned.get();
  ForwardingObjectStore store(std::move(owned));
  EXPECT_EQ(&store.base(), raw);
  ASSERT_TRUE(store.Put("k", "v").ok());
  EXPECT_EQ(*raw->Get("k"), "v");
}

// Overrides Get only; every other call is the forwarding one.
class CountingGets : public ForwardingObjectStore {
 public:
  using ForwardingObjectStore::ForwardingObjectStore;
  StatusOr<std::string> Get(
      std::string_view key,
      std::optional<ByteRange> range = std::nullopt) override {
    ++gets;
    return ForwardingObjectStore::Get(key, range);
  }
  int gets = 0;
};

TEST(ForwardingObjectStoreTest, SubclassOverridesOnlyWhatItNeeds) {
  MemoryObjectStore base;
  CountingGets store(base);
  ASSERT_TRUE(store.Put("k", "v").ok());
  EXPECT_EQ(*store.Get("k"), "v");
  EXPECT_EQ(store.gets, 1);
  EXPECT_EQ(&store.base(), &base);
}

ExternalCommitEntry Entry(const std::string& file_name, bool complete) {
  ExternalCommitEntry entry{"s3://b/t", file_name, ".tmp/" + file_name + ".u",
                            complete, std::nullopt};
  if (complete) entry.expire_time = 100;
  return entry;
}

TEST(ForwardingCoordinationTableTest, EveryCallReachesTheWrappedTable) {
  MemoryCoordinationTable base;
  ForwardingCoordinationTable table(base);
  EXPECT_EQ(&table.base(), &base);
  EXPECT_EQ(table.Describe(), base.Describe());

  const ExternalCommitEntry first = Entry("00000000000000000000.json", false);
  ASSERT_TRUE(table.PutIfAbsent(first).ok());
  EXPECT_TRUE(table.PutIfAbsent(first).IsAlreadyExists());
  EXPECT_EQ(**base.Get("s3://b/t", first.file_name), first);
  const ExternalCommitEntry done = Entry(first.file_name, true);
  ASSERT_TRUE(table.Put(done).ok());
  EXPECT_EQ(**base.Get("s3://b/t", first.file_name), done);
  ASSERT_TRUE(base.PutIfAbsent(Entry("00000000000000000001.json", false)).ok());

  EXPECT_EQ(**table.Get("s3://b/t", first.file_name), done);
  EXPECT_FALSE(table.Get("s3://b/other", first.file_name)->has_value());
  EXPECT_EQ((*table.GetLatest("s3://b/t"))->file_name,
            "00000000000000000001.json");
  StatusOr<CommitEntryPage> page =
      table.ListPage("s3://b/t", first.file_name, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->entries.size(), 1u);
  EXPECT_EQ(page->entries[0].file_name, "00000000000000000001.json");
  EXPECT_EQ(table.ListPage("s3://b/t", "", 0).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ForwardingCoordinationTableTest, OwnsTheTableItIsGiven) {
  auto owned = std::make_unique<MemoryCoordinationTable>();
  MemoryCoordinationTable* raw = owned.get();
  ForwardingCoordinationTable table(std::move(owned));
  EXPECT_EQ(&table.base(), raw);
  ASSERT_TRUE(table.Put(Entry("00000000000000000000.json", true)).ok());
  EXPECT_TRUE(raw->GetLatest("s3://b/t")->has_value());
}

TEST(ForwardingCommitServiceClientTest, EveryCallReachesTheWrappedClient) {
  RecordingCommitServiceClient base;
  ForwardingCommitServiceClient client(base);
  EXPECT_EQ(&client.base(), &base);
  EXPECT_EQ(client.Describe(), base.Describe());
  EXPECT_EQ(client.Url(), base.Url());

  ServiceCommitRequest request;
  request.table = "s3://b/t";
  request.version = 4;
  request.actions = "{}";
  ServiceCommitResult ok = client.Commit(request);
  EXPECT_TRUE(ok.status.ok());
  EXPECT_EQ(ok.version, 4);
  ServiceCommitResult taken;
  taken.status = AlreadyExistsError("version_taken");
  taken.latest_version = 9;
  base.SetCommitResult(taken);
  ServiceCommitResult refused = client.Commit(request);
  EXPECT_TRUE(refused.status.IsAlreadyExists());
  EXPECT_EQ(refused.latest_version, 9);
  ASSERT_EQ(base.commits().size(), 2u);
  EXPECT_EQ(base.commits()[0].table, "s3://b/t");
  EXPECT_EQ(base.commits()[0].version, 4);
  EXPECT_EQ(base.commits()[0].actions, "{}");

  base.SetPending(PendingCommits{7,
                                 {{6, "_delta_log/_staged_commits/x", 1, 2},
                                  {7, "_delta_log/_staged_commits/y", 3, 4}}});
  StatusOr<PendingCommits> pending = client.GetPendingCommits("s3://b/t", 6);
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_EQ(pending->latest_version, 7);
  EXPECT_EQ(pending->commits.size(), 2u);
  base.SetPending(UnavailableError("down"));
  EXPECT_EQ(client.GetPendingCommits("s3://b/u", 0).status(),
            UnavailableError("down"));
  EXPECT_THAT(
      base.pending_queries(),
      ElementsAre(RecordingCommitServiceClient::PendingQuery{"s3://b/t", 6},
                  RecordingCommitServiceClient::PendingQuery{"s3://b/u", 0}));
}

TEST(ForwardingCommitServiceClientTest, OwnsTheClientItIsGiven) {
  auto owned = std::make_unique<RecordingCommitServiceClient>();
  RecordingCommitServiceClient* raw = owned.get();
  ForwardingCommitServiceClient client(std::move(owned));
  EXPECT_EQ(&client.base(), raw);
  EXPECT_TRUE(client.Commit(ServiceCommitRequest{}).status.ok());
  EXPECT_EQ(raw->commits().size(), 1u);
}

TEST(ForwardingParquetHandlerTest, EveryCallReachesTheWrappedHandler) {
  JsonLinesParquetHandler base;
  ForwardingParquetHandler handler(base);
  EXPECT_EQ(&handler.base(), &base);
  MemoryObjectStore store;

  StatusOr<int64_t> size =
      handler.WriteCheckpointActions(store, "_delta_log/1.checkpoint.parquet",
                                     {R"({"add":{}})", R"({"remove":{}})"});
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ(*size, 25);
  EXPECT_EQ(*store.Get("_delta_log/1.checkpoint.parquet"),
            "{\"add\":{}}\n{\"remove\":{}}\n");
  EXPECT_TRUE(
      handler.WriteCheckpointActions(store, "_delta_log/1.checkpoint.parquet", {})
          .status()
          .IsAlreadyExists());
  // Actions reach it too, as the JSON lines the base writes (the port's
  // default for a handler that writes lines only).
  const Action txn = Txn("a", 3);
  ASSERT_TRUE(handler.WriteCheckpoint(store, "_delta_log/2.checkpoint.parquet", {txn}).ok());
  EXPECT_EQ(*store.Get("_delta_log/2.checkpoint.parquet"), ActionToJson(txn) + "\n");

  StatusOr<std::vector<std::string>> lines =
      handler.ReadCheckpointActions(store, {"_delta_log/1.checkpoint.parquet"});
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  EXPECT_THAT(*lines, ElementsAre(R"({"add":{}})", R"({"remove":{}})"));
  EXPECT_TRUE(handler.ReadCheckpointActions(store, {"_delta_log/none.parquet"})
                  .status()
                  .IsNotFound());
}

TEST(ForwardingParquetHandlerTest, EachWriteReachesItsOwnMethodOfTheWrappedHandler) {
  // Not the port's default, which would turn actions into lines on this
  // side of the wrapper and write them just alike.
  class Counting : public JsonLinesParquetHandler {
   public:
    StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                      const std::vector<Action>& actions) override {
      ++typed;
      return JsonLinesParquetHandler::WriteCheckpoint(store, key, actions);
    }
    StatusOr<int64_t> WriteCheckpointActions(ObjectStore& store, const std::string& key,
                                             const std::vector<std::string>& lines) override {
      ++text;
      return JsonLinesParquetHandler::WriteCheckpointActions(store, key, lines);
    }
    int typed = 0;
    int text = 0;
  };
  Counting base;
  ForwardingParquetHandler handler(base);
  MemoryObjectStore store;
  ASSERT_TRUE(
      handler.WriteCheckpoint(store, "_delta_log/1.checkpoint.parquet", {Txn("a", 1)}).ok());
  EXPECT_EQ(base.typed, 1);
  EXPECT_EQ(base.text, 1);  // the base's own default, inside it
  ASSERT_TRUE(
      handler.WriteCheckpointActions(store, "_delta_log/2.checkpoint.parquet", {"{}"}).ok());
  EXPECT_EQ(base.typed, 1);
  EXPECT_EQ(base.text, 2);
}

TEST(ForwardingParquetHandlerTest, ABatchedReadReachesTheWrappedHandlersOwnMethod) {
  // A base that hands its actions over one at a time: the port's default
  // would read them all on this side of the wrapper and give one batch.
  class OneByOne : public JsonLinesParquetHandler {
   public:
    Status ReadCheckpointInBatches(ObjectStore& store, const std::vector<std::string>& keys,
                                   const ActionBatch& apply) override {
      DC_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadCheckpoint(store, keys));
      for (Action& action : actions) {
        std::vector<Action> one{std::move(action)};
        DC_RETURN_IF_ERROR(apply(one));
      }
      return OkStatus();
    }
  };
  OneByOne base;
  ForwardingParquetHandler handler(base);
  MemoryObjectStore store;
  const std::string key = "_delta_log/1.checkpoint.parquet";
  ASSERT_TRUE(handler.WriteCheckpoint(store, key, {Txn("a", 1), Txn("b", 2)}).ok());
  std::vector<size_t> batches;
  const auto count = [&batches](std::vector<Action>& actions) {
    batches.push_back(actions.size());
    return OkStatus();
  };
  ASSERT_TRUE(handler.ReadCheckpointInBatches(store, {key}, count).ok());
  EXPECT_THAT(batches, ElementsAre(1, 1));
  // An error from the batch stops the read and is what it returns.
  batches.clear();
  const auto refuse = [&batches](std::vector<Action>& actions) {
    batches.push_back(actions.size());
    return InvalidArgumentError("no thanks");
  };
  EXPECT_EQ(handler.ReadCheckpointInBatches(store, {key}, refuse).message(), "no thanks");
  EXPECT_THAT(batches, ElementsAre(1));
}

TEST(ForwardingParquetHandlerTest, ReadCheckpointDecodesWhatTheBaseReads) {
  // The base overrides only ReadCheckpointActions: ReadCheckpoint is the
  // port's default, parsing those lines, and a line that does not parse is
  // an error naming the checkpoint.
  class Lines : public ParquetHandler {
   public:
    explicit Lines(std::vector<std::string> lines) : lines_(std::move(lines)) {}
    StatusOr<std::vector<std::string>> ReadCheckpointActions(
        ObjectStore&, const std::vector<std::string>&) override {
      return lines_;
    }

   private:
    std::vector<std::string> lines_;
  };
  MemoryObjectStore store;
  ForwardingParquetHandler good(std::make_unique<Lines>(std::vector<std::string>{
      R"({"txn":{"appId":"a","version":3}})", R"({"remove":{"path":"p","dataChange":false}})"}));
  StatusOr<std::vector<Action>> actions = good.ReadCheckpoint(store, {"_delta_log/1.cp"});
  ASSERT_TRUE(actions.ok()) << actions.status().ToString();
  ASSERT_EQ(actions->size(), 2u);
  EXPECT_EQ(std::get<SetTransaction>((*actions)[0]).version, 3);
  EXPECT_EQ(std::get<RemoveFile>((*actions)[1]).path, "p");
  ForwardingParquetHandler bad(
      std::make_unique<Lines>(std::vector<std::string>{R"({"add":{"path":1}})"}));
  Status refused = bad.ReadCheckpoint(store, {"_delta_log/1.cp"}).status();
  EXPECT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("checkpoint _delta_log/1.cp"));
}

// Reads only: WriteCheckpoint is the port's default.
class ReadOnlyHandler : public ParquetHandler {
 public:
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore&, const std::vector<std::string>&) override {
    return std::vector<std::string>{"line"};
  }
};

TEST(ForwardingParquetHandlerTest,
     ForwardsWritesToAReadOnlyHandlerWhichRefuses) {
  MemoryObjectStore store;
  ForwardingParquetHandler handler(std::make_unique<ReadOnlyHandler>());
  EXPECT_THAT(*handler.ReadCheckpointActions(store, {"k"}),
              ElementsAre("line"));
  EXPECT_EQ(handler.WriteCheckpointActions(store, "k", {"line"}).status().code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(handler.WriteCheckpoint(store, "k", {Action(Protocol{})}).status().code(),
            StatusCode::kUnimplemented);
  EXPECT_TRUE(store.Head("k").status().IsNotFound());
}

}  // namespace
}  // namespace deltacommit
