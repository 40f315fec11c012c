// The readers of the service config's sections, one file each, called by
// ParseServiceConfig. Internal to service/config.
//
// Each reads its section(s) from `root` (which marks them known), checks
// every value and calls Finish() on what it read; kInvalidArgument naming
// the file, line and key otherwise.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/config/service_config.h"
#include "service/config/toml_section.h"

namespace deltacommit::service::internal {

// An AWS endpoint as one section of the file gives it.
struct FileEndpoint {
  std::string region;  // required
  std::string url;     // empty: AWS's endpoint for the region
  bool allow_http = false;
  std::optional<bool>
      path_style;  // nullopt: path-style unless the host is AWS's
};

// Resolves `settings` from the file alone (no environment variables, no
// profile files) as aws::ResolveServiceConfig would. Errors are at
// `region_key` or `url_key` of `section`.
StatusOr<aws::AwsServiceConfig> ResolveFromFile(const TomlSection& section,
                                                std::string_view service,
                                                std::string_view region_key,
                                                std::string_view url_key,
                                                const FileEndpoint& settings);

// [s3], [[s3.bucket]], [[s3.allowed_endpoint]].
Status ReadS3Section(TomlSection& root, S3Config& out);

// [[token]].
Status ReadTokens(TomlSection& root, std::vector<TokenConfig>& out);

}  // namespace deltacommit::service::internal
