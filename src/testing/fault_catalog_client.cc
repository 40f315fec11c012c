#include "deltacommit/testing/fault_catalog_client.h"

#include <array>

namespace deltacommit {
namespace {

// Indexed by CatalogClientOp.
constexpr std::array<std::string_view, kCatalogClientOpCount> kCatalogClientOpNames = {
    "LoadTable", "TableCredentials", "CreateStagingTable", "StagingTableCredentials", "CreateTable",
    "Commit"};

}  // namespace

std::string_view CatalogClientOpName(CatalogClientOp op) {
  const auto index = static_cast<size_t>(op);
  return index < kCatalogClientOpNames.size() ? kCatalogClientOpNames[index] : "Unknown";
}

FaultInjectingCatalogClient::FaultInjectingCatalogClient(CatalogClient& base, Sleeper& sleeper)
    : ForwardingCatalogClient(base), PortFaults(kCatalogClientOpNames, sleeper) {}

FaultInjectingCatalogClient::~FaultInjectingCatalogClient() { ClearRules(); }

StatusOr<CatalogTable> FaultInjectingCatalogClient::LoadTable(const CatalogTableName& name) {
  const std::string key = name.FullName();
  return Intercept<StatusOr<CatalogTable>>(
      CatalogClientOp::kLoadTable, {key}, [&] { return ForwardingCatalogClient::LoadTable(name); });
}

StatusOr<VendedCredentials> FaultInjectingCatalogClient::TableCredentials(
    const CatalogTableName& name, std::string_view location, CatalogAccess access) {
  const std::string key = name.FullName();
  return Intercept<StatusOr<VendedCredentials>>(CatalogClientOp::kTableCredentials, {key}, [&] {
    return ForwardingCatalogClient::TableCredentials(name, location, access);
  });
}

StatusOr<CatalogStagingTable> FaultInjectingCatalogClient::CreateStagingTable(
    const CatalogTableName& name) {
  const std::string key = name.FullName();
  return Intercept<StatusOr<CatalogStagingTable>>(CatalogClientOp::kCreateStagingTable, {key}, [&] {
    return ForwardingCatalogClient::CreateStagingTable(name);
  });
}

StatusOr<VendedCredentials> FaultInjectingCatalogClient::StagingTableCredentials(
    const std::string& table_id) {
  return Intercept<StatusOr<VendedCredentials>>(
      CatalogClientOp::kStagingTableCredentials, {table_id},
      [&] { return ForwardingCatalogClient::StagingTableCredentials(table_id); });
}

Status FaultInjectingCatalogClient::CreateTable(const CatalogTableName& name,
                                                const CatalogNewTable& table) {
  const std::string key = name.FullName();
  return Intercept<Status>(CatalogClientOp::kCreateTable, {key},
                           [&] { return ForwardingCatalogClient::CreateTable(name, table); });
}

Status FaultInjectingCatalogClient::Commit(const CatalogTableName& name,
                                           const std::string& table_id, const CatalogCommit& commit,
                                           std::optional<Version> backfilled) {
  const std::string key = name.FullName();
  return Intercept<Status>(CatalogClientOp::kCommit, {key, commit.staged_file}, [&] {
    return ForwardingCatalogClient::Commit(name, table_id, commit, backfilled);
  });
}

}  // namespace deltacommit
