#include "deltacommit/core/http_url.h"

#include "deltacommit/core/message_quote.h"

namespace deltacommit {

StatusOr<std::string> NormalizeHttpUrl(std::string_view url, std::string_view option,
                                       std::string_view token_option) {
  // The URL may carry a secret by mistake (user:password@host): what is
  // quoted leaves out everything before the '@'.
  std::string quoted(url);
  if (size_t at = quoted.find('@'); at != std::string::npos) {
    size_t start = quoted.find("://");
    start = start == std::string::npos ? 0 : start + 3;
    quoted.replace(start, at + 1 - start, "...@");
  }
  auto refuse = [&](std::string_view why) {
    return InvalidArgumentError(std::string(option) + " \"" + Excerpt(quoted, 120) +
                                "\": " + std::string(why));
  };
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return refuse("expected http://host[:port] or https://...");
  std::string_view scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return refuse("the scheme must be http or https");
  std::string_view rest = url.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.empty()) return refuse("no host");
  if (authority.find('@') != std::string_view::npos) {
    return refuse("user info in the URL is not allowed; give the token with " +
                  std::string(token_option));
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

}  // namespace deltacommit
