// Opening a table named on the command line: builds the real adapters for
// its URI (only the CLI and the service build adapters).
//
// Thread-safety: an OpenTable is safe to use from several threads (its
// adapters are).
#pragma once

#include <memory>
#include <string>

#include "deltacommit/log_store.h"
#include "deltacommit/object_store.h"
#include "deltacommit/status.h"

namespace deltacommit::cli {

struct OpenTable {
  std::string uri;  // as given, normalised (no trailing '/')
  std::unique_ptr<ObjectStore> store;
  std::unique_ptr<LogStore> log;
};

// TABLE is a local path or a file:// URI. kInvalidArgument for schemes this
// build does not support yet (naming them).
StatusOr<OpenTable> OpenTableUri(const std::string& table);

}  // namespace deltacommit::cli
