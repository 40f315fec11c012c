// DynamoDbCatalogStore: the CatalogStore in the state store's DynamoDB table
// (key table_uri S HASH, version N RANGE; see dynamodb_state_items.h), so
// service instances that share commit state share their catalog too. Every
// catalog item has a hash key starting with "#uc/", which no normalised
// table URI does (those start with a scheme), and version 0:
//
//   #uc/catalogs              names    M  {catalog name -> S catalog id}
//   #uc/catalog/<name>        entry    S  the catalog (catalog_entry_codec.h)
//                             schemas  M  {schema name -> S schema entry}
//                             tables   M  {schema name -> M {table name ->
//                                          S table id}}
//   #uc/table/<table id>      entry    S  the table
//                             updated_at_ms N  entry's, for UpdateTable's
//                                          compare-and-set
//                             deleted  BOOL set by DeleteTable before its
//                                          commit point (see claims below)
//   #uc/location/<location>   table_id S  who holds the location
//   #uc/metastore             id       S  the metastore's id (MetastoreId)
//   #uc/staging/<table id>    entry    S  the staging table
//                             finalized BOOL  entry's, for the condition
//                             finalized_by S  the attempt that set it, so a
//                                          lost reply can be read back
//
// Why one item per catalog. dynalite (the test server) has no
// TransactWriteItems, so every invariant rests on a conditional write of
// one item. Names live in the catalog item, so "a schema is deleted only
// without tables", "a catalog only without schemas" and "a table name is
// unique in its schema" are each one conditional UpdateItem or DeleteItem.
// The tables map is nested by schema (not flat "<schema>/<table>" keys)
// because a condition cannot ask "no key starts with <schema>/", but can
// ask size(tables.<schema>) = 0. The cost is DynamoDB's 400 KB item limit:
// a table costs its name + 36-byte id + a few bytes (~70 bytes for a
// 30-byte name, ~300 for a 255-byte one), a schema its entry (~300 bytes
// plus comment and properties) twice over, so one catalog holds some
// thousands of tables (~5000 of typical names, ~1300 of maximal ones);
// beyond that writes fail with kInvalidArgument (DynamoDB's item size
// ValidationException).
//
// Commit points (a table exists iff its catalog item maps its name to its
// id; the table item is written before and deleted after that):
//   - CreateCatalog: SET names.<name> = id in the directory, then PutItem
//     the catalog item if absent. The directory may name catalogs that do
//     not exist (a crash between the two, a delete in progress, a create
//     that found the name taken): ListCatalogs skips them and the next
//     create of the name overwrites them. It is overwritten rather than set
//     if absent so that a delete's late "REMOVE if it is still my id" cannot
//     unlist a catalog created again meanwhile.
//   - DeleteCatalog: DeleteItem the catalog item if it has no schemas, then
//     REMOVE the directory name if it still holds the deleted id.
//   - CreateTable: [staging: finalized false -> true], PutItem the table
//     item, claim the location, then SET tables.<schema>.<name> = id if the
//     schema exists and the name is free. Each failure undoes the steps
//     before it (best effort: what an undo leaves is harmless, below).
//   - DeleteTable: mark the table item deleted, REMOVE the name if it still
//     maps to the id, then release the location and delete the table item.
//   - RenameTable: one UpdateItem (SET new, REMOVE old) if old maps to the
//     id and new is free; then the table item's entry is rewritten with the
//     new name and updated_at. Until then reads take the name from the map.
//
// Location claims: a table or staging table holds #uc/location/<location>
// by its id (again by the same id: a staging table's table takes over its
// claim), so no two of them share a location unless one is the other
// finalised. A claim whose holder is neither a staging table there nor a
// table item there (or only one marked deleted and no longer named) is left
// over from an undo or a delete that stopped midway, and is taken over by
// a conditional write naming that holder. A table item that was put but
// never named (a create that stopped midway) keeps its claim: it cannot be
// told from a create still in progress. An operator may delete such a
// claim once GetTableById answers nullopt for its holder for good.
//
// Stricter than SqliteCatalogStore: a table cannot be created at the
// location of a staging table of another id, and the location of a table
// made from a staging table stays taken after the table is deleted (the
// staging table keeps it).
//
// Costs (items read, written): CreateCatalog 1, 3; DeleteCatalog 1, 2;
// ListCatalogs 1 + one per catalog; schema calls 1, 1; CreateStagingTable
// 4-6, 2; CreateTable 4-7, 3-4; DeleteTable 2-3, 4; RenameTable 2-3, 2;
// UpdateTable 2, 1; GetTable 2; GetTableById 2; ListTables 1 + one per
// table listed. Every read is ConsistentRead.
//
// Errors: those of DynamoDbClient (kNotFound on a call that names no entry
// means the DynamoDB table does not exist). A lost reply of a commit-point
// write is read back: applied answers OK, not applied kUnavailable, and
// kUnknownOutcome only when the read fails too. kDataLoss names the
// DynamoDB table and key of an item this code did not write.
//
// Thread-safety: safe for concurrent use (the client is); several store
// objects on one DynamoDB table, in one process or many, are safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/dynamodb/dynamodb_client.h"
#include "service/catalog/catalog_store.h"

namespace deltacommit::service {

class DynamoDbCatalogStore : public CatalogStore {
 public:
  // `client` must outlive this; `dynamodb_table` is the state store's
  // DynamoDB table (CreateServiceStateTable).
  DynamoDbCatalogStore(dynamodb::DynamoDbClient& client, std::string dynamodb_table);

  // "DynamoDB table deltacommit_service (us-east-1, https://...)".
  std::string Describe() const override;
  Status CreateCatalog(const CatalogEntry& catalog) override;
  StatusOr<std::optional<CatalogEntry>> GetCatalog(const std::string& name) override;
  StatusOr<std::vector<CatalogEntry>> ListCatalogs() override;
  Status DeleteCatalog(const std::string& name) override;
  Status CreateSchema(const SchemaEntry& schema) override;
  StatusOr<std::optional<SchemaEntry>> GetSchema(const std::string& catalog,
                                                 const std::string& name) override;
  StatusOr<std::vector<SchemaEntry>> ListSchemas(const std::string& catalog) override;
  Status DeleteSchema(const std::string& catalog, const std::string& name) override;
  Status CreateStagingTable(const StagingTableEntry& staging) override;
  StatusOr<std::optional<StagingTableEntry>> GetStagingTable(const std::string& table_id) override;
  StatusOr<std::optional<StagingTableEntry>> FindStagingTableByLocation(
      const std::string& location) override;
  Status CreateTable(const TableEntry& table,
                     const std::optional<std::string>& staging_id) override;
  StatusOr<std::optional<TableEntry>> GetTable(const TableName& name) override;
  StatusOr<std::optional<TableEntry>> GetTableById(const std::string& table_id) override;
  StatusOr<std::vector<TableEntry>> ListTables(const std::string& catalog,
                                               const std::string& schema, const std::string& after,
                                               int64_t limit) override;
  Status UpdateTable(const TableEntry& table, int64_t expected_updated_at_ms) override;
  Status RenameTable(const TableName& from, const std::string& new_name,
                     int64_t updated_at_ms) override;
  Status DeleteTable(const TableName& name) override;
  StatusOr<std::string> MetastoreId() override;

  // The items, decoded (defined in the .cc).
  struct CatalogItem;
  struct TableItem;
  struct StagingItem;

 private:
  std::string Where(const std::string& key) const;
  StatusOr<std::optional<dynamodb::Item>> ReadItem(const std::string& key);
  StatusOr<std::optional<CatalogItem>> ReadCatalog(const std::string& name);
  StatusOr<std::optional<TableItem>> ReadTableItem(const std::string& table_id);
  StatusOr<std::optional<StagingItem>> ReadStaging(const std::string& table_id);
  // The id holding `location`, if any.
  StatusOr<std::optional<std::string>> ReadClaim(const std::string& location);

  // The name the table item's catalog maps its id to (its own, or another
  // after a rename whose rewrite is pending), or nullopt when it is not a
  // table (an orphan of a create or delete that stopped midway).
  StatusOr<std::optional<std::string>> LiveName(const TableItem& item);
  // The table that `catalog` maps `name` to `table_id`: its item, named so.
  StatusOr<std::optional<TableEntry>> NamedTable(const TableName& name,
                                                 const std::string& table_id);

  // kAlreadyExists when `holder`'s claim of `location` stands (naming what
  // holds it); nullopt when the claim is left over and may be taken.
  StatusOr<std::optional<Status>> ClaimConflict(const std::string& location,
                                                const std::string& holder);
  // The conflict, if `location` is held by an id other than `table_id`
  // whose claim stands.
  StatusOr<std::optional<Status>> LocationConflict(const std::string& location,
                                                   const std::string& table_id);
  Status ClaimLocation(const std::string& location, const std::string& table_id);
  // Releases `table_id`'s claim unless a staging table of that id at
  // `location` keeps it.
  Status ReleaseLocation(const std::string& location, const std::string& table_id);

  Status ListInDirectory(const CatalogEntry& catalog);
  Status CheckCreateTable(const TableEntry& table, const std::optional<std::string>& staging_id,
                          std::optional<TableItem>& orphan, std::optional<StagingItem>& staging);
  Status Finalize(const StagingItem& staging, const std::string& token);
  void Unfinalize(const StagingItem& staging, const std::string& token);
  Status PutTableItem(const TableEntry& table, const std::optional<TableItem>& orphan);
  Status NameTable(const TableEntry& table);
  // The step of DeleteTable from the name read: kAlreadyExists when the
  // name changed since (read again).
  Status DeleteNamed(const TableName& name, const std::string& table_id);
  Status RewriteRenamed(const std::string& table_id, const std::string& new_name,
                        int64_t updated_at_ms);

  dynamodb::DynamoDbClient& client_;
  const std::string dynamodb_table_;
};

}  // namespace deltacommit::service
