#include "table/catalog_access.h"

#include <cstdlib>
#include <functional>
#include <mutex>
#include <utility>

#include "deltacommit/logstore/catalog_log_store.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/s3/s3_object_store.h"
#include "deltacommit/table/aws_storage_options.h"
#include "deltacommit/unity_client/delta_rest_catalog_client.h"
#include "table/service_access.h"

namespace deltacommit {
namespace {

// Vended credentials are asked again this long before they expire, so a
// request never leaves with credentials about to lapse.
constexpr int64_t kRefreshBeforeExpiryMs = 60'000;

// The credentials the catalog vends for the table's location: READ_WRITE,
// or READ when the catalog refuses the token more (a reader's token); for a
// staging table, its own until it is registered.
class CatalogCredentials : public aws::CredentialsProvider {
 public:
  using Fetch = std::function<StatusOr<VendedCredentials>()>;

  CatalogCredentials(std::string name, Fetch fetch, Clock& clock,
                     std::optional<aws::Credentials> seed = std::nullopt)
      : name_(std::move(name)), clock_(clock), fetch_(std::move(fetch)), cached_(std::move(seed)) {}

  // For a table the catalog vends credentials for by name.
  static Fetch ForTable(CatalogClient& catalog, CatalogTableName name, std::string location) {
    return [&catalog, name = std::move(name),
            location = std::move(location)]() -> StatusOr<VendedCredentials> {
      StatusOr<VendedCredentials> vended =
          catalog.TableCredentials(name, location, CatalogAccess::kReadWrite);
      if (vended.status().code() != StatusCode::kPermissionDenied) return vended;
      return catalog.TableCredentials(name, location, CatalogAccess::kRead);
    };
  }

  std::string Name() const override { return name_; }

  // Starts over with `fetch` (a staging table that is now registered),
  // keeping `seed` until it is due for renewal.
  void Reset(Fetch fetch, std::optional<aws::Credentials> seed = std::nullopt) {
    std::lock_guard<std::mutex> lock(mu_);
    fetch_ = std::move(fetch);
    cached_ = std::move(seed);
  }

  StatusOr<aws::Credentials> GetCredentials() override {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t now = clock_.NowMillis();
    if (cached_ &&
        (!cached_->expiration_ms || *cached_->expiration_ms - now > kRefreshBeforeExpiryMs)) {
      return *cached_;
    }
    DC_ASSIGN_OR_RETURN(VendedCredentials vended, fetch_());
    DC_ASSIGN_OR_RETURN(cached_, ToAws(vended, name_));
    return *cached_;
  }

  static StatusOr<aws::Credentials> ToAws(const VendedCredentials& vended,
                                          const std::string& source) {
    if (vended.access_key_id.empty() || vended.secret_access_key.empty()) {
      return UnauthenticatedError(source +
                                  ": no S3 credentials in the catalog's answer (does the catalog "
                                  "vend credentials for this bucket?)");
    }
    aws::Credentials credentials;
    credentials.access_key_id = vended.access_key_id;
    credentials.secret_access_key = vended.secret_access_key;
    credentials.session_token = vended.session_token;
    credentials.expiration_ms = vended.expiration_ms;
    credentials.source = source;
    return credentials;
  }

 private:
  const std::string name_;
  Clock& clock_;
  std::mutex mu_;
  Fetch fetch_;                             // under mu_
  std::optional<aws::Credentials> cached_;  // under mu_
};

// An option, else its environment variable, else "".
std::string OptionOrEnv(const std::string& given, const char* variable) {
  if (!given.empty()) return given;
  const char* env = std::getenv(variable);
  return env != nullptr ? std::string(env) : std::string();
}

Status CheckCatalogMode(const TableOptions& o) {
  if (o.mode && *o.mode != CommitMode::kUnityCatalog) {
    return InvalidArgumentError("--log-store \"" + std::string(CommitModeName(*o.mode)) +
                                "\": a uc:// table commits through its catalog (unity-catalog)");
  }
  if (o.create_dynamodb_table) {
    return InvalidArgumentError(
        "--create-dynamodb-table: only for --log-store s3-dynamodb (this table commits through "
        "its catalog)");
  }
  if (!o.storage_options.empty()) {
    return InvalidArgumentError(
        "--storage-option: not for uc:// tables (their commits go through the catalog)");
  }
  return CheckNoServiceOptions(o, "unity-catalog");
}

// The log of a name the catalog does not know: every read says so.
class UnregisteredCatalogTable : public LogStore {
 public:
  explicit UnregisteredCatalogTable(Status not_found)
      : not_found_(not_found.WithContext("create the table first (deltacommit create uc://...)")) {}
  std::string Describe() const override { return "unregistered catalog table"; }
  Status Write(Version, std::string_view) override { return not_found_; }
  StatusOr<std::vector<ObjectMeta>> List(Version) override { return not_found_; }
  StatusOr<std::string> Read(std::string_view) override { return not_found_; }

 private:
  const Status not_found_;
};

// The store at `location` (local, or S3 with the catalog's credentials from
// `fetch`), metered, as open.store; open.uri names it.
Status AttachStore(TableAdapters& open, const std::string& location,
                   CatalogCredentials::Fetch fetch, const TableOptions& o,
                   std::optional<aws::Credentials> seed = std::nullopt) {
  if (location.starts_with("file://")) {
    open.uri = location.substr(7);
    open.store = open.Metered(std::make_unique<PosixObjectStore>(open.uri));
    return OkStatus();
  }
  Clock& clock = o.clock != nullptr ? *o.clock : SystemClock();
  Sleeper& sleeper = o.sleeper != nullptr ? *o.sleeper : RealSleeper();
  DC_ASSIGN_OR_RETURN(S3StoreConfig config, S3ConfigOf(location, o));
  auto credentials = std::make_unique<CatalogCredentials>(
      "vended by " + open.catalog->Describe() + " for " + open.catalog_name->FullName(),
      std::move(fetch), clock, std::move(seed));
  auto s3 = std::make_unique<S3ObjectStore>(config, *open.http, *credentials, clock, sleeper);
  open.uri = s3->Describe();
  open.store = open.Metered(std::move(s3));
  open.credentials = std::move(credentials);
  return OkStatus();
}

// open.log: the catalog log store of the table `table_id` at open.store.
void AttachCatalogLog(TableAdapters& open, const std::string& table_id, bool registered) {
  auto log = std::make_unique<CatalogLogStore>(*open.store, *open.catalog, *open.catalog_name,
                                               table_id, /*hooks=*/nullptr, registered);
  log->OnWarning(open.catalog_warn);
  open.log = std::move(log);
}

// open.own_credentials (the writer's chain) and open.service_credentials,
// its temporary session, for a catalog that passes credentials through.
Status AttachOwnCredentials(const TableOptions& o, TableAdapters& open) {
  DC_ASSIGN_OR_RETURN(auto storage, CheckStorageOptions(o.storage_options));
  DC_ASSIGN_OR_RETURN(AwsStorageOptions aws, ReadAwsStorageOptions(o, storage));
  open.own_credentials = aws::DefaultCredentialsChain(ChainOptions(aws));
  DC_ASSIGN_OR_RETURN(aws::AwsServiceConfig s3, S3ServiceOf(o));
  DC_ASSIGN_OR_RETURN(open.service_credentials,
                      WriterSession(o, /*storage=*/{}, s3, *open.own_credentials, open));
  return OkStatus();
}

}  // namespace

Status CheckNoCatalogOptions(const TableOptions& o) {
  if (o.catalog_url.empty() && o.catalog_token.empty() && !o.catalog_send_credentials) {
    return OkStatus();
  }
  return InvalidArgumentError(
      std::string(!o.catalog_url.empty()     ? "--catalog-url"
                  : !o.catalog_token.empty() ? "--catalog-token"
                                             : "--catalog-send-credentials") +
      ": only for tables opened by their catalog name, uc://<catalog>.<schema>.<table>");
}

StatusOr<std::unique_ptr<TableAdapters>> OpenCatalogTable(
    std::string_view uri, const TableOptions& o, std::function<void(const std::string&)> warn) {
  DC_ASSIGN_OR_RETURN(CatalogTableName name, ParseCatalogTableName(uri));
  DC_RETURN_IF_ERROR(CheckCatalogMode(o));
  unity_client::DeltaRestCatalogOptions catalog;
  catalog.url = OptionOrEnv(o.catalog_url, "DELTACOMMIT_CATALOG_URL");
  catalog.token = OptionOrEnv(o.catalog_token, "DELTACOMMIT_CATALOG_TOKEN");
  if (catalog.url.empty()) {
    return InvalidArgumentError("table " + std::string(uri) +
                                ": --catalog-url is required (else DELTACOMMIT_CATALOG_URL): the "
                                "catalog that manages the table");
  }
  auto open = std::make_unique<TableAdapters>();
  open->mode = CommitMode::kUnityCatalog;
  open->meter = o.meter;
  open->catalog_warn = std::move(warn);
  open->http = aws::NewCurlHttpClient(HttpOptionsOf(o));
  if (o.catalog_send_credentials ||
      OptionOrEnv("", "DELTACOMMIT_CATALOG_SEND_CREDENTIALS") == "true") {
    DC_RETURN_IF_ERROR(AttachOwnCredentials(o, *open));
    catalog.send_credentials = open->service_credentials.get();
  }
  Sleeper& sleeper = o.sleeper != nullptr ? *o.sleeper : RealSleeper();
  DC_ASSIGN_OR_RETURN(
      std::unique_ptr<CatalogClient> client,
      unity_client::DeltaRestCatalogClient::Create(std::move(catalog), *open->http, sleeper));
  open->catalog = open->Metered(std::move(client));
  StatusOr<CatalogTable> loaded = open->catalog->LoadTable(name);
  if (loaded.status().IsNotFound()) {
    // Not in the catalog (yet): usable only to create it (Table::Create).
    open->uri = "uc://" + name.FullName();
    open->catalog_name = name;
    open->catalog_options = o;
    open->log = std::make_unique<UnregisteredCatalogTable>(loaded.status());
    return open;
  }
  DC_ASSIGN_OR_RETURN(CatalogTable table, std::move(loaded));
  if (!table.managed) {
    return FailedPreconditionError(
        name.FullName() + " in " + open->catalog->Describe() +
        " is an EXTERNAL table: the catalog does not ratify its commits; open it by its "
        "location, " +
        table.location);
  }
  open->catalog_name = name;
  open->catalog_options = o;
  DC_RETURN_IF_ERROR(AttachStore(*open, table.location,
                                 CatalogCredentials::ForTable(*open->catalog, name, table.location),
                                 o));
  AttachCatalogLog(*open, table.table_id, /*registered=*/true);
  return open;
}

StatusOr<CatalogStagingTable> StageCatalogTable(TableAdapters& open, Metadata& metadata) {
  const CatalogTableName& name = *open.catalog_name;
  if (dynamic_cast<UnregisteredCatalogTable*>(open.log.get()) == nullptr) {
    return AlreadyExistsError(name.FullName() + " is already a table of " +
                              open.catalog->Describe() + ": not creating it again");
  }
  DC_ASSIGN_OR_RETURN(CatalogStagingTable staging, open.catalog->CreateStagingTable(name));
  for (const auto& [key, value] : staging.required_properties) {
    auto [it, added] = metadata.configuration.try_emplace(key, value);
    if (!added && it->second != value) {
      return InvalidArgumentError("table property " + key + "=\"" + it->second +
                                  "\": " + open.catalog->Describe() + " requires \"" + value +
                                  "\" for a catalog-managed table");
    }
  }
  // The catalog's required features, asked for as a property asks for one.
  for (const auto* list : {&staging.required_reader_features, &staging.required_writer_features}) {
    for (const std::string& feature : *list) {
      metadata.configuration["delta.feature." + feature] = "supported";
    }
  }
  std::optional<aws::Credentials> seed;
  if (!staging.credentials.access_key_id.empty()) {
    DC_ASSIGN_OR_RETURN(seed,
                        CatalogCredentials::ToAws(staging.credentials,
                                                  "vended by " + open.catalog->Describe() +
                                                      " for staging table " + staging.table_id));
  }
  CatalogClient& catalog = *open.catalog;
  const std::string id = staging.table_id;
  open.log.reset();  // it refers to the store replaced next
  DC_RETURN_IF_ERROR(AttachStore(
      open, staging.location, [&catalog, id] { return catalog.StagingTableCredentials(id); },
      open.catalog_options, std::move(seed)));
  AttachCatalogLog(open, staging.table_id, /*registered=*/false);
  return staging;
}

Status RegisterCatalogTable(TableAdapters& open, const CatalogStagingTable& staging,
                            const Protocol& protocol, const Metadata& metadata,
                            int64_t commit_timestamp_ms) {
  CatalogNewTable table;
  table.location = staging.location;
  table.protocol = protocol;
  table.metadata = metadata;
  table.commit_timestamp_ms = commit_timestamp_ms;
  DC_RETURN_IF_ERROR(open.catalog->CreateTable(*open.catalog_name, table)
                         .WithContext("version 0 is written at " + staging.location +
                                      " (staging table " + staging.table_id + ")"));
  if (auto* log = dynamic_cast<CatalogLogStore*>(open.log.get())) log->MarkRegistered();
  // Registered: from now on the table's credentials are asked by name.
  if (auto* credentials = dynamic_cast<CatalogCredentials*>(open.credentials.get())) {
    credentials->Reset(
        CatalogCredentials::ForTable(*open.catalog, *open.catalog_name, staging.location));
  }
  return OkStatus();
}

}  // namespace deltacommit
