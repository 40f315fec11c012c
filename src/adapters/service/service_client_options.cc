#include "deltacommit/service_client/service_client_options.h"

#include <cstdlib>

#include "deltacommit/core/message_quote.h"

namespace deltacommit::service_client {

std::optional<std::string> ProcessEnv(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

StatusOr<std::string> NormalizeServiceUrl(std::string_view url) {
  // The URL may carry a secret by mistake (user:password@host): what is
  // quoted leaves out everything before the '@'.
  std::string quoted(url);
  if (size_t at = quoted.find('@'); at != std::string::npos) {
    size_t start = quoted.find("://");
    start = start == std::string::npos ? 0 : start + 3;
    quoted.replace(start, at + 1 - start, "...@");
  }
  auto refuse = [&](std::string_view why) {
    return InvalidArgumentError("--service-url \"" + Excerpt(quoted, 120) + "\": " +
                                std::string(why));
  };
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return refuse("expected http://host[:port] or https://...");
  std::string_view scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return refuse("the scheme must be http or https");
  std::string_view rest = url.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.empty()) return refuse("no host");
  if (authority.find('@') != std::string_view::npos) {
    return refuse("user info in the URL is not allowed; give the token with --service-token");
  }
  if (url.find_first_of("?#") != std::string_view::npos) {
    return refuse("a query or fragment is not allowed");
  }
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return refuse("spaces and control characters are not allowed");
    }
  }
  std::string out(url);
  while (out.size() > scheme_end + 3 + authority.size() && out.back() == '/') out.pop_back();
  return out;
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
