// The table options every table command takes (--log-store, --endpoint-url,
// --storage-option, --service-url, ...), and opening the named table with
// them through the library's front door (deltacommit/table.h).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "deltacommit/status.h"
#include "deltacommit/table.h"
#include "deltacommit/table/table_adapters.h"

namespace deltacommit::cli {

struct TableFlags {
  std::string log_store;  // a CommitMode name, or "" for the table's default
  std::string endpoint_url;
  std::string region;
  std::string profile;
  std::vector<std::string> storage_options;  // delta-rs style KEY=VALUE
  bool create_dynamodb_table = false;
  std::string service_url;
  std::string service_token;
  std::string service_endpoint;
  std::string catalog_url;
  std::string catalog_token;
  bool catalog_send_credentials = false;
  // Not an option: open without any remote call (no auto-create), for
  // `doctor`, which checks the table rather than sets it up.
  bool skip_setup = false;
};

void AddTableOptions(CLI::App* command, TableFlags* flags);

// --storage-option KEY=VALUE pairs, keys lower-cased and checked as
// OpenTable does. kInvalidArgument for a malformed pair.
StatusOr<std::map<std::string, std::string>> ParseStorageOptions(const TableFlags& flags);

// The library's options for `flags`; with DELTACOMMIT_METER=1 they count
// the remote calls into the process's meter (CliMeter()).
StatusOr<TableOptions> ToTableOptions(const TableFlags& flags);

// The process's call meter when DELTACOMMIT_METER=1, else null (normal use
// pays nothing for metering).
CallMeter* CliMeter();

// OpenTable(table, ToTableOptions(flags)).
StatusOr<Table> OpenCliTable(const std::string& table, const TableFlags& flags);

}  // namespace deltacommit::cli
