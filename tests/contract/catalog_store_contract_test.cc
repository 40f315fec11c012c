// The CatalogStore contract (service/catalog/catalog_store.h), run against
// every implementation: SQLite on a temporary file, and the fault wrapper
// without rules over SQLite. Each test makes its own catalog and names what
// it creates beside it with fresh UUIDs, so an implementation whose tests all
// share one backing store (DynamoDB) passes the same suite. Every code a
// test expects is the one the header names for that case.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "deltacommit/log_path.h"
#include "deltacommit/status.h"
#include "service/catalog/catalog_entries.h"
#include "service/catalog/catalog_entry_codec.h"
#include "service/catalog/catalog_store.h"
#include "service/catalog/sqlite_catalog_store.h"
#include "service/commits/testing/faulty_catalog_store.h"
#include "temp_dir.h"
// DYNAMODB: the store, and DynamoDbEnv's shared DynamoDB table.
#include "service/catalog/dynamodb_catalog_store.h"
#include "state_store_envs.h"

namespace deltacommit {

// Readable failure messages; gtest finds these by ADL, so each lives beside
// its type.
void PrintTo(const Status& status, std::ostream* os) { *os << status.ToString(); }

namespace service {

// Each entry as the JSON the stores keep: every field, by name.
void PrintTo(const CatalogEntry& entry, std::ostream* os) { *os << EncodeEntry(entry); }
void PrintTo(const SchemaEntry& entry, std::ostream* os) { *os << EncodeEntry(entry); }
void PrintTo(const StagingTableEntry& entry, std::ostream* os) { *os << EncodeEntry(entry); }
void PrintTo(const TableEntry& entry, std::ostream* os) { *os << EncodeEntry(entry); }

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

using FaultyCatalogStore = ::deltacommit::service::testing::FaultyCatalogStore;

constexpr int64_t kT0 = 1'700'000'000'000;

// A Status of `code` whose message matches `message`.
MATCHER_P2(StatusIs, code, message,
           std::string(negation ? "isn't" : "is") + " a " + std::string(StatusCodeName(code)) +
               " status whose message " + ::testing::DescribeMatcher<std::string>(message)) {
  *result_listener << "which is " << arg.ToString();
  return arg.code() == code &&
         ::testing::ExplainMatchResult(message, arg.message(), result_listener);
}
MATCHER_P(HasCode, code,
          std::string(negation ? "isn't" : "is") + " a " + std::string(StatusCodeName(code)) +
              " status") {
  *result_listener << "which is " << arg.ToString();
  return arg.code() == code;
}

// The value of `got`, failing the test (and answering T{}) when it is an
// error, so a read that fails is never mistaken for "nothing there" alone.
template <typename T>
T Must(StatusOr<T> got) {
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return T{};
  return std::move(got).value();
}

std::string Fresh(std::string_view prefix) { return std::string(prefix) + NewUuid(); }

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// Locations derive from ids only, never from names: a test of a bad name
// must not also carry a bad location, and ids keep locations unique across
// tests that share a backing store.
std::string TableLocation(const std::string& table_id) {
  return "s3://bucket/warehouse/tables/" + table_id;
}

// Entries with every field set to something other than its default, so a
// store that drops or mixes up a field fails the round trips.
CatalogEntry CatalogNamed(const std::string& name) {
  CatalogEntry catalog;
  catalog.name = name;
  catalog.id = NewUuid();
  catalog.comment = "a contract test's catalog";
  catalog.properties = {{"cost-center", "42"}, {"team", "data platform"}};
  catalog.storage_root = "s3://bucket/warehouse/catalogs/" + catalog.id;
  catalog.owner = "alice";
  catalog.created_at_ms = kT0;
  catalog.updated_at_ms = kT0 + 1;
  return catalog;
}

SchemaEntry SchemaNamed(const std::string& catalog, const std::string& name) {
  SchemaEntry schema;
  schema.catalog = catalog;
  schema.name = name;
  schema.id = NewUuid();
  schema.comment = "a contract test's schema";
  schema.properties = {{"retention", "30d"}, {"tier", "gold"}};
  schema.storage_root = "s3://bucket/warehouse/schemas/" + schema.id;
  schema.owner = "bob";
  schema.created_at_ms = kT0 + 2;
  schema.updated_at_ms = kT0 + 3;
  return schema;
}

StagingTableEntry StagingIn(const std::string& catalog, const std::string& schema,
                            const std::string& name) {
  StagingTableEntry staging;
  staging.table_id = NewUuid();
  staging.catalog = catalog;
  staging.schema = schema;
  staging.name = name;
  staging.location = TableLocation(staging.table_id);
  staging.owner = "carol";
  staging.created_at_ms = kT0 + 4;
  return staging;
}

TableEntry TableIn(const std::string& catalog, const std::string& schema, const std::string& name) {
  TableEntry table;
  table.name = {catalog, schema, name};
  table.table_id = NewUuid();
  table.type = TableType::kManaged;
  table.storage_location = TableLocation(table.table_id);
  table.comment = "a contract test's table";
  table.columns_json = R"({"type":"struct","fields":[)"
                       R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
                       R"({"name":"day","type":"date","nullable":true,"metadata":{}},)"
                       R"({"name":"region","type":"string","nullable":true,"metadata":{}}]})";
  table.partition_columns = {"day", "region"};
  table.properties = {{"delta.appendOnly", "true"},
                      {"delta.checkpointInterval", "20"},
                      {"owner.team", "data platform"}};
  table.protocol_json =
      R"({"minReaderVersion":3,"minWriterVersion":7,)"
      R"("readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]})";
  table.domain_metadata_json = R"({"delta.rowTracking":{"rowIdHighWaterMark":41}})";
  table.owner = "carol";
  table.created_at_ms = kT0 + 5;
  table.updated_at_ms = kT0 + 6;
  table.last_commit_timestamp_ms = kT0 + 7;
  return table;
}

// The table a client creates from `staging`: its id, name and location.
TableEntry TableFrom(const StagingTableEntry& staging) {
  TableEntry table = TableIn(staging.catalog, staging.schema, staging.name);
  table.table_id = staging.table_id;
  table.storage_location = staging.location;
  return table;
}

std::vector<std::string> NamesOf(const std::vector<TableEntry>& tables) {
  std::vector<std::string> names;
  for (const TableEntry& table : tables) names.push_back(table.name.name);
  return names;
}

// Every kind of name ValidateCatalogName refuses that a client could send.
std::vector<std::string> BadNames() { return {"bad.name", "", "a/b", std::string(256, 'n')}; }

// --- envs -------------------------------------------------------------------
// Each env owns one store (store()), opens another store object on the same
// backing store as a second service instance would (NewPeer()), and closes
// and reopens its store (Reopen()).

class SqliteCatalogEnv {
 public:
  static constexpr const char* kName = "Sqlite";

  SqliteCatalogEnv() { Reopen(); }
  CatalogStore& store() { return *store_; }
  std::shared_ptr<CatalogStore> NewPeer() { return Open(); }
  void Reopen() {
    store_.reset();  // closes the file first
    store_ = Open();
  }

 private:
  std::shared_ptr<CatalogStore> Open() {
    auto store = SqliteCatalogStore::Open(path_);
    if (!store.ok()) {
      ADD_FAILURE() << store.status().ToString();
      return nullptr;
    }
    return std::shared_ptr<CatalogStore>(std::move(store).value());
  }

  TempDir dir_;
  // The state store's file: the catalog lives beside the commits.
  std::string path_ = dir_.path() + "/state.db";
  std::shared_ptr<CatalogStore> store_;
};

// DYNAMODB: the test server from the environment (TESTINFRA.md), on the
// state store suite's DynamoDB table of the process (DynamoDbEnv), a client
// per store object as another instance would have.
class DynamoDbCatalogEnv {
 public:
  static constexpr const char* kName = "DynamoDb";
  static bool Available() { return DynamoDbEnv::Available(); }

  DynamoDbCatalogEnv() {
    if (Available()) Reopen();
  }
  CatalogStore& store() { return *store_; }
  std::shared_ptr<CatalogStore> NewPeer() {
    auto both = std::make_shared<ClientAndStore>();
    both->store = std::make_unique<DynamoDbCatalogStore>(
        *both->dynamodb.client, DynamoDbEnv::SharedTable(*both->dynamodb.client));
    return std::shared_ptr<CatalogStore>(both, both->store.get());  // keeps the client
  }
  void Reopen() { store_ = NewPeer(); }

 private:
  struct ClientAndStore {
    deltacommit::testing::DynamoDbTestClient dynamodb;
    std::unique_ptr<DynamoDbCatalogStore> store;
  };

  std::shared_ptr<CatalogStore> store_;
};

// Whether an env (or the fault wrapper over one) needs the DynamoDB server.
template <typename Env>
struct NeedsDynamoDb : std::false_type {};
template <>
struct NeedsDynamoDb<DynamoDbCatalogEnv> : std::true_type {};
template <template <typename> class Wrapper>
struct NeedsDynamoDb<Wrapper<DynamoDbCatalogEnv>> : std::true_type {};

// The fault wrapper without rules keeps the contract of the store it wraps.
template <typename Base>
class FaultyCatalogEnv {
 public:
  static std::string Name() { return std::string("FaultyOver") + Base::kName; }

  CatalogStore& store() { return *store_; }
  std::shared_ptr<CatalogStore> NewPeer() {
    std::shared_ptr<CatalogStore> peer = base_.NewPeer();
    if (peer == nullptr) return nullptr;
    auto both = std::make_shared<PeerAndFaults>(std::move(peer));
    return std::shared_ptr<CatalogStore>(both, &both->faults);
  }
  void Reopen() {
    store_.reset();
    base_.Reopen();
    store_ = std::make_unique<FaultyCatalogStore>(base_.store());
  }

 private:
  struct PeerAndFaults {
    explicit PeerAndFaults(std::shared_ptr<CatalogStore> p) : peer(std::move(p)), faults(*peer) {}
    std::shared_ptr<CatalogStore> peer;
    FaultyCatalogStore faults;
  };

  Base base_;
  std::unique_ptr<FaultyCatalogStore> store_ = std::make_unique<FaultyCatalogStore>(base_.store());
};

struct EnvName {
  template <typename Env>
  static std::string GetName(int /*index*/) {
    if constexpr (requires { Env::Name(); }) {
      return Env::Name();
    } else {
      return Env::kName;
    }
  }
};

// --- the suite ----------------------------------------------------------------

template <typename Env>
class CatalogStoreContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // DYNAMODB: skipped without its test server, failed in CI (as
    // StateStoreContractTest does).
    if constexpr (NeedsDynamoDb<Env>::value) {
      if (!DynamoDbCatalogEnv::Available()) {
        DC_REQUIRE_DYNAMODB();
      }
    }
    env_ = std::make_unique<Env>();
    ASSERT_FALSE(HasFailure()) << "the env could not open its store";
    MustCreate(catalog_);
    MustCreate(schema_);
    ASSERT_FALSE(HasFailure()) << "the test's catalog and schema could not be made";
  }

  CatalogStore& store() { return env_->store(); }

  TableName Name(const std::string& table) const {
    return TableName{catalog_.name, schema_.name, table};
  }
  TableEntry NewTable(const std::string& name) const {
    return TableIn(catalog_.name, schema_.name, name);
  }
  StagingTableEntry NewStaging(const std::string& name) const {
    return StagingIn(catalog_.name, schema_.name, name);
  }
  // Another schema of the test's catalog.
  SchemaEntry NewSchema(const std::string& name) const { return SchemaNamed(catalog_.name, name); }

  void MustCreate(const CatalogEntry& catalog) {
    Status s = store().CreateCatalog(catalog);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void MustCreate(const SchemaEntry& schema) {
    Status s = store().CreateSchema(schema);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void MustCreate(const StagingTableEntry& staging) {
    Status s = store().CreateStagingTable(staging);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void MustCreate(const TableEntry& table,
                  const std::optional<std::string>& staging_id = std::nullopt) {
    Status s = store().CreateTable(table, staging_id);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::optional<CatalogEntry> GetCatalog(const std::string& name) {
    return Must(store().GetCatalog(name));
  }
  std::optional<SchemaEntry> GetSchema(const std::string& catalog, const std::string& name) {
    return Must(store().GetSchema(catalog, name));
  }
  std::optional<StagingTableEntry> GetStaging(const std::string& table_id) {
    return Must(store().GetStagingTable(table_id));
  }
  std::optional<StagingTableEntry> StagingAt(const std::string& location) {
    return Must(store().FindStagingTableByLocation(location));
  }
  std::optional<TableEntry> GetTable(const TableName& name) { return Must(store().GetTable(name)); }
  std::optional<TableEntry> GetTableById(const std::string& table_id) {
    return Must(store().GetTableById(table_id));
  }
  // The names of the test schema's tables after `after`, one page.
  std::vector<std::string> TableNames(const std::string& after = "", int64_t limit = 1000) {
    return NamesOf(Must(store().ListTables(catalog_.name, schema_.name, after, limit)));
  }

  std::unique_ptr<Env> env_;
  // Fresh per test, so no two tests (nor two runs on one backing store) meet.
  const CatalogEntry catalog_ = CatalogNamed(Fresh("c-"));
  const SchemaEntry schema_ = SchemaNamed(catalog_.name, Fresh("s-"));
};

using CatalogStoreEnvs = ::testing::Types<SqliteCatalogEnv, FaultyCatalogEnv<SqliteCatalogEnv>,
                                          // DYNAMODB:
                                          DynamoDbCatalogEnv, FaultyCatalogEnv<DynamoDbCatalogEnv>>;
TYPED_TEST_SUITE(CatalogStoreContractTest, CatalogStoreEnvs, EnvName);

TYPED_TEST(CatalogStoreContractTest, DescribesItself) {
  EXPECT_THAT(this->store().Describe(), Not(IsEmpty()));
}

// --- catalogs -----------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, CatalogReadsBackEqual) {
  EXPECT_EQ(this->GetCatalog(this->catalog_.name), this->catalog_);

  // Fields left empty come back empty, not defaulted.
  CatalogEntry bare;
  bare.name = Fresh("bare-");
  bare.id = NewUuid();
  bare.storage_root = "s3://bucket/warehouse/catalogs/" + bare.id;
  this->MustCreate(bare);
  EXPECT_EQ(this->GetCatalog(bare.name), bare);
}

TYPED_TEST(CatalogStoreContractTest, MissingCatalogIsNullopt) {
  EXPECT_EQ(this->GetCatalog(Fresh("c-")), std::nullopt);
  // Names are compared exactly: no case folding.
  EXPECT_EQ(this->GetCatalog(Upper(this->catalog_.name)), std::nullopt);
}

TYPED_TEST(CatalogStoreContractTest, TakenCatalogNameIsAlreadyExists) {
  CatalogEntry again = CatalogNamed(this->catalog_.name);
  again.comment = "the second";
  EXPECT_THAT(this->store().CreateCatalog(again), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetCatalog(this->catalog_.name), this->catalog_);  // the first stays
}

TYPED_TEST(CatalogStoreContractTest, CatalogsListAscendingByName) {
  // Created out of order, beside the test's catalog (and, on a shared
  // backing store, other tests' catalogs: only this test's are checked).
  const std::string prefix = Fresh("list-");
  const CatalogEntry b = CatalogNamed(prefix + "-b");
  const CatalogEntry a = CatalogNamed(prefix + "-a");
  const CatalogEntry c = CatalogNamed(prefix + "-c");
  for (const CatalogEntry& catalog : {b, a, c}) this->MustCreate(catalog);

  const std::vector<CatalogEntry> listed = Must(this->store().ListCatalogs());
  EXPECT_TRUE(
      std::is_sorted(listed.begin(), listed.end(),
                     [](const CatalogEntry& x, const CatalogEntry& y) { return x.name < y.name; }));
  std::vector<CatalogEntry> mine;
  bool saw_test_catalog = false;
  for (const CatalogEntry& catalog : listed) {
    if (catalog.name.starts_with(prefix)) mine.push_back(catalog);
    if (catalog == this->catalog_) saw_test_catalog = true;
  }
  EXPECT_THAT(mine, ElementsAre(a, b, c));
  EXPECT_TRUE(saw_test_catalog);
}

TYPED_TEST(CatalogStoreContractTest, DeletedCatalogIsGoneAndItsNameFree) {
  const CatalogEntry doomed = CatalogNamed(Fresh("doomed-"));
  this->MustCreate(doomed);
  ASSERT_TRUE(this->store().DeleteCatalog(doomed.name).ok());
  EXPECT_EQ(this->GetCatalog(doomed.name), std::nullopt);
  for (const CatalogEntry& catalog : Must(this->store().ListCatalogs())) {
    EXPECT_NE(catalog.name, doomed.name);
  }
  EXPECT_THAT(this->store().ListSchemas(doomed.name).status(), HasCode(StatusCode::kNotFound));

  EXPECT_THAT(this->store().DeleteCatalog(doomed.name), HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetCatalog(this->catalog_.name), this->catalog_);  // only that one went

  const CatalogEntry reborn = CatalogNamed(doomed.name);  // a new id
  this->MustCreate(reborn);
  EXPECT_EQ(this->GetCatalog(doomed.name), reborn);
}

TYPED_TEST(CatalogStoreContractTest, DeleteMissingCatalogIsNotFound) {
  EXPECT_THAT(this->store().DeleteCatalog(Fresh("c-")), HasCode(StatusCode::kNotFound));
}

TYPED_TEST(CatalogStoreContractTest, CatalogWithSchemaIsNotDeleted) {
  Status s = this->store().DeleteCatalog(this->catalog_.name);
  EXPECT_THAT(s, StatusIs(StatusCode::kFailedPrecondition, HasSubstr(this->schema_.name)));
  EXPECT_EQ(this->GetCatalog(this->catalog_.name), this->catalog_);
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), this->schema_);

  // Once its schemas are gone, it goes.
  ASSERT_TRUE(this->store().DeleteSchema(this->catalog_.name, this->schema_.name).ok());
  EXPECT_TRUE(this->store().DeleteCatalog(this->catalog_.name).ok());
  EXPECT_EQ(this->GetCatalog(this->catalog_.name), std::nullopt);
}

// --- schemas ------------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, SchemaReadsBackEqual) {
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), this->schema_);
  EXPECT_EQ(this->GetSchema(this->catalog_.name, Fresh("s-")), std::nullopt);
  EXPECT_EQ(this->GetSchema(Fresh("c-"), this->schema_.name), std::nullopt);

  // An empty storage root (the catalog's) and no properties come back so.
  SchemaEntry bare;
  bare.catalog = this->catalog_.name;
  bare.name = "bare";
  bare.id = NewUuid();
  this->MustCreate(bare);
  EXPECT_EQ(this->GetSchema(this->catalog_.name, "bare"), bare);
}

TYPED_TEST(CatalogStoreContractTest, SchemaInMissingCatalogIsNotFound) {
  const SchemaEntry orphan = SchemaNamed(Fresh("c-"), "orphan");
  EXPECT_THAT(this->store().CreateSchema(orphan), HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetSchema(orphan.catalog, orphan.name), std::nullopt);
}

TYPED_TEST(CatalogStoreContractTest, TakenSchemaNameIsAlreadyExists) {
  SchemaEntry again = this->NewSchema(this->schema_.name);
  again.comment = "the second";
  EXPECT_THAT(this->store().CreateSchema(again), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), this->schema_);
}

TYPED_TEST(CatalogStoreContractTest, OneSchemaNameInTwoCatalogsIsTwoSchemas) {
  const CatalogEntry other = CatalogNamed(Fresh("c-"));
  this->MustCreate(other);
  const SchemaEntry twin = SchemaNamed(other.name, this->schema_.name);
  this->MustCreate(twin);
  EXPECT_EQ(this->GetSchema(other.name, this->schema_.name), twin);
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), this->schema_);
}

TYPED_TEST(CatalogStoreContractTest, SchemasListAscendingByNameOfTheirCatalogOnly) {
  const SchemaEntry b = this->NewSchema("b");
  const SchemaEntry a = this->NewSchema("a");
  this->MustCreate(b);
  this->MustCreate(a);
  const CatalogEntry other = CatalogNamed(Fresh("c-"));
  this->MustCreate(other);
  const SchemaEntry elsewhere = SchemaNamed(other.name, "aa");
  this->MustCreate(elsewhere);

  // "a" < "b" < "s-<uuid>", the schema SetUp made.
  EXPECT_THAT(Must(this->store().ListSchemas(this->catalog_.name)),
              ElementsAre(a, b, this->schema_));
  EXPECT_THAT(Must(this->store().ListSchemas(other.name)), ElementsAre(elsewhere));
}

TYPED_TEST(CatalogStoreContractTest, SchemasOfMissingCatalogAreNotFound) {
  EXPECT_THAT(this->store().ListSchemas(Fresh("c-")).status(), HasCode(StatusCode::kNotFound));
}

TYPED_TEST(CatalogStoreContractTest, SchemaWithTableIsNotDeleted) {
  const TableEntry table = this->NewTable(Fresh("t-"));
  this->MustCreate(table);
  Status s = this->store().DeleteSchema(this->catalog_.name, this->schema_.name);
  EXPECT_THAT(s, StatusIs(StatusCode::kFailedPrecondition, HasSubstr(table.name.name)));
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), this->schema_);
  EXPECT_EQ(this->GetTable(table.name), table);

  // Once its tables are gone, it goes.
  ASSERT_TRUE(this->store().DeleteTable(table.name).ok());
  EXPECT_TRUE(this->store().DeleteSchema(this->catalog_.name, this->schema_.name).ok());
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), std::nullopt);
  EXPECT_THAT(Must(this->store().ListSchemas(this->catalog_.name)), IsEmpty());
  EXPECT_THAT(this->store().ListTables(this->catalog_.name, this->schema_.name, "", 10).status(),
              HasCode(StatusCode::kNotFound));
  EXPECT_THAT(this->store().DeleteSchema(this->catalog_.name, this->schema_.name),
              HasCode(StatusCode::kNotFound));
}

TYPED_TEST(CatalogStoreContractTest, DeleteMissingSchemaIsNotFound) {
  EXPECT_THAT(this->store().DeleteSchema(this->catalog_.name, Fresh("s-")),
              HasCode(StatusCode::kNotFound));
  EXPECT_THAT(this->store().DeleteSchema(Fresh("c-"), this->schema_.name),
              HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), this->schema_);
}

// --- staging tables -----------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, StagingTableNeedsItsSchema) {
  const StagingTableEntry staging = StagingIn(this->catalog_.name, Fresh("s-"), "t");
  EXPECT_THAT(this->store().CreateStagingTable(staging), HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetStaging(staging.table_id), std::nullopt);
  EXPECT_EQ(this->StagingAt(staging.location), std::nullopt);
}

TYPED_TEST(CatalogStoreContractTest, StagingTableReadsBackByIdAndByLocation) {
  const StagingTableEntry staging = this->NewStaging("staged");
  this->MustCreate(staging);
  EXPECT_EQ(this->GetStaging(staging.table_id), staging);
  EXPECT_EQ(this->StagingAt(staging.location), staging);
  EXPECT_EQ(this->GetStaging(NewUuid()), std::nullopt);
  EXPECT_EQ(this->StagingAt(TableLocation(NewUuid())), std::nullopt);
  // A staging table is not a table yet.
  EXPECT_EQ(this->GetTableById(staging.table_id), std::nullopt);
  EXPECT_THAT(this->TableNames(), IsEmpty());
}

TYPED_TEST(CatalogStoreContractTest, StagingTablesMayShareAName) {
  const StagingTableEntry first = this->NewStaging("shared");
  const StagingTableEntry second = this->NewStaging("shared");
  ASSERT_NE(first.table_id, second.table_id);
  ASSERT_NE(first.location, second.location);
  this->MustCreate(first);
  this->MustCreate(second);
  EXPECT_EQ(this->GetStaging(first.table_id), first);
  EXPECT_EQ(this->GetStaging(second.table_id), second);
  EXPECT_EQ(this->StagingAt(first.location), first);
  EXPECT_EQ(this->StagingAt(second.location), second);
}

// A staging id and a location are taken once, anywhere in the catalog.
TYPED_TEST(CatalogStoreContractTest, TakenStagingIdOrLocationIsAlreadyExists) {
  const StagingTableEntry first = this->NewStaging("first");
  this->MustCreate(first);

  StagingTableEntry same_id = this->NewStaging("second");
  same_id.table_id = first.table_id;
  EXPECT_THAT(this->store().CreateStagingTable(same_id), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->StagingAt(same_id.location), std::nullopt);

  // Locations are unique anywhere, not only within a schema.
  const SchemaEntry other = this->NewSchema(Fresh("s-"));
  this->MustCreate(other);
  StagingTableEntry same_location = StagingIn(this->catalog_.name, other.name, "third");
  same_location.location = first.location;
  EXPECT_THAT(this->store().CreateStagingTable(same_location), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetStaging(same_location.table_id), std::nullopt);

  EXPECT_EQ(this->GetStaging(first.table_id), first);
  EXPECT_EQ(this->StagingAt(first.location), first);
}

// A table's id and location are taken for staging tables too (a managed
// table's id is its staging table's).
TYPED_TEST(CatalogStoreContractTest, StagingTableAtATablesIdOrLocationIsAlreadyExists) {
  const TableEntry table = this->NewTable("existing");
  this->MustCreate(table);

  StagingTableEntry at_table = this->NewStaging("newcomer");
  at_table.location = table.storage_location;
  EXPECT_THAT(this->store().CreateStagingTable(at_table), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetStaging(at_table.table_id), std::nullopt);
  EXPECT_EQ(this->StagingAt(table.storage_location), std::nullopt);

  StagingTableEntry with_table_id = this->NewStaging("newcomer");
  with_table_id.table_id = table.table_id;
  EXPECT_THAT(this->store().CreateStagingTable(with_table_id), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetStaging(table.table_id), std::nullopt);
  EXPECT_EQ(this->GetTable(table.name), table);
}

// --- CreateTable --------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, CreateTableFromStagingFinalisesIt) {
  const StagingTableEntry staging = this->NewStaging("managed");
  this->MustCreate(staging);
  const TableEntry table = TableFrom(staging);
  this->MustCreate(table, staging.table_id);

  EXPECT_EQ(this->GetTable(table.name), table);
  EXPECT_EQ(this->GetTableById(staging.table_id), table);
  StagingTableEntry finalised = staging;
  finalised.finalized = true;
  EXPECT_EQ(this->GetStaging(staging.table_id), finalised);
  EXPECT_EQ(this->StagingAt(staging.location), finalised);
}

// A second CreateTable from a staging table whose table still exists is
// kAlreadyExists (ids are checked before the staging table); once that table
// is deleted, the staging table stays finalised: kFailedPrecondition.
TYPED_TEST(CatalogStoreContractTest, StagingTableBecomesATableOnlyOnce) {
  const StagingTableEntry staging = this->NewStaging("once");
  this->MustCreate(staging);
  const TableEntry first = TableFrom(staging);
  this->MustCreate(first, staging.table_id);

  TableEntry again = first;
  again.name.name = "again";
  again.storage_location = TableLocation(NewUuid());
  EXPECT_THAT(this->store().CreateTable(again, staging.table_id),
              HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetTable(again.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(staging.table_id), first);

  ASSERT_TRUE(this->store().DeleteTable(first.name).ok());
  EXPECT_THAT(this->store().CreateTable(first, staging.table_id),
              HasCode(StatusCode::kFailedPrecondition));
  EXPECT_EQ(this->GetTable(first.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(staging.table_id), std::nullopt);
  StagingTableEntry finalised = staging;
  finalised.finalized = true;
  EXPECT_EQ(this->GetStaging(staging.table_id), finalised);
}

TYPED_TEST(CatalogStoreContractTest, UnknownStagingIdIsNotFound) {
  const TableEntry table = this->NewTable("unstaged");
  EXPECT_THAT(this->store().CreateTable(table, table.table_id), HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetTable(table.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(table.table_id), std::nullopt);
  EXPECT_EQ(this->GetStaging(table.table_id), std::nullopt);
}

TYPED_TEST(CatalogStoreContractTest, TableIdOtherThanTheStagingIdIsInvalidArgument) {
  const StagingTableEntry staging = this->NewStaging("managed");
  this->MustCreate(staging);
  TableEntry table = TableFrom(staging);
  table.table_id = NewUuid();
  EXPECT_THAT(this->store().CreateTable(table, staging.table_id),
              HasCode(StatusCode::kInvalidArgument));
  EXPECT_EQ(this->GetTable(table.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(table.table_id), std::nullopt);
  EXPECT_EQ(this->GetStaging(staging.table_id), staging);  // not finalised
}

TYPED_TEST(CatalogStoreContractTest, TakenTableNameIsAlreadyExists) {
  const TableEntry first = this->NewTable("taken");
  this->MustCreate(first);
  const TableEntry second = this->NewTable("taken");  // another id and location
  EXPECT_THAT(this->store().CreateTable(second, std::nullopt), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetTable(first.name), first);
  EXPECT_EQ(this->GetTableById(second.table_id), std::nullopt);

  // The same name from a staging table is refused alike, and leaves the
  // staging table as it was.
  const StagingTableEntry staging = this->NewStaging("taken");
  this->MustCreate(staging);
  EXPECT_THAT(this->store().CreateTable(TableFrom(staging), staging.table_id),
              HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetStaging(staging.table_id), staging);
  EXPECT_EQ(this->GetTable(first.name), first);
}

TYPED_TEST(CatalogStoreContractTest, TakenTableIdIsAlreadyExistsAnywhere) {
  const TableEntry first = this->NewTable("first");
  this->MustCreate(first);
  const SchemaEntry other = this->NewSchema(Fresh("s-"));
  this->MustCreate(other);
  TableEntry second = TableIn(this->catalog_.name, other.name, "second");
  second.table_id = first.table_id;
  EXPECT_THAT(this->store().CreateTable(second, std::nullopt), HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetTable(second.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(first.table_id), first);
}

TYPED_TEST(CatalogStoreContractTest, TakenLocationIsAlreadyExistsNamingTheTableThere) {
  const TableEntry first = this->NewTable("first");
  this->MustCreate(first);

  TableEntry beside = this->NewTable("beside");
  beside.storage_location = first.storage_location;
  EXPECT_THAT(this->store().CreateTable(beside, std::nullopt),
              StatusIs(StatusCode::kAlreadyExists, HasSubstr(first.name.FullName())));
  EXPECT_EQ(this->GetTable(beside.name), std::nullopt);

  // Anywhere: from another catalog's schema too.
  const CatalogEntry catalog = CatalogNamed(Fresh("c-"));
  this->MustCreate(catalog);
  const SchemaEntry schema = SchemaNamed(catalog.name, "far");
  this->MustCreate(schema);
  TableEntry far = TableIn(catalog.name, schema.name, "away");
  far.storage_location = first.storage_location;
  EXPECT_THAT(this->store().CreateTable(far, std::nullopt),
              StatusIs(StatusCode::kAlreadyExists, HasSubstr(first.name.FullName())));
  EXPECT_EQ(this->GetTable(far.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(far.table_id), std::nullopt);
  EXPECT_EQ(this->GetTable(first.name), first);
}

TYPED_TEST(CatalogStoreContractTest, TableInMissingSchemaIsNotFound) {
  const TableEntry no_schema = TableIn(this->catalog_.name, Fresh("s-"), "t");
  EXPECT_THAT(this->store().CreateTable(no_schema, std::nullopt), HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetTableById(no_schema.table_id), std::nullopt);
  const TableEntry no_catalog = TableIn(Fresh("c-"), this->schema_.name, "t");
  EXPECT_THAT(this->store().CreateTable(no_catalog, std::nullopt), HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetTableById(no_catalog.table_id), std::nullopt);
}

TYPED_TEST(CatalogStoreContractTest, TablesReadBackEqualByNameAndById) {
  const TableEntry managed = this->NewTable("managed");  // every field set
  TableEntry external = this->NewTable("external");
  external.type = TableType::kExternal;
  external.storage_location = "s3://other-bucket/external/" + external.table_id;
  external.comment = "kept \"quoted\", with a\nnewline and \xc3\xa9";
  external.properties = {{"a", ""}, {"k.with.dots", "v=1;w=2"}, {"z", "last"}};
  TableEntry bare;  // every optional field at its default
  bare.name = this->Name("bare");
  bare.table_id = NewUuid();
  bare.storage_location = TableLocation(bare.table_id);
  for (const TableEntry& table : {managed, external, bare}) this->MustCreate(table);

  for (const TableEntry& table : {managed, external, bare}) {
    SCOPED_TRACE(table.name.FullName());
    const std::optional<TableEntry> by_name = this->GetTable(table.name);
    EXPECT_EQ(by_name, table);
    EXPECT_EQ(this->GetTableById(table.table_id), table);
    if (!by_name) continue;
    // Spelled out too, so a failure says which field a store lost.
    EXPECT_EQ(by_name->type, table.type);
    EXPECT_EQ(by_name->storage_location, table.storage_location);
    EXPECT_EQ(by_name->comment, table.comment);
    EXPECT_EQ(by_name->columns_json, table.columns_json);
    EXPECT_EQ(by_name->partition_columns, table.partition_columns);
    EXPECT_EQ(by_name->properties, table.properties);
    EXPECT_EQ(by_name->protocol_json, table.protocol_json);
    EXPECT_EQ(by_name->domain_metadata_json, table.domain_metadata_json);
    EXPECT_EQ(by_name->created_at_ms, table.created_at_ms);
    EXPECT_EQ(by_name->updated_at_ms, table.updated_at_ms);
    EXPECT_EQ(by_name->last_commit_timestamp_ms, table.last_commit_timestamp_ms);
  }
  EXPECT_EQ(this->GetTable(this->Name("missing")), std::nullopt);
  EXPECT_EQ(this->GetTable(this->Name("MANAGED")), std::nullopt);  // no case folding
  EXPECT_EQ(this->GetTableById(NewUuid()), std::nullopt);
}

// --- ListTables ---------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, ListTablesPagesAscendingByName) {
  std::vector<TableEntry> created;
  for (const char* name : {"t3", "t0", "t4", "t1", "t2"}) {
    created.push_back(this->NewTable(name));
    this->MustCreate(created.back());
  }
  // Pages of 2, each from the last name of the one before, as the API's
  // page token does: every table once, in order.
  std::vector<TableEntry> paged;
  std::vector<size_t> page_sizes;
  std::string after;
  for (int page = 0; page < 10; ++page) {
    const std::vector<TableEntry> listed =
        Must(this->store().ListTables(this->catalog_.name, this->schema_.name, after, 2));
    page_sizes.push_back(listed.size());
    if (listed.empty()) break;
    paged.insert(paged.end(), listed.begin(), listed.end());
    after = listed.back().name.name;
  }
  EXPECT_THAT(page_sizes, ElementsAre(2u, 2u, 1u, 0u));
  EXPECT_THAT(NamesOf(paged), ElementsAre("t0", "t1", "t2", "t3", "t4"));
  for (const TableEntry& table : paged) {
    const auto it = std::find_if(created.begin(), created.end(),
                                 [&](const TableEntry& c) { return c.name == table.name; });
    ASSERT_TRUE(it != created.end()) << table.name.FullName();
    EXPECT_EQ(table, *it);  // whole entries, not only names
  }

  EXPECT_THAT(this->TableNames(), ElementsAre("t0", "t1", "t2", "t3", "t4"));
  EXPECT_THAT(this->TableNames("", 1), ElementsAre("t0"));
  EXPECT_THAT(this->TableNames("t1x", 2), ElementsAre("t2", "t3"));  // after, not at
  EXPECT_THAT(this->TableNames("t4", 2), IsEmpty());
  EXPECT_THAT(this->TableNames("u", 2), IsEmpty());
}

TYPED_TEST(CatalogStoreContractTest, ListTablesLimitBelowOneIsInvalidArgument) {
  this->MustCreate(this->NewTable("t"));
  for (int64_t limit : {int64_t{0}, int64_t{-1}}) {
    EXPECT_THAT(
        this->store().ListTables(this->catalog_.name, this->schema_.name, "", limit).status(),
        HasCode(StatusCode::kInvalidArgument))
        << "limit " << limit;
  }
}

TYPED_TEST(CatalogStoreContractTest, ListTablesOfMissingSchemaIsNotFound) {
  EXPECT_THAT(this->store().ListTables(this->catalog_.name, Fresh("s-"), "", 10).status(),
              HasCode(StatusCode::kNotFound));
  EXPECT_THAT(this->store().ListTables(Fresh("c-"), this->schema_.name, "", 10).status(),
              HasCode(StatusCode::kNotFound));
}

TYPED_TEST(CatalogStoreContractTest, ListTablesListsOnlyThatSchemasTables) {
  this->MustCreate(this->NewTable("mine"));
  // Another schema of the catalog, one whose name extends this one's, and
  // this schema's name in another catalog: none of their tables is listed.
  const SchemaEntry other = this->NewSchema(Fresh("s-"));
  const SchemaEntry twin = this->NewSchema(this->schema_.name + "2");
  const CatalogEntry catalog = CatalogNamed(Fresh("c-"));
  const SchemaEntry namesake = SchemaNamed(catalog.name, this->schema_.name);
  this->MustCreate(other);
  this->MustCreate(twin);
  this->MustCreate(catalog);
  this->MustCreate(namesake);
  this->MustCreate(TableIn(this->catalog_.name, other.name, "theirs"));
  this->MustCreate(TableIn(this->catalog_.name, twin.name, "twins"));
  this->MustCreate(TableIn(catalog.name, namesake.name, "namesakes"));

  EXPECT_THAT(this->TableNames(), ElementsAre("mine"));
  EXPECT_THAT(NamesOf(Must(this->store().ListTables(catalog.name, namesake.name, "", 10))),
              ElementsAre("namesakes"));
}

// --- UpdateTable --------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, UpdateTableIsACompareAndSet) {
  const TableEntry table = this->NewTable("updated");
  this->MustCreate(table);

  TableEntry first = table;
  first.comment = "the first update";
  first.properties = {{"delta.appendOnly", "false"}, {"new", "property"}};
  first.columns_json = R"({"type":"struct","fields":[)"
                       R"({"name":"id","type":"long","nullable":false,"metadata":{}}]})";
  first.partition_columns = {};
  first.protocol_json = R"({"minReaderVersion":1,"minWriterVersion":2})";
  first.domain_metadata_json = "";
  first.last_commit_timestamp_ms = table.last_commit_timestamp_ms + 100;
  first.updated_at_ms = table.updated_at_ms + 100;
  Status s = this->store().UpdateTable(first, table.updated_at_ms);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(this->GetTable(table.name), first);
  EXPECT_EQ(this->GetTableById(table.table_id), first);

  // A second update made from the same read finds the table changed.
  TableEntry stale = table;
  stale.comment = "made from a stale read";
  stale.updated_at_ms = table.updated_at_ms + 200;
  EXPECT_THAT(this->store().UpdateTable(stale, table.updated_at_ms),
              HasCode(StatusCode::kFailedPrecondition));
  // So does one expecting a time the table never had.
  EXPECT_THAT(this->store().UpdateTable(stale, first.updated_at_ms + 1),
              HasCode(StatusCode::kFailedPrecondition));
  EXPECT_EQ(this->GetTable(table.name), first);

  // One made from the new read lands.
  TableEntry second = first;
  second.comment = "the second update";
  second.updated_at_ms = first.updated_at_ms + 1;
  s = this->store().UpdateTable(second, first.updated_at_ms);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(this->GetTable(table.name), second);
}

// Checked before updated_at: a stale update that also moves is refused for
// the move.
TYPED_TEST(CatalogStoreContractTest, UpdateTableCannotChangeNameOrLocation) {
  const TableEntry table = this->NewTable("fixed");
  this->MustCreate(table);
  const SchemaEntry other = this->NewSchema(Fresh("s-"));
  this->MustCreate(other);

  TableEntry renamed = table;
  renamed.name.name = "renamed";
  renamed.updated_at_ms = table.updated_at_ms + 1;
  TableEntry moved_schema = renamed;
  moved_schema.name = {this->catalog_.name, other.name, table.name.name};
  TableEntry moved = table;
  moved.storage_location = TableLocation(NewUuid());
  moved.updated_at_ms = table.updated_at_ms + 1;
  for (const TableEntry& update : {renamed, moved_schema, moved}) {
    SCOPED_TRACE(update.name.FullName() + " at " + update.storage_location);
    EXPECT_THAT(this->store().UpdateTable(update, table.updated_at_ms),
                HasCode(StatusCode::kInvalidArgument));
  }
  EXPECT_EQ(this->GetTable(table.name), table);
  EXPECT_EQ(this->GetTable(renamed.name), std::nullopt);
  EXPECT_EQ(this->GetTable(moved_schema.name), std::nullopt);
}

TYPED_TEST(CatalogStoreContractTest, UpdateOfMissingTableIsNotFound) {
  const TableEntry never = this->NewTable("never");
  EXPECT_THAT(this->store().UpdateTable(never, never.updated_at_ms),
              HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetTable(never.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(never.table_id), std::nullopt);
}

// --- RenameTable --------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, RenameMovesTheNameAndKeepsIdAndLocation) {
  const TableEntry table = this->NewTable("before");
  this->MustCreate(table);
  const int64_t renamed_at = table.updated_at_ms + 500;
  Status s = this->store().RenameTable(table.name, "after", renamed_at);
  ASSERT_TRUE(s.ok()) << s.ToString();

  TableEntry expected = table;
  expected.name.name = "after";
  expected.updated_at_ms = renamed_at;
  const std::optional<TableEntry> renamed = this->GetTable(this->Name("after"));
  EXPECT_EQ(renamed, expected);
  if (renamed) {
    EXPECT_EQ(renamed->table_id, table.table_id);
    EXPECT_EQ(renamed->storage_location, table.storage_location);
    EXPECT_EQ(renamed->updated_at_ms, renamed_at);
  }
  EXPECT_EQ(this->GetTable(this->Name("before")), std::nullopt);
  EXPECT_EQ(this->GetTableById(table.table_id), expected);
  EXPECT_THAT(this->TableNames(), ElementsAre("after"));

  // The rename is a change an update made from an earlier read must see.
  TableEntry stale = table;
  stale.updated_at_ms = renamed_at + 1;
  stale.name.name = "after";
  EXPECT_THAT(this->store().UpdateTable(stale, table.updated_at_ms),
              HasCode(StatusCode::kFailedPrecondition));
  EXPECT_TRUE(this->store().UpdateTable(stale, renamed_at).ok());

  // The old name is free again.
  const TableEntry successor = this->NewTable("before");
  this->MustCreate(successor);
  EXPECT_EQ(this->GetTable(this->Name("before")), successor);
}

TYPED_TEST(CatalogStoreContractTest, RenameToATakenNameIsAlreadyExists) {
  const TableEntry a = this->NewTable("a");
  const TableEntry b = this->NewTable("b");
  this->MustCreate(a);
  this->MustCreate(b);
  EXPECT_THAT(this->store().RenameTable(a.name, "b", a.updated_at_ms + 1),
              HasCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(this->GetTable(a.name), a);
  EXPECT_EQ(this->GetTable(b.name), b);
}

TYPED_TEST(CatalogStoreContractTest, RenameOfMissingTableIsNotFound) {
  EXPECT_THAT(this->store().RenameTable(this->Name("missing"), "found", kT0),
              HasCode(StatusCode::kNotFound));
  EXPECT_THAT(this->store().RenameTable({this->catalog_.name, Fresh("s-"), "t"}, "u", kT0),
              HasCode(StatusCode::kNotFound));
  EXPECT_EQ(this->GetTable(this->Name("found")), std::nullopt);
}

// The updated_at_ms passed is not stored either.
TYPED_TEST(CatalogStoreContractTest, RenameToTheSameNameChangesNothing) {
  const TableEntry table = this->NewTable("same");
  this->MustCreate(table);
  Status s = this->store().RenameTable(table.name, "same", table.updated_at_ms + 1);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(this->GetTable(table.name), table);
  EXPECT_THAT(this->TableNames(), ElementsAre("same"));
}

// The message names the character (ValidateCatalogName).
TYPED_TEST(CatalogStoreContractTest, RenameToAnInvalidNameIsInvalidArgument) {
  const TableEntry table = this->NewTable("valid");
  this->MustCreate(table);
  EXPECT_THAT(this->store().RenameTable(table.name, "a.b", table.updated_at_ms + 1),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("'.'")));
  EXPECT_EQ(this->GetTable(table.name), table);
  EXPECT_THAT(this->TableNames(), ElementsAre("valid"));
}

// --- DeleteTable --------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, DeletedTableIsGoneAndFreesItsNameAndLocation) {
  const TableEntry doomed = this->NewTable("doomed");
  const TableEntry neighbour = this->NewTable("neighbour");
  this->MustCreate(doomed);
  this->MustCreate(neighbour);
  ASSERT_TRUE(this->store().DeleteTable(doomed.name).ok());
  EXPECT_EQ(this->GetTable(doomed.name), std::nullopt);
  EXPECT_EQ(this->GetTableById(doomed.table_id), std::nullopt);
  EXPECT_THAT(this->TableNames(), ElementsAre("neighbour"));
  EXPECT_EQ(this->GetTable(neighbour.name), neighbour);
  EXPECT_THAT(this->store().DeleteTable(doomed.name), HasCode(StatusCode::kNotFound));

  // A new table (a new id) may take the name and the location again.
  TableEntry successor = this->NewTable("doomed");
  successor.storage_location = doomed.storage_location;
  this->MustCreate(successor);
  EXPECT_EQ(this->GetTable(doomed.name), successor);
  EXPECT_EQ(this->GetTableById(successor.table_id), successor);
}

TYPED_TEST(CatalogStoreContractTest, DeleteOfMissingTableIsNotFound) {
  EXPECT_THAT(this->store().DeleteTable(this->Name("missing")), HasCode(StatusCode::kNotFound));
  EXPECT_THAT(this->store().DeleteTable({this->catalog_.name, Fresh("s-"), "t"}),
              HasCode(StatusCode::kNotFound));
  EXPECT_THAT(this->store().DeleteTable({Fresh("c-"), this->schema_.name, "t"}),
              HasCode(StatusCode::kNotFound));
}

// --- validation ---------------------------------------------------------------
// Every write refuses an entry ValidateEntry refuses, with kInvalidArgument
// naming the field, and stores nothing of it. Each entry below is valid but
// for the one field under test, so the refusal is for that field.

TYPED_TEST(CatalogStoreContractTest, InvalidNamesAreRefusedAndNothingStored) {
  const TableEntry existing = this->NewTable("existing");
  this->MustCreate(existing);
  for (const std::string& bad : BadNames()) {
    SCOPED_TRACE("name \"" + bad + "\"");
    EXPECT_THAT(this->store().CreateCatalog(CatalogNamed(bad)),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("catalog name")));
    EXPECT_EQ(this->GetCatalog(bad), std::nullopt);

    EXPECT_THAT(this->store().CreateSchema(this->NewSchema(bad)),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("schema name")));
    EXPECT_EQ(this->GetSchema(this->catalog_.name, bad), std::nullopt);

    const StagingTableEntry staging = this->NewStaging(bad);
    EXPECT_THAT(this->store().CreateStagingTable(staging),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("table name")));
    EXPECT_EQ(this->GetStaging(staging.table_id), std::nullopt);
    EXPECT_EQ(this->StagingAt(staging.location), std::nullopt);

    const TableEntry table = this->NewTable(bad);
    EXPECT_THAT(this->store().CreateTable(table, std::nullopt),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("table name")));
    EXPECT_EQ(this->GetTableById(table.table_id), std::nullopt);

    // From a valid staging table: refused, and the staging table is left
    // unfinalised.
    const StagingTableEntry valid = this->NewStaging("valid");
    this->MustCreate(valid);
    TableEntry from_staging = TableFrom(valid);
    from_staging.name.name = bad;
    EXPECT_THAT(this->store().CreateTable(from_staging, valid.table_id),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("table name")));
    EXPECT_EQ(this->GetStaging(valid.table_id), valid);
    EXPECT_EQ(this->GetTableById(valid.table_id), std::nullopt);

    TableEntry update = existing;
    update.name.name = bad;
    EXPECT_THAT(this->store().UpdateTable(update, existing.updated_at_ms),
                HasCode(StatusCode::kInvalidArgument));
    EXPECT_THAT(this->store().RenameTable(existing.name, bad, existing.updated_at_ms + 1),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("table name")));
  }
  EXPECT_EQ(this->GetTable(existing.name), existing);
  EXPECT_THAT(this->TableNames(), ElementsAre("existing"));
  EXPECT_THAT(Must(this->store().ListSchemas(this->catalog_.name)), ElementsAre(this->schema_));
}

TYPED_TEST(CatalogStoreContractTest, InvalidIdsAreRefusedAndNothingStored) {
  const std::string uuid = NewUuid();
  const std::vector<std::string> bad_ids = {
      "not-a-uuid",
      "123E4567-E89B-42D3-A456-426614174000",  // upper case
      "",
      uuid + "0",
      uuid.substr(0, 8) + uuid.substr(9, 1) + "-" + uuid.substr(10),  // dash one on
  };
  for (const std::string& bad : bad_ids) {
    SCOPED_TRACE("id \"" + bad + "\"");
    CatalogEntry catalog = CatalogNamed(Fresh("c-"));
    catalog.id = bad;
    EXPECT_THAT(this->store().CreateCatalog(catalog),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("catalog id")));
    EXPECT_EQ(this->GetCatalog(catalog.name), std::nullopt);

    SchemaEntry schema = this->NewSchema(Fresh("s-"));
    schema.id = bad;
    EXPECT_THAT(this->store().CreateSchema(schema),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("schema id")));
    EXPECT_EQ(this->GetSchema(schema.catalog, schema.name), std::nullopt);

    StagingTableEntry staging = this->NewStaging("staged");
    staging.table_id = bad;
    EXPECT_THAT(this->store().CreateStagingTable(staging),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("table id")));
    EXPECT_EQ(this->StagingAt(staging.location), std::nullopt);

    TableEntry table = this->NewTable("table");
    table.table_id = bad;
    EXPECT_THAT(this->store().CreateTable(table, std::nullopt),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("table id")));
    EXPECT_THAT(this->store().CreateTable(table, bad), HasCode(StatusCode::kInvalidArgument));
    EXPECT_EQ(this->GetTable(table.name), std::nullopt);
  }
  EXPECT_THAT(this->TableNames(), IsEmpty());
}

TYPED_TEST(CatalogStoreContractTest, InvalidLocationsAreRefusedAndNothingStored) {
  const TableEntry existing = this->NewTable("existing");
  this->MustCreate(existing);
  // Not normalised (a trailing '/'), or none.
  for (const std::string& bad : {TableLocation(NewUuid()) + "/", std::string()}) {
    SCOPED_TRACE("location \"" + bad + "\"");
    StagingTableEntry staging = this->NewStaging("staged");
    staging.location = bad;
    EXPECT_THAT(this->store().CreateStagingTable(staging),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("location")));
    EXPECT_EQ(this->GetStaging(staging.table_id), std::nullopt);

    TableEntry table = this->NewTable("table");
    table.storage_location = bad;
    EXPECT_THAT(this->store().CreateTable(table, std::nullopt),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("location")));
    EXPECT_EQ(this->GetTable(table.name), std::nullopt);
    EXPECT_EQ(this->GetTableById(table.table_id), std::nullopt);

    TableEntry update = existing;
    update.storage_location = bad;
    update.updated_at_ms = existing.updated_at_ms + 1;
    EXPECT_THAT(this->store().UpdateTable(update, existing.updated_at_ms),
                HasCode(StatusCode::kInvalidArgument));
  }
  // A storage root, when there is one, is a normalised URI too.
  const std::string bad_root = "s3://bucket/warehouse/roots/" + NewUuid() + "/";
  CatalogEntry catalog = CatalogNamed(Fresh("c-"));
  catalog.storage_root = bad_root;
  EXPECT_THAT(this->store().CreateCatalog(catalog),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("storage root")));
  EXPECT_EQ(this->GetCatalog(catalog.name), std::nullopt);
  SchemaEntry schema = this->NewSchema(Fresh("s-"));
  schema.storage_root = bad_root;
  EXPECT_THAT(this->store().CreateSchema(schema),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("storage root")));
  EXPECT_EQ(this->GetSchema(schema.catalog, schema.name), std::nullopt);

  EXPECT_EQ(this->GetTable(existing.name), existing);
  EXPECT_THAT(this->TableNames(), ElementsAre("existing"));
}

TYPED_TEST(CatalogStoreContractTest, NegativeTimesAreRefusedAndNothingStored) {
  const TableEntry existing = this->NewTable("existing");
  this->MustCreate(existing);

  CatalogEntry catalog = CatalogNamed(Fresh("c-"));
  catalog.created_at_ms = -1;
  EXPECT_THAT(this->store().CreateCatalog(catalog),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("created_at")));
  catalog.created_at_ms = kT0;
  catalog.updated_at_ms = -1;
  EXPECT_THAT(this->store().CreateCatalog(catalog),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("updated_at")));
  EXPECT_EQ(this->GetCatalog(catalog.name), std::nullopt);

  SchemaEntry schema = this->NewSchema(Fresh("s-"));
  schema.created_at_ms = -1;
  EXPECT_THAT(this->store().CreateSchema(schema),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("created_at")));
  EXPECT_EQ(this->GetSchema(schema.catalog, schema.name), std::nullopt);

  StagingTableEntry staging = this->NewStaging("staged");
  staging.created_at_ms = -1;
  EXPECT_THAT(this->store().CreateStagingTable(staging),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("created_at")));
  EXPECT_EQ(this->GetStaging(staging.table_id), std::nullopt);

  TableEntry created = this->NewTable("created");
  created.created_at_ms = -1;
  TableEntry updated = this->NewTable("updated");
  updated.updated_at_ms = -1;
  TableEntry committed = this->NewTable("committed");
  committed.last_commit_timestamp_ms = -1;
  for (const TableEntry& table : {created, updated, committed}) {
    SCOPED_TRACE(table.name.name);
    EXPECT_THAT(this->store().CreateTable(table, std::nullopt),
                HasCode(StatusCode::kInvalidArgument));
    EXPECT_EQ(this->GetTableById(table.table_id), std::nullopt);
  }

  TableEntry update = existing;
  update.updated_at_ms = -1;
  EXPECT_THAT(this->store().UpdateTable(update, existing.updated_at_ms),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("updated_at")));
  EXPECT_EQ(this->GetTable(existing.name), existing);
  EXPECT_THAT(this->TableNames(), ElementsAre("existing"));
}

// --- peers --------------------------------------------------------------------
// Two store objects on one backing store, as two service instances.

TYPED_TEST(CatalogStoreContractTest, PeerSeesWhatAnotherStoreObjectWrote) {
  std::shared_ptr<CatalogStore> peer = this->env_->NewPeer();
  ASSERT_TRUE(peer != nullptr);
  const TableEntry table = this->NewTable("shared");
  // Read first, so a store that caches would now answer stale.
  EXPECT_EQ(Must(peer->GetTable(table.name)), std::nullopt);
  this->MustCreate(table);
  EXPECT_EQ(Must(peer->GetTable(table.name)), table);
  EXPECT_EQ(Must(peer->GetTableById(table.table_id)), table);
  EXPECT_THAT(NamesOf(Must(peer->ListTables(this->catalog_.name, this->schema_.name, "", 10))),
              ElementsAre("shared"));
  EXPECT_EQ(Must(peer->GetCatalog(this->catalog_.name)), this->catalog_);
  EXPECT_THAT(Must(peer->ListSchemas(this->catalog_.name)), ElementsAre(this->schema_));

  // And the other way round.
  TableEntry updated = table;
  updated.comment = "from the peer";
  updated.updated_at_ms = table.updated_at_ms + 1;
  Status s = peer->UpdateTable(updated, table.updated_at_ms);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(this->GetTable(table.name), updated);
  const StagingTableEntry staging = this->NewStaging("peer-staged");
  s = peer->CreateStagingTable(staging);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(this->GetStaging(staging.table_id), staging);
}

// --- the metastore ---------------------------------------------------------

// Peers racing for the first id all get the one that won, and it outlives
// the store object (the DynamoDB table is shared by every run, so its id
// may have been made by an earlier one).
TYPED_TEST(CatalogStoreContractTest, TheMetastoreIdIsMadeOnceAndSharedByPeers) {
  constexpr size_t kThreads = 6;
  const std::vector<std::shared_ptr<CatalogStore>> peers = {this->env_->NewPeer(),
                                                            this->env_->NewPeer()};
  ASSERT_TRUE(peers[0] != nullptr && peers[1] != nullptr);
  std::vector<StatusOr<std::string>> ids(kThreads, std::string());
  std::barrier start(static_cast<std::ptrdiff_t>(kThreads));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      ids[t] = peers[t % peers.size()]->MetastoreId();
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_TRUE(ids[0].ok()) << ids[0].status().ToString();
  EXPECT_EQ(ids[0]->size(), 36u) << *ids[0];
  for (const StatusOr<std::string>& id : ids) {
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_EQ(*id, *ids[0]);
  }
  this->env_->Reopen();
  EXPECT_EQ(Must(this->store().MetastoreId()), *ids[0]);
}

TYPED_TEST(CatalogStoreContractTest, RacingCreatesOfOneNameExactlyOneWins) {
  constexpr size_t kThreads = 8;
  const std::vector<std::shared_ptr<CatalogStore>> peers = {this->env_->NewPeer(),
                                                            this->env_->NewPeer()};
  ASSERT_TRUE(peers[0] != nullptr && peers[1] != nullptr);
  std::vector<TableEntry> tables;  // one name, each its own id and location
  for (size_t t = 0; t < kThreads; ++t) tables.push_back(this->NewTable("raced"));
  std::vector<Status> results(kThreads);
  std::barrier start(static_cast<std::ptrdiff_t>(kThreads));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      CatalogStore& peer = *peers[t % peers.size()];
      start.arrive_and_wait();
      results[t] = peer.CreateTable(tables[t], std::nullopt);
    });
  }
  for (std::thread& thread : threads) thread.join();

  std::vector<size_t> winners;
  for (size_t t = 0; t < kThreads; ++t) {
    if (results[t].ok()) {
      winners.push_back(t);
    } else {
      EXPECT_THAT(results[t], HasCode(StatusCode::kAlreadyExists)) << "thread " << t;
    }
  }
  ASSERT_EQ(winners.size(), 1u);
  EXPECT_EQ(this->GetTable(this->Name("raced")), tables[winners[0]]);
  for (size_t t = 0; t < kThreads; ++t) {
    if (t != winners[0]) {
      EXPECT_EQ(this->GetTableById(tables[t].table_id), std::nullopt);
    }
  }
  EXPECT_THAT(this->TableNames(), ElementsAre("raced"));
}

TYPED_TEST(CatalogStoreContractTest, RacingUpdatesFromOneReadExactlyOneWins) {
  constexpr size_t kThreads = 8;
  const TableEntry table = this->NewTable("contended");
  this->MustCreate(table);
  const std::vector<std::shared_ptr<CatalogStore>> peers = {this->env_->NewPeer(),
                                                            this->env_->NewPeer()};
  ASSERT_TRUE(peers[0] != nullptr && peers[1] != nullptr);
  std::vector<TableEntry> updates;
  for (size_t t = 0; t < kThreads; ++t) {
    TableEntry update = table;
    update.comment = "writer " + std::to_string(t);
    update.updated_at_ms = table.updated_at_ms + 1 + static_cast<int64_t>(t);
    updates.push_back(update);
  }
  std::vector<Status> results(kThreads);
  std::barrier start(static_cast<std::ptrdiff_t>(kThreads));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      CatalogStore& peer = *peers[t % peers.size()];
      start.arrive_and_wait();
      results[t] = peer.UpdateTable(updates[t], table.updated_at_ms);
    });
  }
  for (std::thread& thread : threads) thread.join();

  std::vector<size_t> winners;
  for (size_t t = 0; t < kThreads; ++t) {
    if (results[t].ok()) {
      winners.push_back(t);
    } else {
      EXPECT_THAT(results[t], HasCode(StatusCode::kFailedPrecondition)) << "thread " << t;
    }
  }
  ASSERT_EQ(winners.size(), 1u);
  EXPECT_EQ(this->GetTable(table.name), updates[winners[0]]);
}

// --- reopen -------------------------------------------------------------------

TYPED_TEST(CatalogStoreContractTest, EntriesSurviveReopen) {
  const StagingTableEntry staged = this->NewStaging("staged");
  this->MustCreate(staged);
  const TableEntry table = TableFrom(staged);
  this->MustCreate(table, staged.table_id);
  const StagingTableEntry pending = this->NewStaging("pending");
  this->MustCreate(pending);
  TableEntry external = this->NewTable("external");
  external.type = TableType::kExternal;
  this->MustCreate(external);

  this->env_->Reopen();

  EXPECT_EQ(this->GetCatalog(this->catalog_.name), this->catalog_);
  EXPECT_EQ(this->GetSchema(this->catalog_.name, this->schema_.name), this->schema_);
  EXPECT_EQ(this->GetTable(table.name), table);
  EXPECT_EQ(this->GetTableById(table.table_id), table);
  EXPECT_EQ(this->GetTable(external.name), external);
  EXPECT_THAT(this->TableNames(), ElementsAre("external", "staged"));
  StagingTableEntry finalised = staged;
  finalised.finalized = true;
  EXPECT_EQ(this->GetStaging(staged.table_id), finalised);
  EXPECT_EQ(this->GetStaging(pending.table_id), pending);
  EXPECT_EQ(this->StagingAt(pending.location), pending);

  // What is taken stays taken; the pending staging table can still finish.
  EXPECT_THAT(this->store().CreateTable(this->NewTable("staged"), std::nullopt),
              HasCode(StatusCode::kAlreadyExists));
  this->MustCreate(TableFrom(pending), pending.table_id);
  StagingTableEntry pending_finalised = pending;
  pending_finalised.finalized = true;
  EXPECT_EQ(this->GetStaging(pending.table_id), pending_finalised);
}

// --- CatalogEntriesTest: the checks every store relies on ----------------------

TEST(CatalogEntriesTest, NamesOfLettersDigitsUnderscoreAndDashAreAllowed) {
  for (const std::string& name : std::vector<std::string>{"a", "Z", "0", "_", "-", "Sales_2024-eu",
                                                          "a1-B2_c3", std::string(255, 'x')}) {
    Status s = ValidateCatalogName("table", name);
    EXPECT_TRUE(s.ok()) << name << ": " << s.ToString();
  }
}

TEST(CatalogEntriesTest, RefusedNameNamesWhatAndTheFirstBadCharacter) {
  struct Case {
    std::string name;
    std::string shown;  // how the message names the character
  };
  const std::vector<Case> cases = {
      {"a.b", "'.'"},
      {"a/b", "'/'"},
      {"100%", "'%'"},
      {"a b", "byte 0x20"},  // a space is not printed bare
      {std::string("a\x01") + "b", "byte 0x01"},
      {"tab\tbed", "byte 0x09"},
      {"del\x7f", "byte 0x7F"},
      {"caf\xc3\xa9", "byte 0xC3"},  // UTF-8: the first byte of the 'e' acute
      {"a.b/c", "'.'"},              // the first, not the last
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.shown);
    Status s = ValidateCatalogName("schema", c.name);
    EXPECT_THAT(s, StatusIs(StatusCode::kInvalidArgument, HasSubstr("schema name")));
    EXPECT_THAT(s.message(), HasSubstr(" has " + c.shown));
  }
  Status first_only = ValidateCatalogName("schema", "a.b/c");
  EXPECT_THAT(first_only.message(), Not(HasSubstr("has '/'")));
}

TEST(CatalogEntriesTest, EmptyAndOverlongNamesAreRefused) {
  EXPECT_THAT(ValidateCatalogName("catalog", ""),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("catalog name")));
  EXPECT_THAT(ValidateCatalogName("table", std::string(256, 'x')),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("table name")));
}

TEST(CatalogEntriesTest, UuidsAreCanonicalLowerCase) {
  for (const std::string& uuid :
       std::vector<std::string>{NewUuid(), "123e4567-e89b-42d3-a456-426614174000",
                                "00000000-0000-0000-0000-000000000000"}) {
    EXPECT_TRUE(ValidateUuid("table id", uuid).ok()) << uuid;
  }
}

TEST(CatalogEntriesTest, NonCanonicalUuidsAreRefusedNamingWhat) {
  const std::vector<std::string> refused = {
      "123E4567-E89B-42D3-A456-426614174000",  // upper case
      "123e4567-e89b-42d3-a456-42661417400A",  // one upper-case digit
      "123e4567e-89b-42d3-a456-426614174000",  // first dash one on
      "123e4567-e89b-42d3-a4564-26614174000",  // last dash one on
      "123e4567-e89b42d3--a456-426614174000",  // a dash moved
      "123e4567e89b42d3a456426614174000",      // no dashes
      "{123e4567-e89b-42d3-a456-426614174000}",
      "123e4567-e89b-42d3-a456-42661417400g",
      "123e4567-e89b-42d3-a456-4266141740000",
      "123e4567-e89b-42d3-a456-42661417400",
      "",
  };
  for (const std::string& text : refused) {
    EXPECT_THAT(ValidateUuid("staging table id", text),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("staging table id")))
        << text;
  }
}

}  // namespace
}  // namespace service
}  // namespace deltacommit
