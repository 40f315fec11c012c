// Where the commit service is and how to talk to it: --service-url,
// --service-token (or DELTACOMMIT_SERVICE_URL, DELTACOMMIT_SERVICE_TOKEN),
// --service-endpoint, and the retry budget.
//
// Thread-safety: values and pure functions.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/retry.h"
#include "deltacommit/status.h"

namespace deltacommit::service_client {

struct CommitServiceOptions {
  // "https://commits.example.com:8642" (a path prefix is allowed, for a
  // service behind a proxy); no trailing '/', no user info, query or fragment.
  std::string url;
  std::string token;     // the bearer token; never logged or shown
  std::string endpoint;  // a name on the service's S3 endpoint allowlist, or empty
  // Sends of one call at most, the first included, with jittered
  // exponential backoff in between: a bounded budget, never a loop.
  aws::RetryPolicy retry{4, std::chrono::milliseconds(100), std::chrono::milliseconds(2000)};
};

// Environment lookup; the default reads the process environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
std::optional<std::string> ProcessEnv(std::string_view name);

// The options from the given values, each falling back to its environment
// variable when empty (url: DELTACOMMIT_SERVICE_URL, token:
// DELTACOMMIT_SERVICE_TOKEN). kInvalidArgument for a missing or malformed
// URL (naming it) or a missing token, saying where to give it.
StatusOr<CommitServiceOptions> ResolveCommitServiceOptions(std::string url, std::string token,
                                                           std::string endpoint,
                                                           const EnvLookup& env = ProcessEnv);

// Checks and normalises a service URL (see CommitServiceOptions::url).
StatusOr<std::string> NormalizeServiceUrl(std::string_view url);

}  // namespace deltacommit::service_client
