#include "service_load/table_store.h"

#include <utility>

#include "deltacommit/aws/aws_config.h"

namespace deltacommit::bench {

StatusOr<TableStore> OpenTableStore(const std::string& table) {
  DC_ASSIGN_OR_RETURN(aws::S3Location location, aws::ParseS3Uri(table));
  S3StoreConfig config;
  config.bucket = std::move(location.bucket);
  config.key_prefix = std::move(location.key_prefix);
  DC_ASSIGN_OR_RETURN(config.service, aws::ResolveServiceConfig("s3", {}));
  TableStore t;
  t.http = aws::NewCurlHttpClient();
  t.credentials = aws::DefaultCredentialsChain({});
  t.store = std::make_unique<S3ObjectStore>(std::move(config), *t.http,
                                            *t.credentials);
  return t;
}

}  // namespace deltacommit::bench
