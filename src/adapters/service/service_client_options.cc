#include "deltacommit/service_client/service_client_options.h"

#include <cstdlib>

#include "deltacommit/core/http_url.h"
#include "deltacommit/core/message_quote.h"

namespace deltacommit::service_client {

std::optional<std::string> ProcessEnv(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

StatusOr<std::string> NormalizeServiceUrl(std::string_view url) {
  return NormalizeHttpUrl(url, "--service-url", "--service-token");
}

StatusOr<CommitServiceOptions> ResolveCommitServiceOptions(std::string url, std::string token,
                                                           std::string endpoint,
                                                           const EnvLookup& env) {
  if (url.empty()) url = env("DELTACOMMIT_SERVICE_URL").value_or("");
  if (token.empty()) token = env("DELTACOMMIT_SERVICE_TOKEN").value_or("");
  if (url.empty()) {
    return InvalidArgumentError(
        "no commit service URL: give --service-url URL or set DELTACOMMIT_SERVICE_URL");
  }
  if (token.empty()) {
    return InvalidArgumentError(
        "no commit service token: give --service-token TOKEN or set DELTACOMMIT_SERVICE_TOKEN "
        "(the service refuses requests without one)");
  }
  for (char c : token) {
    // It goes into a header line; never quoted here, it is a secret.
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return InvalidArgumentError(
          "the commit service token has a space or control character (a stray newline?)");
    }
  }
  CommitServiceOptions options;
  DC_ASSIGN_OR_RETURN(options.url, NormalizeServiceUrl(url));
  options.token = std::move(token);
  options.endpoint = std::move(endpoint);
  return options;
}

}  // namespace deltacommit::service_client
