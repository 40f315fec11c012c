// Where to send S3 and DynamoDB requests: region, endpoint URL, whether
// plain http is allowed and S3 bucket addressing style, resolved the way the
// AWS SDKs (and delta-rs for its extra variables) do. Also the s3:// table
// URI parser.
//
// Thread-safety: pure functions of their arguments (and, when no
// environment map is given, of the process environment and profile files).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit::aws {

// AwsServiceConfig::endpoint_source when no endpoint was configured.
inline constexpr char kAwsDefaultEndpointSource[] = "AWS default for the region";

struct AwsServiceConfig {
  std::string region;         // "us-east-1"
  std::string region_source;  // "explicit options", "AWS_REGION", "AWS_DEFAULT_REGION",
                              // "profile \"dev\" in <path>", "default"
  std::string endpoint_url;   // "https://s3.us-east-1.amazonaws.com"; no trailing '/'
  std::string endpoint_source;  // like region_source; "AWS default for the region"
  bool allow_http = false;
  // S3 only: bucket in the path (https://host/bucket/key) rather than in the
  // host name (https://bucket.host/key). Always false for DynamoDB.
  bool path_style = false;
};

// What the caller set explicitly; each wins over the environment and files.
struct AwsConfigOverrides {
  std::optional<std::string> region;
  std::optional<std::string> endpoint_url;
  std::optional<bool> allow_http;
  std::optional<bool> path_style;
  std::optional<std::string> profile;  // else AWS_PROFILE, else "default"
};

// Where the resolver looks besides the overrides.
struct AwsConfigSources {
  // Environment variables; null means the process environment. Must outlive
  // the call.
  const std::map<std::string, std::string>* environment = nullptr;
  std::string home_dir;  // for ~/.aws/{config,credentials}; default $HOME
};

// service: "s3", "dynamodb" or "sts".
//   region:   explicit -> AWS_REGION -> AWS_DEFAULT_REGION -> profile `region`
//             -> "us-east-1".
//   endpoint: explicit -> AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL_DYNAMODB /
//             AWS_ENDPOINT_URL_STS -> AWS_ENDPOINT_URL -> profile
//             `endpoint_url` -> AWS's endpoint for the region
//             (https://<service>.<region>.amazonaws.com). AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true skips
//             the environment and profile endpoints.
//   allow_http: explicit -> AWS_ALLOW_HTTP (true/false/1/0) -> false.
//   path_style (s3): explicit -> AWS_S3_FORCE_PATH_STYLE,
//             AWS_VIRTUAL_HOSTED_STYLE_REQUEST, AWS_S3_ADDRESSING_STYLE
//             (path|virtual|auto) -> profile `s3 = addressing_style` ->
//             path-style for a custom endpoint, virtual-hosted for AWS.
// kInvalidArgument: unknown service, malformed region/URL/boolean, an http
// endpoint without allow_http, conflicting addressing variables, or a
// profile asked for by name that does not exist; each message names the
// setting and where it came from. kPermissionDenied: unreadable profile file.
StatusOr<AwsServiceConfig> ResolveServiceConfig(std::string_view service,
                                                const AwsConfigOverrides& explicit_options,
                                                const AwsConfigSources& sources = {});

// True when the endpoint's host is AWS's (*.amazonaws.com, *.amazonaws.com.cn).
// REQUIRES: endpoint_url as ResolveServiceConfig returns it.
bool IsAwsEndpoint(const std::string& endpoint_url);

// A Delta table location on S3.
struct S3Location {
  std::string scheme;      // "s3", "s3a" or "s3n" (lower-cased)
  std::string bucket;      // "my-bucket"
  std::string key_prefix;  // "tables/events"; no leading or trailing '/'; may be empty
};

// Parses "s3://bucket/prefix" (also s3a://, s3n://). The prefix is taken
// verbatim (no percent-decoding). kInvalidArgument, naming the problem, for
// another scheme, an empty or invalid bucket name (S3's naming rules), an
// empty, "." or ".." path segment, a query or fragment, or control
// characters.
StatusOr<S3Location> ParseS3Uri(std::string_view uri);

}  // namespace deltacommit::aws
