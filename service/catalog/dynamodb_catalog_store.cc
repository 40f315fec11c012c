#include "service/catalog/dynamodb_catalog_store.h"

#include <functional>
#include <map>
#include <string_view>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"
#include "service/catalog/catalog_entry_codec.h"
#include "service/state/dynamodb_state_items.h"

namespace deltacommit::service {

using dynamodb::AttributeValue;
using dynamodb::Expression;
using dynamodb::Item;

// The catalog item: its entry, schema entries (JSON, by name) and table ids
// (by schema, then name).
struct DynamoDbCatalogStore::CatalogItem {
  CatalogEntry entry;
  std::string entry_json;
  std::map<std::string, std::string> schemas;
  std::map<std::string, std::map<std::string, std::string>> tables;

  // The id `schema` maps `name` to, if any.
  std::optional<std::string> TableId(const std::string& schema, const std::string& name) const {
    auto in_schema = tables.find(schema);
    if (in_schema == tables.end()) return std::nullopt;
    auto it = in_schema->second.find(name);
    if (it == in_schema->second.end()) return std::nullopt;
    return it->second;
  }
};

struct DynamoDbCatalogStore::TableItem {
  TableEntry entry;  // its name may lag a rename (LiveName has the name)
  std::string entry_json;
  bool deleted = false;
};

struct DynamoDbCatalogStore::StagingItem {
  StagingTableEntry entry;
  std::string entry_json;
  std::string finalized_by;  // empty when not finalised (or by no attempt)
};

namespace {

using CatalogItem = DynamoDbCatalogStore::CatalogItem;
using TableItem = DynamoDbCatalogStore::TableItem;
using StagingItem = DynamoDbCatalogStore::StagingItem;

// A conditional write that lost to another writer is followed by a read
// that says why; more attempts mean the entry changes under each.
constexpr int kMaxAttempts = 3;

constexpr char kDirectoryKey[] = "#uc/catalogs";
constexpr char kEntry[] = "entry";
constexpr char kNames[] = "names";
constexpr char kSchemas[] = "schemas";
constexpr char kTables[] = "tables";
constexpr char kUpdatedAt[] = "updated_at_ms";
constexpr char kDeleted[] = "deleted";
constexpr char kHolder[] = "table_id";
constexpr char kFinalized[] = "finalized";
constexpr char kFinalizedBy[] = "finalized_by";
constexpr char kMetastoreKey[] = "#uc/metastore";
constexpr char kMetastoreId[] = "id";

std::string CatalogKey(const std::string& name) { return "#uc/catalog/" + name; }
std::string TableKey(const std::string& table_id) { return "#uc/table/" + table_id; }
std::string LocationKey(const std::string& location) { return "#uc/location/" + location; }
std::string StagingKey(const std::string& table_id) { return "#uc/staging/" + table_id; }

Item KeyOf(const std::string& key) {
  return {{kTableUriAttribute, AttributeValue::String(key)},
          {kVersionAttribute, AttributeValue::Number(int64_t{0})}};
}

AttributeValue Text(std::string text) { return AttributeValue::String(std::move(text)); }

// Conditions on the item as a whole: "#k" is the hash key, always present.
Expression IfAbsent() { return {"attribute_not_exists(#k)", {{"#k", kTableUriAttribute}}}; }

std::string SchemaName(const std::string& catalog, const std::string& schema) {
  return catalog + "." + schema;
}

// `written`, unless its reply was lost: then `applied` reads back whether it
// took effect. A read that fails leaves the outcome unknown.
template <typename ReadBack>
Status Settle(Status written, ReadBack applied) {
  if (!written.IsUnknownOutcome()) return written;
  StatusOr<bool> done = applied();
  if (!done.ok()) return written;
  if (*done) return OkStatus();
  return UnavailableError(written.message() + " (read back: it was not applied)");
}

// Sends a write that may be sent again as it is (its effect is the same
// once or twice) until its outcome is known.
template <typename Write>
Status Idempotent(Write write) {
  Status written;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    written = write();
    if (!written.IsUnknownOutcome()) return written;
  }
  return written;
}

// Steps that undo a multi-item write, run newest first unless dismissed.
// Their errors are dropped: what an undo leaves behind is harmless (see the
// header), and the caller reports the failure that caused it.
class Undo {
 public:
  Undo() = default;
  Undo(const Undo&) = delete;
  Undo& operator=(const Undo&) = delete;
  ~Undo() {
    if (!armed_) return;
    for (auto step = steps_.rbegin(); step != steps_.rend(); ++step) (*step)();
  }
  void Add(std::function<void()> step) { steps_.push_back(std::move(step)); }
  void Dismiss() { armed_ = false; }

 private:
  bool armed_ = true;
  std::vector<std::function<void()>> steps_;
};

// Reads the attributes of one item, kDataLoss naming it for any it lacks.
class ItemReader {
 public:
  ItemReader(const Item& item, std::string where) : item_(item), where_(std::move(where)) {}

  const std::string& where() const { return where_; }
  bool Has(const char* name) const { return item_.contains(name); }

  Status Malformed(std::string_view problem) const {
    return DataLossError(where_ + ": " + std::string(problem) +
                         "; deltacommit did not write it so (another program did, or it was "
                         "damaged)");
  }

  StatusOr<std::string> String(const char* name) const {
    if (auto value = dynamodb::GetString(item_, name)) return *value;
    return Malformed("attribute " + std::string(name) + " is missing or not a string (S)");
  }

  StatusOr<int64_t> Int(const char* name) const {
    auto it = item_.find(name);
    if (it != item_.end()) {
      if (auto value = it->second.AsInt64()) return *value;
    }
    return Malformed("attribute " + std::string(name) + " is missing or not an integer (N)");
  }

  // `absent` when there is no such attribute.
  StatusOr<bool> Bool(const char* name, std::optional<bool> absent) const {
    auto it = item_.find(name);
    if (it == item_.end() && absent) return *absent;
    if (it != item_.end() && it->second.type() == AttributeValue::Type::kBool)
      return it->second.bool_value();
    return Malformed("attribute " + std::string(name) + " is missing or not a boolean (BOOL)");
  }

  // A map whose values are all strings (S).
  StatusOr<std::map<std::string, std::string>> StringMap(const AttributeValue& value,
                                                         const std::string& path) const {
    if (value.type() != AttributeValue::Type::kMap)
      return Malformed("attribute " + path + " is not a map (M)");
    std::map<std::string, std::string> strings;
    for (const auto& [key, member] : value.map()) {
      if (member.type() != AttributeValue::Type::kString)
        return Malformed("attribute " + path + "." + key + " is not a string (S)");
      strings[key] = member.string_value();
    }
    return strings;
  }

  StatusOr<const AttributeValue*> Attribute(const char* name) const {
    auto it = item_.find(name);
    if (it == item_.end()) return Malformed("attribute " + std::string(name) + " is missing");
    return &it->second;
  }

 private:
  const Item& item_;
  const std::string where_;
};

StatusOr<CatalogItem> DecodeCatalogItem(const ItemReader& in, const std::string& name) {
  CatalogItem catalog;
  DC_ASSIGN_OR_RETURN(catalog.entry_json, in.String(kEntry));
  DC_ASSIGN_OR_RETURN(catalog.entry, DecodeCatalogEntry(catalog.entry_json, in.where()));
  if (catalog.entry.name != name)
    return in.Malformed("its entry names catalog " + QuoteForMessage(catalog.entry.name));
  DC_ASSIGN_OR_RETURN(const AttributeValue* schemas, in.Attribute(kSchemas));
  DC_ASSIGN_OR_RETURN(catalog.schemas, in.StringMap(*schemas, kSchemas));
  DC_ASSIGN_OR_RETURN(const AttributeValue* tables, in.Attribute(kTables));
  if (tables->type() != AttributeValue::Type::kMap)
    return in.Malformed("attribute tables is not a map (M)");
  for (const auto& [schema, ids] : tables->map()) {
    if (!catalog.schemas.contains(schema))
      return in.Malformed("tables." + schema + " is there without its schema");
    DC_ASSIGN_OR_RETURN(catalog.tables[schema],
                        in.StringMap(ids, std::string(kTables) + "." + schema));
  }
  for (const auto& [schema, json] : catalog.schemas) {
    if (!catalog.tables.contains(schema))
      return in.Malformed("schema " + QuoteForMessage(schema) + " has no map tables." + schema);
  }
  return catalog;
}

StatusOr<TableItem> DecodeTableItem(const ItemReader& in, const std::string& table_id) {
  TableItem table;
  DC_ASSIGN_OR_RETURN(table.entry_json, in.String(kEntry));
  DC_ASSIGN_OR_RETURN(table.entry, DecodeTableEntry(table.entry_json, in.where()));
  DC_ASSIGN_OR_RETURN(int64_t updated_at, in.Int(kUpdatedAt));
  DC_ASSIGN_OR_RETURN(table.deleted, in.Bool(kDeleted, false));
  if (table.entry.table_id != table_id)
    return in.Malformed("its entry has table id " + QuoteForMessage(table.entry.table_id));
  if (updated_at != table.entry.updated_at_ms)
    return in.Malformed("attribute updated_at_ms is not its entry's");
  return table;
}

StatusOr<StagingItem> DecodeStagingItem(const ItemReader& in, const std::string& table_id) {
  StagingItem staging;
  DC_ASSIGN_OR_RETURN(staging.entry_json, in.String(kEntry));
  DC_ASSIGN_OR_RETURN(staging.entry, DecodeStagingTableEntry(staging.entry_json, in.where()));
  DC_ASSIGN_OR_RETURN(bool finalized, in.Bool(kFinalized, std::nullopt));
  if (in.Has(kFinalizedBy)) {
    DC_ASSIGN_OR_RETURN(staging.finalized_by, in.String(kFinalizedBy));
  }
  if (staging.entry.table_id != table_id)
    return in.Malformed("its entry has table id " + QuoteForMessage(staging.entry.table_id));
  if (finalized != staging.entry.finalized)
    return in.Malformed("attribute finalized is not its entry's");
  return staging;
}

// The entry a table item holds, under the name its catalog maps it to.
TableEntry Named(const TableItem& item, const std::string& name) {
  TableEntry entry = item.entry;
  entry.name.name = name;
  return entry;
}

Item TableItemOf(const TableEntry& table) {
  Item item = KeyOf(TableKey(table.table_id));
  item[kEntry] = Text(EncodeEntry(table));
  item[kUpdatedAt] = AttributeValue::Number(table.updated_at_ms);
  return item;
}

}  // namespace

DynamoDbCatalogStore::DynamoDbCatalogStore(dynamodb::DynamoDbClient& client,
                                           std::string dynamodb_table)
    : client_(client), dynamodb_table_(std::move(dynamodb_table)) {}

std::string DynamoDbCatalogStore::Describe() const {
  const aws::AwsServiceConfig& service = client_.config().service;
  return "DynamoDB table " + dynamodb_table_ + " (" + service.region + ", " + service.endpoint_url +
         ")";
}

std::string DynamoDbCatalogStore::Where(const std::string& key) const {
  // Keys hold locations, which may be long: quote them whole.
  return "DynamoDB table " + dynamodb_table_ + " item " + QuoteForMessage(key, 4096);
}

// --- reads --------------------------------------------------------------------

StatusOr<std::optional<Item>> DynamoDbCatalogStore::ReadItem(const std::string& key) {
  StatusOr<std::optional<Item>> item = client_.GetItem({dynamodb_table_, KeyOf(key), true});
  if (!item.ok()) return item.status().WithContext("reading " + Where(key));
  return item;
}

StatusOr<std::optional<CatalogItem>> DynamoDbCatalogStore::ReadCatalog(const std::string& name) {
  const std::string key = CatalogKey(name);
  DC_ASSIGN_OR_RETURN(std::optional<Item> item, ReadItem(key));
  if (!item) return std::optional<CatalogItem>();
  DC_ASSIGN_OR_RETURN(CatalogItem catalog, DecodeCatalogItem(ItemReader(*item, Where(key)), name));
  return std::optional<CatalogItem>(std::move(catalog));
}

StatusOr<std::optional<TableItem>> DynamoDbCatalogStore::ReadTableItem(
    const std::string& table_id) {
  const std::string key = TableKey(table_id);
  DC_ASSIGN_OR_RETURN(std::optional<Item> item, ReadItem(key));
  if (!item) return std::optional<TableItem>();
  DC_ASSIGN_OR_RETURN(TableItem table, DecodeTableItem(ItemReader(*item, Where(key)), table_id));
  return std::optional<TableItem>(std::move(table));
}

StatusOr<std::optional<StagingItem>> DynamoDbCatalogStore::ReadStaging(
    const std::string& table_id) {
  const std::string key = StagingKey(table_id);
  DC_ASSIGN_OR_RETURN(std::optional<Item> item, ReadItem(key));
  if (!item) return std::optional<StagingItem>();
  DC_ASSIGN_OR_RETURN(StagingItem staging,
                      DecodeStagingItem(ItemReader(*item, Where(key)), table_id));
  return std::optional<StagingItem>(std::move(staging));
}

StatusOr<std::optional<std::string>> DynamoDbCatalogStore::ReadClaim(const std::string& location) {
  const std::string key = LocationKey(location);
  DC_ASSIGN_OR_RETURN(std::optional<Item> item, ReadItem(key));
  if (!item) return std::optional<std::string>();
  DC_ASSIGN_OR_RETURN(std::string holder, ItemReader(*item, Where(key)).String(kHolder));
  return std::optional<std::string>(std::move(holder));
}

StatusOr<std::optional<std::string>> DynamoDbCatalogStore::LiveName(const TableItem& item) {
  const TableName& name = item.entry.name;
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name.catalog));
  if (!catalog) return std::optional<std::string>();
  if (catalog->TableId(name.schema, name.name) == item.entry.table_id)
    return std::optional<std::string>(name.name);
  auto in_schema = catalog->tables.find(name.schema);
  if (in_schema == catalog->tables.end()) return std::optional<std::string>();
  for (const auto& [other_name, id] : in_schema->second) {
    if (id == item.entry.table_id) return std::optional<std::string>(other_name);
  }
  return std::optional<std::string>();
}

StatusOr<std::optional<TableEntry>> DynamoDbCatalogStore::NamedTable(const TableName& name,
                                                                     const std::string& table_id) {
  DC_ASSIGN_OR_RETURN(std::optional<TableItem> item, ReadTableItem(table_id));
  if (item) return std::optional<TableEntry>(Named(*item, name.name));
  // The item goes only after the name: unless the name went since, it was
  // deleted behind our back.
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name.catalog));
  if (!catalog || catalog->TableId(name.schema, name.name) != table_id)
    return std::optional<TableEntry>();
  return DataLossError(Where(TableKey(table_id)) + " is missing, though " +
                       Where(CatalogKey(name.catalog)) + " names table " + name.FullName() +
                       " by its id; deltacommit never deletes it first");
}

// --- catalogs -----------------------------------------------------------------

Status DynamoDbCatalogStore::ListInDirectory(const CatalogEntry& catalog) {
  const std::string context =
      "listing catalog " + QuoteForMessage(catalog.name) + " in " + Where(kDirectoryKey);
  dynamodb::UpdateItemRequest ensure;
  ensure.table = dynamodb_table_;
  ensure.key = KeyOf(kDirectoryKey);
  ensure.update = {"SET #m = if_not_exists(#m, :empty)",
                   {{"#m", kNames}},
                   {{":empty", AttributeValue::Map({})}}};
  DC_RETURN_IF_ERROR(Idempotent([&] { return client_.UpdateItem(ensure); }).WithContext(context));
  dynamodb::UpdateItemRequest list;
  list.table = dynamodb_table_;
  list.key = KeyOf(kDirectoryKey);
  list.update = {
      "SET #m.#n = :id", {{"#m", kNames}, {"#n", catalog.name}}, {{":id", Text(catalog.id)}}};
  return Idempotent([&] { return client_.UpdateItem(list); }).WithContext(context);
}

Status DynamoDbCatalogStore::CreateCatalog(const CatalogEntry& catalog) {
  DC_RETURN_IF_ERROR(ValidateEntry(catalog));
  // Refused early, so a taken name does not touch the directory.
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> existing, ReadCatalog(catalog.name));
  if (existing) return EntryExistsError("catalog", catalog.name);
  DC_RETURN_IF_ERROR(ListInDirectory(catalog));
  Item item = KeyOf(CatalogKey(catalog.name));
  item[kEntry] = Text(EncodeEntry(catalog));
  item[kSchemas] = AttributeValue::Map({});
  item[kTables] = AttributeValue::Map({});
  Status put = client_.PutItem({dynamodb_table_, std::move(item), IfAbsent()});
  if (put.IsAlreadyExists()) return EntryExistsError("catalog", catalog.name);
  return Settle(put, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> stored, ReadCatalog(catalog.name));
    return stored && stored->entry.id == catalog.id;
  });
}

StatusOr<std::optional<CatalogEntry>> DynamoDbCatalogStore::GetCatalog(const std::string& name) {
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name));
  if (!catalog) return std::optional<CatalogEntry>();
  return std::optional<CatalogEntry>(std::move(catalog->entry));
}

StatusOr<std::vector<CatalogEntry>> DynamoDbCatalogStore::ListCatalogs() {
  DC_ASSIGN_OR_RETURN(std::optional<Item> directory, ReadItem(kDirectoryKey));
  std::vector<CatalogEntry> catalogs;
  if (!directory) return catalogs;
  ItemReader in(*directory, Where(kDirectoryKey));
  DC_ASSIGN_OR_RETURN(const AttributeValue* names, in.Attribute(kNames));
  DC_ASSIGN_OR_RETURN(auto ids, in.StringMap(*names, kNames));
  for (const auto& [name, id] : ids) {  // ascending by name
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name));
    // Not there: a create that stopped midway or a delete in progress.
    if (catalog) catalogs.push_back(std::move(catalog->entry));
  }
  return catalogs;
}

Status DynamoDbCatalogStore::DeleteCatalog(const std::string& name) {
  const std::string key = CatalogKey(name);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name));
    if (!catalog) return EntryMissingError("catalog", name);
    if (!catalog->schemas.empty()) {
      return FailedPreconditionError("catalog " + QuoteForMessage(name) + " still has schema " +
                                     QuoteForMessage(catalog->schemas.begin()->first) +
                                     ": delete its schemas first");
    }
    // The entry read, so the id unlisted below is the one deleted.
    Expression condition{
        "#e = :e AND (attribute_not_exists(#s) OR size(#s) = :zero)",
        {{"#e", kEntry}, {"#s", kSchemas}},
        {{":e", Text(catalog->entry_json)}, {":zero", AttributeValue::Number(int64_t{0})}}};
    Status deleted = client_.DeleteItem({dynamodb_table_, KeyOf(key), condition});
    if (deleted.IsAlreadyExists()) continue;  // changed since: read again
    DC_RETURN_IF_ERROR(Settle(deleted, [&]() -> StatusOr<bool> {
      DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> stored, ReadCatalog(name));
      return !stored || stored->entry.id != catalog->entry.id;
    }));
    // Unlisting is tidying: a name left listed is skipped by ListCatalogs.
    dynamodb::UpdateItemRequest unlist;
    unlist.table = dynamodb_table_;
    unlist.key = KeyOf(kDirectoryKey);
    unlist.update = {"REMOVE #m.#n", {{"#m", kNames}, {"#n", name}}};
    unlist.condition = {"#m.#n = :id", {}, {{":id", Text(catalog->entry.id)}}};
    client_.UpdateItem(unlist).IgnoreError();
    return OkStatus();
  }
  return UnavailableError("deleting catalog " + QuoteForMessage(name) + " in " + Describe() +
                          ": it changed under each of " + std::to_string(kMaxAttempts) +
                          " attempts");
}

// --- schemas ------------------------------------------------------------------

Status DynamoDbCatalogStore::CreateSchema(const SchemaEntry& schema) {
  DC_RETURN_IF_ERROR(ValidateEntry(schema));
  const std::string json = EncodeEntry(schema);
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table_;
  request.key = KeyOf(CatalogKey(schema.catalog));
  request.update = {"SET #s.#n = :json, #t.#n = :empty",
                    {{"#s", kSchemas}, {"#t", kTables}, {"#n", schema.name}},
                    {{":json", Text(json)}, {":empty", AttributeValue::Map({})}}};
  request.condition = {"attribute_exists(#k) AND attribute_not_exists(#s.#n)",
                       {{"#k", kTableUriAttribute}}};
  Status written = client_.UpdateItem(request);
  if (written.IsAlreadyExists()) {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(schema.catalog));
    if (!catalog) return EntryMissingError("catalog", schema.catalog);
    return EntryExistsError("schema", SchemaName(schema.catalog, schema.name));
  }
  return Settle(written, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(schema.catalog));
    if (!catalog) return false;
    auto it = catalog->schemas.find(schema.name);
    return it != catalog->schemas.end() && it->second == json;
  });
}

StatusOr<std::optional<SchemaEntry>> DynamoDbCatalogStore::GetSchema(const std::string& catalog,
                                                                     const std::string& name) {
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> item, ReadCatalog(catalog));
  if (!item) return std::optional<SchemaEntry>();
  auto it = item->schemas.find(name);
  if (it == item->schemas.end()) return std::optional<SchemaEntry>();
  DC_ASSIGN_OR_RETURN(SchemaEntry schema,
                      DecodeSchemaEntry(it->second, Where(CatalogKey(catalog)) + " schema " +
                                                        QuoteForMessage(name)));
  return std::optional<SchemaEntry>(std::move(schema));
}

StatusOr<std::vector<SchemaEntry>> DynamoDbCatalogStore::ListSchemas(const std::string& catalog) {
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> item, ReadCatalog(catalog));
  if (!item) return EntryMissingError("catalog", catalog);
  std::vector<SchemaEntry> schemas;
  for (const auto& [name, json] : item->schemas) {  // ascending by name
    DC_ASSIGN_OR_RETURN(
        SchemaEntry schema,
        DecodeSchemaEntry(json, Where(CatalogKey(catalog)) + " schema " + QuoteForMessage(name)));
    schemas.push_back(std::move(schema));
  }
  return schemas;
}

Status DynamoDbCatalogStore::DeleteSchema(const std::string& catalog, const std::string& name) {
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table_;
  request.key = KeyOf(CatalogKey(catalog));
  request.update = {"REMOVE #s.#n, #t.#n", {{"#s", kSchemas}, {"#t", kTables}, {"#n", name}}};
  request.condition = {"attribute_exists(#s.#n) AND size(#t.#n) = :zero",
                       {},
                       {{":zero", AttributeValue::Number(int64_t{0})}}};
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    Status written = client_.UpdateItem(request);
    if (!written.IsAlreadyExists()) {
      return Settle(written, [&]() -> StatusOr<bool> {
        DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> item, ReadCatalog(catalog));
        return !item || !item->schemas.contains(name);
      });
    }
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> item, ReadCatalog(catalog));
    if (!item || !item->schemas.contains(name)) {
      return EntryMissingError("schema", SchemaName(catalog, name));
    }
    const std::map<std::string, std::string>& tables = item->tables[name];
    if (!tables.empty()) {
      return FailedPreconditionError("schema " + QuoteForMessage(SchemaName(catalog, name)) +
                                     " still has table " + QuoteForMessage(tables.begin()->first) +
                                     ": delete its tables first");
    }
    // Its last table went since the write: try again.
  }
  return UnavailableError("deleting schema " + QuoteForMessage(SchemaName(catalog, name)) + " in " +
                          Describe() + ": it changed under each of " +
                          std::to_string(kMaxAttempts) + " attempts");
}

// --- location claims ------------------------------------------------------------

StatusOr<std::optional<Status>> DynamoDbCatalogStore::ClaimConflict(const std::string& location,
                                                                    const std::string& holder) {
  DC_ASSIGN_OR_RETURN(std::optional<TableItem> table, ReadTableItem(holder));
  if (table && table->entry.storage_location == location) {
    DC_ASSIGN_OR_RETURN(std::optional<std::string> live, LiveName(*table));
    if (live) {
      return std::optional<Status>(
          AlreadyExistsError("table " + Named(*table, *live).name.FullName() + " is already at " +
                             QuoteForMessage(location)));
    }
  }
  DC_ASSIGN_OR_RETURN(std::optional<StagingItem> staging, ReadStaging(holder));
  if (staging && staging->entry.location == location) {
    return std::optional<Status>(AlreadyExistsError(
        "table location " + QuoteForMessage(location) + " is taken by staging table " +
        QuoteForMessage(holder) + " (" + staging->entry.catalog + "." + staging->entry.schema +
        "." + staging->entry.name + ")"));
  }
  if (table && table->entry.storage_location == location && !table->deleted) {
    // Put but not (yet) named: a create in progress, or one that stopped.
    return std::optional<Status>(AlreadyExistsError(
        "table location " + QuoteForMessage(location) + " is being taken by table id " +
        QuoteForMessage(holder) + " (" + table->entry.name.FullName() +
        "), which is not a table yet; if it stays so (GetTableById finds no table), delete " +
        Where(LocationKey(location))));
  }
  return std::optional<Status>();
}

StatusOr<std::optional<Status>> DynamoDbCatalogStore::LocationConflict(
    const std::string& location, const std::string& table_id) {
  DC_ASSIGN_OR_RETURN(std::optional<std::string> holder, ReadClaim(location));
  if (!holder || *holder == table_id) return std::optional<Status>();
  return ClaimConflict(location, *holder);
}

Status DynamoDbCatalogStore::ClaimLocation(const std::string& location,
                                           const std::string& table_id) {
  const std::string key = LocationKey(location);
  Item item = KeyOf(key);
  item[kHolder] = Text(table_id);
  // Absent or already ours: the same id may claim again, so a lost reply
  // is settled by sending it again.
  const Expression free_or_ours{"attribute_not_exists(#k) OR #h = :id",
                                {{"#k", kTableUriAttribute}, {"#h", kHolder}},
                                {{":id", Text(table_id)}}};
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    Status claimed = Idempotent([&] {
      return client_.PutItem({dynamodb_table_, item, free_or_ours});
    });
    if (!claimed.IsAlreadyExists()) return claimed.WithContext("claiming " + Where(key));
    DC_ASSIGN_OR_RETURN(std::optional<std::string> holder, ReadClaim(location));
    if (!holder || *holder == table_id) continue;
    DC_ASSIGN_OR_RETURN(std::optional<Status> conflict, ClaimConflict(location, *holder));
    if (conflict) return *conflict;
    // Left over by a holder that is gone: take it, unless it moved since.
    Status taken = client_.PutItem(
        {dynamodb_table_, item, {"#h = :stale", {{"#h", kHolder}}, {{":stale", Text(*holder)}}}});
    if (taken.ok()) return OkStatus();
    if (!taken.IsAlreadyExists() && !taken.IsUnknownOutcome())
      return taken.WithContext("claiming " + Where(key));
    // Lost, or the reply was: the next round finds out.
  }
  return UnavailableError("claiming " + Where(key) + ": its holder changed under each of " +
                          std::to_string(kMaxAttempts) + " attempts");
}

Status DynamoDbCatalogStore::ReleaseLocation(const std::string& location,
                                             const std::string& table_id) {
  DC_ASSIGN_OR_RETURN(std::optional<StagingItem> staging, ReadStaging(table_id));
  if (staging && staging->entry.location == location) return OkStatus();
  Status released =
      client_.DeleteItem({dynamodb_table_,
                          KeyOf(LocationKey(location)),
                          {"#h = :id", {{"#h", kHolder}}, {{":id", Text(table_id)}}}});
  if (released.IsAlreadyExists()) return OkStatus();  // not ours (any more)
  return released;
}

// --- staging tables -------------------------------------------------------------

Status DynamoDbCatalogStore::CreateStagingTable(const StagingTableEntry& staging) {
  DC_RETURN_IF_ERROR(ValidateEntry(staging));
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(staging.catalog));
  if (!catalog || !catalog->schemas.contains(staging.schema))
    return EntryMissingError("schema", SchemaName(staging.catalog, staging.schema));
  DC_ASSIGN_OR_RETURN(std::optional<StagingItem> same_id, ReadStaging(staging.table_id));
  if (same_id) return EntryExistsError("table id", staging.table_id);
  DC_ASSIGN_OR_RETURN(std::optional<TableItem> table, ReadTableItem(staging.table_id));
  if (table) {
    DC_ASSIGN_OR_RETURN(std::optional<std::string> live, LiveName(*table));
    if (live) return EntryExistsError("table id", staging.table_id);
  }
  DC_ASSIGN_OR_RETURN(std::optional<Status> conflict,
                      LocationConflict(staging.location, staging.table_id));
  if (conflict) return *conflict;

  // The item before the claim: a claim is taken over only when its holder
  // has no item, so a staging table being created keeps its claim.
  const std::string json = EncodeEntry(staging);
  Item item = KeyOf(StagingKey(staging.table_id));
  item[kEntry] = Text(json);
  item[kFinalized] = AttributeValue::Bool(staging.finalized);
  Status put = client_.PutItem({dynamodb_table_, std::move(item), IfAbsent()});
  if (put.IsAlreadyExists()) return EntryExistsError("table id", staging.table_id);
  DC_RETURN_IF_ERROR(Settle(put, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<StagingItem> stored, ReadStaging(staging.table_id));
    return stored && stored->entry_json == json;
  }));
  Status claimed = ClaimLocation(staging.location, staging.table_id);
  if (!claimed.ok()) {
    client_
        .DeleteItem({dynamodb_table_,
                     KeyOf(StagingKey(staging.table_id)),
                     {"#e = :e", {{"#e", kEntry}}, {{":e", Text(json)}}}})
        .IgnoreError();
  }
  return claimed;
}

StatusOr<std::optional<StagingTableEntry>> DynamoDbCatalogStore::GetStagingTable(
    const std::string& table_id) {
  DC_ASSIGN_OR_RETURN(std::optional<StagingItem> staging, ReadStaging(table_id));
  if (!staging) return std::optional<StagingTableEntry>();
  return std::optional<StagingTableEntry>(std::move(staging->entry));
}

StatusOr<std::optional<StagingTableEntry>> DynamoDbCatalogStore::FindStagingTableByLocation(
    const std::string& location) {
  DC_ASSIGN_OR_RETURN(std::optional<std::string> holder, ReadClaim(location));
  if (!holder) return std::optional<StagingTableEntry>();
  DC_ASSIGN_OR_RETURN(std::optional<StagingItem> staging, ReadStaging(*holder));
  if (!staging || staging->entry.location != location)
    return std::optional<StagingTableEntry>();  // a table's claim
  return std::optional<StagingTableEntry>(std::move(staging->entry));
}

// --- CreateTable ------------------------------------------------------------------

// The checks, in the header's order, on what is stored now; the writes
// check again where a race matters.
Status DynamoDbCatalogStore::CheckCreateTable(const TableEntry& table,
                                              const std::optional<std::string>& staging_id,
                                              std::optional<TableItem>& orphan,
                                              std::optional<StagingItem>& staging) {
  const TableName& name = table.name;
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name.catalog));
  if (!catalog || !catalog->schemas.contains(name.schema))
    return EntryMissingError("schema", SchemaName(name.catalog, name.schema));
  if (catalog->TableId(name.schema, name.name)) return EntryExistsError("table", name.FullName());
  DC_ASSIGN_OR_RETURN(orphan, ReadTableItem(table.table_id));
  if (orphan) {
    DC_ASSIGN_OR_RETURN(std::optional<std::string> live, LiveName(*orphan));
    if (live) return EntryExistsError("table id", table.table_id);
  }
  DC_ASSIGN_OR_RETURN(std::optional<Status> conflict,
                      LocationConflict(table.storage_location, table.table_id));
  if (conflict) return *conflict;
  if (!staging_id) return OkStatus();
  DC_ASSIGN_OR_RETURN(staging, ReadStaging(*staging_id));
  if (!staging) return EntryMissingError("staging table", *staging_id);
  if (staging->entry.finalized) {
    return StagingFinalizedError(*staging_id);
  }
  return OkStatus();
}

// Finalised by this attempt (`token`), so a lost reply reads back as ours
// or another's, and only its own attempt undoes it.
Status DynamoDbCatalogStore::Finalize(const StagingItem& staging, const std::string& token) {
  StagingTableEntry finalized = staging.entry;
  finalized.finalized = true;
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table_;
  request.key = KeyOf(StagingKey(staging.entry.table_id));
  request.update = {"SET #f = :true, #e = :e, #b = :token",
                    {{"#f", kFinalized}, {"#e", kEntry}, {"#b", kFinalizedBy}},
                    {{":true", AttributeValue::Bool(true)},
                     {":e", Text(EncodeEntry(finalized))},
                     {":token", Text(token)}}};
  request.condition = {"#f = :false", {}, {{":false", AttributeValue::Bool(false)}}};
  Status written = client_.UpdateItem(request);
  if (written.IsAlreadyExists()) {
    DC_ASSIGN_OR_RETURN(std::optional<StagingItem> now, ReadStaging(staging.entry.table_id));
    if (!now) return EntryMissingError("staging table", staging.entry.table_id);
    return StagingFinalizedError(staging.entry.table_id);
  }
  return Settle(written, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<StagingItem> now, ReadStaging(staging.entry.table_id));
    return now && now->finalized_by == token;
  });
}

void DynamoDbCatalogStore::Unfinalize(const StagingItem& staging, const std::string& token) {
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table_;
  request.key = KeyOf(StagingKey(staging.entry.table_id));
  request.update = {"SET #f = :false, #e = :e REMOVE #b",
                    {{"#f", kFinalized}, {"#e", kEntry}, {"#b", kFinalizedBy}},
                    {{":false", AttributeValue::Bool(false)}, {":e", Text(staging.entry_json)}}};
  request.condition = {"#b = :token", {}, {{":token", Text(token)}}};
  client_.UpdateItem(request).IgnoreError();
}

// Puts the table item if there is none, or over the orphan read (an item no
// catalog names: a create of this id that stopped midway).
Status DynamoDbCatalogStore::PutTableItem(const TableEntry& table,
                                          const std::optional<TableItem>& orphan) {
  Expression condition =
      orphan ? Expression{"#e = :orphan", {{"#e", kEntry}}, {{":orphan", Text(orphan->entry_json)}}}
             : IfAbsent();
  Status put = client_.PutItem({dynamodb_table_, TableItemOf(table), condition});
  if (put.IsAlreadyExists()) return EntryExistsError("table id", table.table_id);
  return Settle(put, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<TableItem> stored, ReadTableItem(table.table_id));
    return stored && stored->entry_json == EncodeEntry(table);
  });
}

// The commit point: the schema still exists and the name is still free.
Status DynamoDbCatalogStore::NameTable(const TableEntry& table) {
  const TableName& name = table.name;
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table_;
  request.key = KeyOf(CatalogKey(name.catalog));
  request.update = {"SET #t.#s.#n = :id",
                    {{"#t", kTables}, {"#s", name.schema}, {"#n", name.name}},
                    {{":id", Text(table.table_id)}}};
  request.condition = {"attribute_exists(#sc.#s) AND attribute_not_exists(#t.#s.#n)",
                       {{"#sc", kSchemas}}};
  Status written = client_.UpdateItem(request);
  if (written.IsAlreadyExists()) {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name.catalog));
    if (!catalog || !catalog->schemas.contains(name.schema))
      return EntryMissingError("schema", SchemaName(name.catalog, name.schema));
    return EntryExistsError("table", name.FullName());
  }
  return Settle(written, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name.catalog));
    return catalog && catalog->TableId(name.schema, name.name) == table.table_id;
  });
}

Status DynamoDbCatalogStore::CreateTable(const TableEntry& table,
                                         const std::optional<std::string>& staging_id) {
  DC_RETURN_IF_ERROR(ValidateEntry(table));
  if (staging_id && *staging_id != table.table_id) {
    return InvalidArgumentError("table id " + QuoteForMessage(table.table_id) +
                                " is not the id of its staging table " +
                                QuoteForMessage(*staging_id));
  }
  std::optional<TableItem> orphan;
  std::optional<StagingItem> staging;
  DC_RETURN_IF_ERROR(CheckCreateTable(table, staging_id, orphan, staging));

  Undo undo;
  if (staging) {
    // First, so that of attempts from one staging table only one goes on.
    const std::string token = NewUuid();
    DC_RETURN_IF_ERROR(Finalize(*staging, token));
    undo.Add([this, staging, token] { Unfinalize(*staging, token); });
  }
  DC_RETURN_IF_ERROR(PutTableItem(table, orphan));
  undo.Add([this, &table] {
    client_
        .DeleteItem({dynamodb_table_,
                     KeyOf(TableKey(table.table_id)),
                     {"#e = :e", {{"#e", kEntry}}, {{":e", Text(EncodeEntry(table))}}}})
        .IgnoreError();
  });
  DC_RETURN_IF_ERROR(ClaimLocation(table.storage_location, table.table_id));
  undo.Add(
      [this, &table] { ReleaseLocation(table.storage_location, table.table_id).IgnoreError(); });
  Status named = NameTable(table);
  // Unknown still (the read back failed): it may be a table, so keep all.
  if (named.ok() || named.IsUnknownOutcome()) undo.Dismiss();
  return named;
}

// --- reading tables ---------------------------------------------------------------

StatusOr<std::optional<TableEntry>> DynamoDbCatalogStore::GetTable(const TableName& name) {
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name.catalog));
  if (!catalog) return std::optional<TableEntry>();
  std::optional<std::string> table_id = catalog->TableId(name.schema, name.name);
  if (!table_id) return std::optional<TableEntry>();
  return NamedTable(name, *table_id);
}

StatusOr<std::optional<TableEntry>> DynamoDbCatalogStore::GetTableById(
    const std::string& table_id) {
  DC_ASSIGN_OR_RETURN(std::optional<TableItem> item, ReadTableItem(table_id));
  if (!item) return std::optional<TableEntry>();
  DC_ASSIGN_OR_RETURN(std::optional<std::string> live, LiveName(*item));
  if (!live) return std::optional<TableEntry>();  // an orphan
  return std::optional<TableEntry>(Named(*item, *live));
}

StatusOr<std::vector<TableEntry>> DynamoDbCatalogStore::ListTables(const std::string& catalog,
                                                                   const std::string& schema,
                                                                   const std::string& after,
                                                                   int64_t limit) {
  if (limit < 1) return InvalidArgumentError("list limit " + std::to_string(limit) + " is below 1");
  DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> item, ReadCatalog(catalog));
  if (!item || !item->schemas.contains(schema))
    return EntryMissingError("schema", SchemaName(catalog, schema));
  const std::map<std::string, std::string>& ids = item->tables[schema];
  std::vector<TableEntry> tables;
  for (auto it = ids.upper_bound(after);
       it != ids.end() && static_cast<int64_t>(tables.size()) < limit; ++it) {
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table,
                        NamedTable({catalog, schema, it->first}, it->second));
    if (table) tables.push_back(std::move(*table));  // else deleted since
  }
  return tables;
}

// --- changing tables --------------------------------------------------------------

Status DynamoDbCatalogStore::UpdateTable(const TableEntry& table, int64_t expected_updated_at_ms) {
  DC_RETURN_IF_ERROR(ValidateEntry(table));
  DC_ASSIGN_OR_RETURN(std::optional<TableItem> item, ReadTableItem(table.table_id));
  std::optional<std::string> live;
  if (item) {
    DC_ASSIGN_OR_RETURN(live, LiveName(*item));
  }
  if (!live) return EntryMissingError("table id", table.table_id);
  const TableEntry stored = Named(*item, *live);
  if (stored.name != table.name || stored.storage_location != table.storage_location) {
    return InvalidArgumentError("an update of table " + stored.name.FullName() +
                                " cannot change its name or location");
  }
  const Status changed =
      FailedPreconditionError("table " + stored.name.FullName() + " changed since it was read");
  if (stored.updated_at_ms != expected_updated_at_ms) return changed;
  const std::string json = EncodeEntry(table);
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table_;
  request.key = KeyOf(TableKey(table.table_id));
  request.update = {"SET #e = :e, #u = :u",
                    {{"#e", kEntry}, {"#u", kUpdatedAt}},
                    {{":e", Text(json)}, {":u", AttributeValue::Number(table.updated_at_ms)}}};
  request.condition = {
      "#u = :expected", {}, {{":expected", AttributeValue::Number(expected_updated_at_ms)}}};
  Status written = client_.UpdateItem(request);
  if (written.IsAlreadyExists()) {
    DC_ASSIGN_OR_RETURN(std::optional<TableItem> now, ReadTableItem(table.table_id));
    if (!now) return EntryMissingError("table id", table.table_id);
    return changed;
  }
  return Settle(written, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<TableItem> now, ReadTableItem(table.table_id));
    return now && now->entry_json == json;
  });
}

Status DynamoDbCatalogStore::RewriteRenamed(const std::string& table_id,
                                            const std::string& new_name, int64_t updated_at_ms) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    DC_ASSIGN_OR_RETURN(std::optional<TableItem> item, ReadTableItem(table_id));
    // Gone (deleted since), or an update made after the rename carried the
    // new name already.
    if (!item || item->entry.name.name == new_name) return OkStatus();
    TableEntry renamed = Named(*item, new_name);
    renamed.updated_at_ms = updated_at_ms;
    dynamodb::UpdateItemRequest request;
    request.table = dynamodb_table_;
    request.key = KeyOf(TableKey(table_id));
    request.update = {
        "SET #e = :e, #u = :u",
        {{"#e", kEntry}, {"#u", kUpdatedAt}},
        {{":e", Text(EncodeEntry(renamed))}, {":u", AttributeValue::Number(updated_at_ms)}}};
    request.condition = {"#e = :read", {}, {{":read", Text(item->entry_json)}}};
    Status written = client_.UpdateItem(request);
    if (!written.IsAlreadyExists() && !written.IsUnknownOutcome()) return written;
  }
  return UnavailableError("rewriting " + Where(TableKey(table_id)) +
                          " after a rename: it changed under each of " +
                          std::to_string(kMaxAttempts) + " attempts");
}

Status DynamoDbCatalogStore::RenameTable(const TableName& from, const std::string& new_name,
                                         int64_t updated_at_ms) {
  DC_RETURN_IF_ERROR(ValidateCatalogName("table", new_name));
  const TableName to{from.catalog, from.schema, new_name};
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(from.catalog));
    std::optional<std::string> table_id;
    if (catalog) table_id = catalog->TableId(from.schema, from.name);
    if (!table_id) return EntryMissingError("table", from.FullName());
    if (new_name == from.name) return OkStatus();
    if (catalog->TableId(from.schema, new_name)) return EntryExistsError("table", to.FullName());
    dynamodb::UpdateItemRequest request;
    request.table = dynamodb_table_;
    request.key = KeyOf(CatalogKey(from.catalog));
    request.update = {
        "SET #t.#s.#new = :id REMOVE #t.#s.#old",
        {{"#t", kTables}, {"#s", from.schema}, {"#new", new_name}, {"#old", from.name}},
        {{":id", Text(*table_id)}}};
    request.condition = {"#t.#s.#old = :id AND attribute_not_exists(#t.#s.#new)"};
    Status written = client_.UpdateItem(request);
    if (written.IsAlreadyExists()) continue;  // changed since: read again
    DC_RETURN_IF_ERROR(Settle(written, [&]() -> StatusOr<bool> {
      DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> now, ReadCatalog(from.catalog));
      return now && now->TableId(from.schema, new_name) == table_id;
    }));
    // Renamed. Reads take the name from the catalog until the entry has it,
    // so a failed rewrite loses only updated_at: not worth failing a rename
    // that took place.
    RewriteRenamed(*table_id, new_name, updated_at_ms).IgnoreError();
    return OkStatus();
  }
  return UnavailableError("renaming table " + from.FullName() + " in " + Describe() +
                          ": it changed under each of " + std::to_string(kMaxAttempts) +
                          " attempts");
}

Status DynamoDbCatalogStore::DeleteNamed(const TableName& name, const std::string& table_id) {
  DC_ASSIGN_OR_RETURN(std::optional<TableItem> item, ReadTableItem(table_id));
  if (item && !item->deleted) {
    // Before the commit point, so that a claim left by a delete that stops
    // after it can be told from one of a create in progress. Harmless on a
    // table that stays (a failed delete): only a claim reads it.
    dynamodb::UpdateItemRequest mark;
    mark.table = dynamodb_table_;
    mark.key = KeyOf(TableKey(table_id));
    mark.update = {"SET #d = :true", {{"#d", kDeleted}}, {{":true", AttributeValue::Bool(true)}}};
    mark.condition = {"attribute_exists(#k)", {{"#k", kTableUriAttribute}}};
    Status marked = Idempotent([&] { return client_.UpdateItem(mark); });
    if (!marked.ok() && !marked.IsAlreadyExists()) return marked;
  }
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table_;
  request.key = KeyOf(CatalogKey(name.catalog));
  request.update = {"REMOVE #t.#s.#n", {{"#t", kTables}, {"#s", name.schema}, {"#n", name.name}}};
  request.condition = {"#t.#s.#n = :id", {}, {{":id", Text(table_id)}}};
  Status written = client_.UpdateItem(request);
  if (written.IsAlreadyExists()) return written;
  DC_RETURN_IF_ERROR(Settle(written, [&]() -> StatusOr<bool> {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> now, ReadCatalog(name.catalog));
    return !now || now->TableId(name.schema, name.name) != table_id;
  }));
  // Deleted. What follows is tidying; what it leaves is harmless.
  if (item) {
    ReleaseLocation(item->entry.storage_location, table_id).IgnoreError();
    client_.DeleteItem({dynamodb_table_, KeyOf(TableKey(table_id)), {}}).IgnoreError();
  }
  return OkStatus();
}

Status DynamoDbCatalogStore::DeleteTable(const TableName& name) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    DC_ASSIGN_OR_RETURN(std::optional<CatalogItem> catalog, ReadCatalog(name.catalog));
    std::optional<std::string> table_id;
    if (catalog) table_id = catalog->TableId(name.schema, name.name);
    if (!table_id) return EntryMissingError("table", name.FullName());
    Status deleted = DeleteNamed(name, *table_id);
    if (!deleted.IsAlreadyExists()) return deleted;
    // Renamed, deleted or made again since it was read: read again.
  }
  return UnavailableError("deleting table " + name.FullName() + " in " + Describe() +
                          ": it changed under each of " + std::to_string(kMaxAttempts) +
                          " attempts");
}

StatusOr<std::string> DynamoDbCatalogStore::MetastoreId() {
  // Put if absent, then a consistent read: whichever instance's put won,
  // every instance reads its id.
  Item item = KeyOf(kMetastoreKey);
  item[kMetastoreId] = Text(NewUuid());
  Status put = client_.PutItem({dynamodb_table_, std::move(item), IfAbsent()});
  if (!put.ok() && !put.IsAlreadyExists() && !put.IsUnknownOutcome()) {
    return put.WithContext("writing " + Where(kMetastoreKey));
  }
  DC_ASSIGN_OR_RETURN(std::optional<Item> stored, ReadItem(kMetastoreKey));
  if (!stored) {
    return UnavailableError(Where(kMetastoreKey) + " is still missing after its write");
  }
  return ItemReader(*stored, Where(kMetastoreKey)).String(kMetastoreId);
}

}  // namespace deltacommit::service
