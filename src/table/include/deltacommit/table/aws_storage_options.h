// delta-rs's AWS storage options (the names of object_store's S3 keys):
// what a delta-rs or Python user passes as storage options instead of
// setting the environment. A field of TableOptions (endpoint_url, region,
// profile) wins over its storage option, which wins over the environment
// and the profile files.
//
//   aws_access_key_id | access_key_id, aws_secret_access_key |
//   secret_access_key, aws_session_token | aws_token | session_token |
//   token: credentials (the first two together), for S3, STS and DynamoDB
//   aws_region | region, aws_default_region | default_region
//   aws_endpoint_url | aws_endpoint | endpoint_url | endpoint: S3's endpoint
//   aws_allow_http | allow_http: plain http (for every AWS service)
//   aws_profile | profile: the profile of ~/.aws/{config,credentials}
//   aws_virtual_hosted_style_request | virtual_hosted_style_request: "true"
//   for bucket.host addressing, "false" for path style
#pragma once

#include <map>
#include <optional>
#include <string>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/status.h"
#include "deltacommit/table.h"

namespace deltacommit {

struct AwsStorageOptions {
  aws::AwsConfigOverrides s3;  // region, endpoint, allow_http, path style, profile
  std::optional<aws::Credentials> credentials;
};

// Reads them from `storage` (keys lower-cased, CheckStorageOptions) and
// `o`. kInvalidArgument naming the key for a value that is not a boolean,
// or a key id without its secret (or the reverse).
StatusOr<AwsStorageOptions> ReadAwsStorageOptions(
    const TableOptions& o, const std::map<std::string, std::string>& storage);

// The credential chain's options: the profile, and the credentials given
// as storage options, which win over the environment and the files.
aws::CredentialsOptions ChainOptions(const AwsStorageOptions& aws);

}  // namespace deltacommit
