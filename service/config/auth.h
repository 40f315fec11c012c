// Who may call the commit service, and on which tables.
//
// Authentication: `Authorization: Bearer <token>`; the token is hashed with
// SHA-256 and compared, in constant time, with every [[token]] hash of the
// config, so neither the file nor the comparison's timing gives tokens away.
// Authorisation: a token acts on a table iff one of its table prefixes
// covers the normalised table URI at a '/' boundary (TablePrefixCovers) and
// its actions include the one asked for.
//
// No message ever contains a token; they name the token by its `name`.
//
// Thread-safety: Authenticator is immutable after construction; its const
// methods and the free functions are safe to call concurrently.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"
#include "service/config/service_config.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {

// Longest bearer token accepted, in bytes.
inline constexpr size_t kMaxBearerTokenLength = 4096;

// The value for a [[token]]'s `sha256`: the lower-case hex SHA-256 of the
// token's bytes (what `printf %s TOKEN | sha256sum` prints).
std::string HashToken(std::string_view token);

// The token in an Authorization header value ("Bearer <token>"; the scheme
// is case-insensitive). `header` is nullopt when the request has none.
// kUnauthenticated, saying which: no header, another scheme, an empty,
// over-long or malformed (not RFC 6750 token68) token.
StatusOr<std::string_view> ParseBearerToken(
    std::optional<std::string_view> header);

class Authenticator {
 public:
  explicit Authenticator(std::vector<TokenConfig> tokens);

  // The [[token]] entry whose hash matches the request's bearer token, or
  // kUnauthenticated as ParseBearerToken, or "unknown bearer token". The
  // pointer lives as long as the Authenticator.
  StatusOr<const TokenConfig*> Authenticate(
      std::optional<std::string_view> header) const;

 private:
  std::vector<TokenConfig> tokens_;
};

// OK iff `token` may do `action` on the Unity Catalog name `full_name`
// ("catalog", "catalog.schema" or "catalog.schema.table"): one of its
// `catalogs` prefixes covers it (CatalogPrefixCovers) and its actions
// include `action`. kPermissionDenied naming the token, the action and the
// name, as Authorize does. A table's storage location is authorised
// separately, with Authorize.
Status AuthorizeName(const TokenConfig& token, std::string_view full_name, Action action);

// OK iff `token` may do `action` on `table`; kPermissionDenied naming the
// token, the action and the table, and whether the table or the action is
// what is not allowed.
Status Authorize(const TokenConfig& token, const TableUri& table,
                 Action action);

}  // namespace deltacommit::service
