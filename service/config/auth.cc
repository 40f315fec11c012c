#include "service/config/auth.h"

#include <openssl/crypto.h>

#include <utility>

#include "deltacommit/aws/sigv4.h"
#include "deltacommit/core/ascii.h"
#include "deltacommit/core/message_quote.h"
#include "service/config/catalog_names.h"

namespace deltacommit::service {
namespace {

constexpr std::string_view kSendBearer =
    "; send \"Authorization: Bearer <token>\"";

bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// RFC 6750 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" )
// *"="
bool IsToken68(std::string_view token) {
  size_t i = 0;
  while (i < token.size() && (IsAlpha(token[i]) || IsDigit(token[i]) ||
                              std::string_view("-._~+/").find(token[i]) !=
                                  std::string_view::npos)) {
    ++i;
  }
  if (i == 0) return false;
  while (i < token.size() && token[i] == '=') ++i;
  return i == token.size();
}

// The header's scheme, for the message, only when it cannot be a credential:
// a short word followed by a space ("Basic ...", "AWS4-HMAC-SHA256 ...").
std::string DescribeScheme(std::string_view header) {
  size_t space = header.find(' ');
  if (space == std::string_view::npos || space == 0 || space > 32) return "";
  for (char c : header.substr(0, space)) {
    if (!IsAlpha(c) && !IsDigit(c) && c != '-') return "";
  }
  return " (scheme \"" + std::string(header.substr(0, space)) + "\")";
}

}  // namespace

std::string HashToken(std::string_view token) { return aws::Sha256Hex(token); }

StatusOr<std::string_view> ParseBearerToken(
    std::optional<std::string_view> header) {
  if (!header.has_value()) {
    return UnauthenticatedError("missing Authorization header" +
                                std::string(kSendBearer));
  }
  std::string_view value = *header;
  constexpr std::string_view kBearer = "bearer";
  bool bearer =
      value.size() >= kBearer.size() &&
      EqualsIgnoreCase(value.substr(0, kBearer.size()), kBearer) &&
      (value.size() == kBearer.size() || value[kBearer.size()] == ' ');
  if (!bearer) {
    return UnauthenticatedError(
        "the Authorization header is not a bearer token" +
        DescribeScheme(value) + std::string(kSendBearer));
  }
  std::string_view token = value.substr(kBearer.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) {
    token.remove_suffix(1);
  }
  if (token.empty()) {
    return UnauthenticatedError("the bearer token is empty" +
                                std::string(kSendBearer));
  }
  if (token.size() > kMaxBearerTokenLength) {
    return UnauthenticatedError(
        "the bearer token is " + std::to_string(token.size()) +
        " bytes long; the limit is " + std::to_string(kMaxBearerTokenLength));
  }
  if (!IsToken68(token)) {
    return UnauthenticatedError(
        "the bearer token is malformed: it may contain only letters, "
        "digits and - . _ ~ + / (then '=' padding)");
  }
  return token;
}

Authenticator::Authenticator(std::vector<TokenConfig> tokens)
    : tokens_(std::move(tokens)) {}

StatusOr<const TokenConfig*> Authenticator::Authenticate(
    std::optional<std::string_view> header) const {
  DC_ASSIGN_OR_RETURN(std::string_view token, ParseBearerToken(header));
  const std::string hash = HashToken(token);
  const TokenConfig* found = nullptr;
  // Every entry is compared, in constant time each, so the time taken says
  // nothing about which entry (or which prefix of a hash) matched.
  for (const TokenConfig& entry : tokens_) {
    bool equal =
        entry.sha256_hex.size() == hash.size() &&
        CRYPTO_memcmp(entry.sha256_hex.data(), hash.data(), hash.size()) == 0;
    if (equal) found = &entry;
  }
  if (found == nullptr) {
    return UnauthenticatedError(
        "unknown bearer token: it matches no [[token]] of this "
        "service's configuration");
  }
  return found;
}

namespace {

std::string Verb(Action action) {
  switch (action) {
    case Action::kCommit: return "commit to";
    case Action::kRead: return "read";
    case Action::kManage: return "manage";
  }
  return "use";
}

Status ActionAllowed(const TokenConfig& token, const std::string& what, Action action) {
  if (token.Allows(action)) return OkStatus();
  return PermissionDeniedError(what + ": the token's actions do not include \"" +
                               std::string(ActionName(action)) + "\"");
}

}  // namespace

Status AuthorizeName(const TokenConfig& token, std::string_view full_name, Action action) {
  const std::string what = "token \"" + token.name + "\" may not " + Verb(action) + " " +
                           QuoteForMessage(full_name);
  bool covered = false;
  for (const std::string& prefix : token.catalogs) {
    covered = covered || CatalogPrefixCovers(prefix, full_name);
  }
  if (!covered) {
    return PermissionDeniedError(what +
                                 ": the name is not under any of the token's catalog prefixes; "
                                 "ask the operator to add it to the token's `catalogs`");
  }
  return ActionAllowed(token, what, action);
}

Status Authorize(const TokenConfig& token, const TableUri& table,
                 Action action) {
  const std::string what = "token \"" + token.name + "\" may not " + Verb(action) +
                           " table " + table.uri;
  bool covered = false;
  for (const std::string& prefix : token.tables) {
    covered = covered || TablePrefixCovers(prefix, table);
  }
  if (!covered) {
    return PermissionDeniedError(
        what +
        ": the table is not under any of the token's table "
        "prefixes; ask the operator to add it to the token's "
        "`tables`");
  }
  return ActionAllowed(token, what, action);
}

}  // namespace deltacommit::service
