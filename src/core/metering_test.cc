#include "deltacommit/metering.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "deltacommit/testing/memory_coordination_table.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

TEST(MeteringObjectStore, CountsEachCallByKindAndForwardsIt) {
  CallMeter meter;
  MeteringObjectStore store(std::make_unique<MemoryObjectStore>(), meter);
  ASSERT_TRUE(store.PutIfAbsent("t/a", "1").ok());
  EXPECT_FALSE(store.PutIfAbsent("t/a", "2")
                   .ok());  // refused, but a request all the same
  ASSERT_TRUE(store.Put("t/b", "2").ok());
  EXPECT_EQ(*store.Get("t/a"), "1");
  ASSERT_TRUE(store.Head("t/b").ok());
  EXPECT_EQ(store.List("t/")->size(), 2u);
  ASSERT_TRUE(store.Copy("t/a", "t/c", true).ok());
  ASSERT_TRUE(store.Delete("t/c").ok());
  EXPECT_EQ(meter.Count(CallKind::kS3Put), 3);
  EXPECT_EQ(meter.Count(CallKind::kS3Get), 1);
  EXPECT_EQ(meter.Count(CallKind::kS3Head), 1);
  EXPECT_EQ(meter.Count(CallKind::kS3List), 1);
  EXPECT_EQ(meter.Count(CallKind::kS3Copy), 1);
  EXPECT_EQ(meter.Count(CallKind::kS3Delete), 1);
  EXPECT_EQ(meter.Count(CallKind::kDynamoDbRead), 0);
}

TEST(MeteringCoordinationTable, CountsReadsAndWrites) {
  CallMeter meter;
  MeteringCoordinationTable table(std::make_unique<MemoryCoordinationTable>(),
                                  meter);
  ExternalCommitEntry entry{
      "s3://b/t", "00000000000000000000.json", ".tmp/x", false, {}};
  ASSERT_TRUE(table.PutIfAbsent(entry).ok());
  entry.complete = true;
  entry.expire_time = 100;
  ASSERT_TRUE(table.Put(entry).ok());
  EXPECT_EQ(**table.Get("s3://b/t", entry.file_name), entry);
  EXPECT_EQ(**table.GetLatest("s3://b/t"), entry);
  EXPECT_EQ(table.ListPage("s3://b/t", "", 10)->entries.size(), 1u);
  EXPECT_EQ(meter.Count(CallKind::kDynamoDbWrite), 2);
  EXPECT_EQ(meter.Count(CallKind::kDynamoDbRead), 3);
  EXPECT_EQ(meter.Count(CallKind::kS3Put), 0);
}

class FixedService : public CommitServiceClient {
 public:
  std::string Describe() const override { return "fixed"; }
  std::string Url() const override { return "http://fixed"; }
  ServiceCommitResult Commit(const ServiceCommitRequest& request) override {
    ServiceCommitResult result;
    result.version = request.version;
    return result;
  }
  StatusOr<PendingCommits> GetPendingCommits(std::string_view,
                                             Version) override {
    return PendingCommits{7, {}};
  }
};

TEST(MeteringCommitServiceClient, CountsCommitsAndPendingListings) {
  CallMeter meter;
  MeteringCommitServiceClient client(std::make_unique<FixedService>(), meter);
  ServiceCommitRequest request;
  request.version = 3;
  EXPECT_EQ(client.Commit(request).version, 3);
  EXPECT_EQ(client.Commit(request).version, 3);
  EXPECT_EQ(client.GetPendingCommits("s3://b/t", 0)->latest_version, 7);
  EXPECT_EQ(client.Url(), "http://fixed");
  EXPECT_EQ(meter.Count(CallKind::kServiceCommit), 2);
  EXPECT_EQ(meter.Count(CallKind::kServicePending), 1);
}

class FixedCatalog : public CatalogClient {
 public:
  std::string Describe() const override { return "fixed catalog"; }
  StatusOr<CatalogTable> LoadTable(const CatalogTableName&) override {
    CatalogTable table;
    table.table_id = "t-1";
    return table;
  }
  StatusOr<VendedCredentials> TableCredentials(const CatalogTableName&, std::string_view,
                                               CatalogAccess) override {
    return VendedCredentials{};
  }
  StatusOr<CatalogStagingTable> CreateStagingTable(const CatalogTableName&) override {
    return CatalogStagingTable{};
  }
  StatusOr<VendedCredentials> StagingTableCredentials(const std::string&) override {
    return UnavailableError("down");
  }
  Status CreateTable(const CatalogTableName&, const CatalogNewTable&) override {
    return OkStatus();
  }
  Status Commit(const CatalogTableName&, const std::string&, const CatalogCommit&,
                std::optional<Version>) override {
    return OkStatus();
  }
};

TEST(MeteringCatalogClient, CountsLoadsCredentialsCommitsAndCreates) {
  CallMeter meter;
  MeteringCatalogClient client(std::make_unique<FixedCatalog>(), meter);
  const CatalogTableName name{"main", "sales", "orders"};
  EXPECT_EQ(client.LoadTable(name)->table_id, "t-1");
  ASSERT_TRUE(client.TableCredentials(name, "s3://b/t", CatalogAccess::kRead).ok());
  // A failed call costs a request all the same.
  EXPECT_FALSE(client.StagingTableCredentials("id").ok());
  ASSERT_TRUE(client.CreateStagingTable(name).ok());
  ASSERT_TRUE(client.CreateTable(name, {}).ok());
  ASSERT_TRUE(client.Commit(name, "t-1", {}, std::nullopt).ok());
  ASSERT_TRUE(client.Commit(name, "t-1", {}, 1).ok());
  EXPECT_EQ(client.Describe(), "fixed catalog");
  EXPECT_EQ(meter.Count(CallKind::kCatalogLoad), 1);
  EXPECT_EQ(meter.Count(CallKind::kCatalogCredentials), 2);
  EXPECT_EQ(meter.Count(CallKind::kCatalogCreate), 2);
  EXPECT_EQ(meter.Count(CallKind::kCatalogCommit), 2);
  EXPECT_EQ(meter.Counts().at("catalog_commit"), 2);
}

TEST(CallMeter, CountsFromManyThreadsWithoutLosingAny) {
  CallMeter meter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&meter] {
      for (int i = 0; i < 10000; ++i) meter.Add(CallKind::kS3Get);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(meter.Count(CallKind::kS3Get), 40000);
}

TEST(CallMeter, CountsNameEveryKind) {
  CallMeter meter;
  meter.Add(CallKind::kDynamoDbWrite);
  auto counts = meter.Counts();
  EXPECT_EQ(counts.size(), static_cast<size_t>(kCallKinds));
  EXPECT_EQ(counts.at("dynamodb_write"), 1);
  EXPECT_EQ(counts.at("service_pending"), 0);
}

}  // namespace
}  // namespace deltacommit
