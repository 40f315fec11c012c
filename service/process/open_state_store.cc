#include "service/process/open_state_store.h"

#include <utility>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "service/api/state_probe.h"
#include "service/catalog/dynamodb_catalog_store.h"
#include "service/catalog/sqlite_catalog_store.h"
#include "service/state/dynamodb_state_store.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service {
namespace {

class OpenedSqlite : public OpenedStateStore {
 public:
  OpenedSqlite(std::unique_ptr<SqliteStateStore> store,
               std::unique_ptr<SqliteCatalogStore> catalog)
      : store_(std::move(store)), catalog_(std::move(catalog)) {}
  StateStore& store() override { return *store_; }
  CatalogStore& catalog() override { return *catalog_; }

 private:
  std::unique_ptr<SqliteStateStore> store_;
  std::unique_ptr<SqliteCatalogStore> catalog_;
};

class OpenedDynamoDb : public OpenedStateStore {
 public:
  OpenedDynamoDb(const aws::AwsServiceConfig& service, const std::string& table)
      : http_(aws::NewCurlHttpClient()),
        credentials_(aws::DefaultCredentialsChain({})),
        client_(dynamodb::DynamoDbClientConfig{service, {}}, *http_, *credentials_),
        store_(client_, table),
        catalog_(client_, table) {}
  StateStore& store() override { return store_; }
  CatalogStore& catalog() override { return catalog_; }
  dynamodb::DynamoDbClient& client() { return client_; }

 private:
  std::unique_ptr<aws::HttpClient> http_;
  std::unique_ptr<aws::CredentialsProvider> credentials_;
  dynamodb::DynamoDbClient client_;
  DynamoDbStateStore store_;
  DynamoDbCatalogStore catalog_;
};

StatusOr<std::unique_ptr<OpenedStateStore>> OpenDynamoDb(const StateConfig& config,
                                                         http::JsonLogger& logger) {
  DC_ASSIGN_OR_RETURN(aws::AwsServiceConfig service, DynamoDbServiceConfig(config));
  auto opened = std::make_unique<OpenedDynamoDb>(service, config.dynamodb_table);
  auto probe = opened->store().Latest(kStateProbeTable);
  if (!probe.ok() && probe.status().IsNotFound()) {
    Status created = CreateServiceStateTable(opened->client(), config.dynamodb_table,
                                             dynamodb::DeltaLogTableBilling::PayPerRequest());
    if (!created.ok() && !created.IsAlreadyExists()) {
      return created.WithContext("creating the state store's DynamoDB table " +
                                 config.dynamodb_table);
    }
    logger.Info("created the state store's DynamoDB table",
                {{"dynamodb_table", config.dynamodb_table}, {"region", service.region}});
    probe = opened->store().Latest(kStateProbeTable);
  }
  if (!probe.ok()) return probe.status().WithContext(opened->store().Describe());
  return std::unique_ptr<OpenedStateStore>(std::move(opened));
}

}  // namespace

StatusOr<std::unique_ptr<OpenedStateStore>> OpenStateStore(const StateConfig& config,
                                                           http::JsonLogger& logger) {
  if (config.kind == StateConfig::Kind::kDynamoDb) return OpenDynamoDb(config, logger);
  DC_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStateStore> store,
                      SqliteStateStore::Open({config.sqlite_path}));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<SqliteCatalogStore> catalog,
                      SqliteCatalogStore::Open(config.sqlite_path));
  return std::unique_ptr<OpenedStateStore>(
      std::make_unique<OpenedSqlite>(std::move(store), std::move(catalog)));
}

}  // namespace deltacommit::service
