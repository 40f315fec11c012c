// Opens the state store the service config names, and the catalog kept
// beside it (service/catalog: in the same SQLite file, or in the same
// DynamoDB table): a SQLite file, or a DynamoDB table (created, on-demand billing, if it does not exist yet) that
// the service reaches with its own AWS credentials (environment, profile or
// instance role), never with a writer's.
//
// Thread-safety: OpenStateStore is called once, at start.
#pragma once

#include <memory>

#include "deltacommit/status.h"
#include "service/catalog/catalog_store.h"
#include "service/config/service_config.h"
#include "service/http/json_logger.h"
#include "service/state/state_store.h"

namespace deltacommit::service {

// The stores and what they need alive (for DynamoDB: the HTTP client,
// credentials and client they share).
class OpenedStateStore {
 public:
  virtual ~OpenedStateStore() = default;
  virtual StateStore& store() = 0;
  virtual CatalogStore& catalog() = 0;
};

// kFailedPrecondition / kNotFound / kPermissionDenied naming the file or
// table when it cannot be opened; `logger` hears about a table created.
StatusOr<std::unique_ptr<OpenedStateStore>> OpenStateStore(const StateConfig& config,
                                                           http::JsonLogger& logger);

}  // namespace deltacommit::service
