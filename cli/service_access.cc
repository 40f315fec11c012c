#include "service_access.h"

#include <memory>

#include "adapters/service/http_commit_service_client.h"
#include "adapters/service/service_client_options.h"
#include "logstore/coordinated_log_store.h"
#include "logstore/service_log_store.h"

namespace deltacommit::cli {

Status AttachCommitService(const TableOptions& o, OpenTable& open) {
  DC_ASSIGN_OR_RETURN(service_client::CommitServiceOptions options,
                      service_client::ResolveCommitServiceOptions(o.service_url, o.service_token,
                                                                  o.service_endpoint));
  open.service = std::make_unique<service_client::HttpCommitServiceClient>(
      std::move(options), *open.http, *open.credentials);
  if (open.mode == "service") {
    open.log = std::make_unique<ServiceLogStore>(*open.store, *open.service, open.uri);
  } else {
    open.log = std::make_unique<CoordinatedLogStore>(*open.store, *open.service, open.uri);
  }
  return OkStatus();
}

Status CheckNoServiceOptions(const TableOptions& o, const std::string& mode) {
  const char* given = !o.service_url.empty()        ? "--service-url"
                      : !o.service_token.empty()    ? "--service-token"
                      : !o.service_endpoint.empty() ? "--service-endpoint"
                                                    : nullptr;
  if (given == nullptr) return OkStatus();
  return InvalidArgumentError(std::string(given) +
                              ": only for --log-store service or coordinated (this table "
                              "commits with " + mode + ")");
}

}  // namespace deltacommit::cli
