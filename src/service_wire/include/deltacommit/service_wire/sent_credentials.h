// The writer's own temporary S3 credentials, sent in request headers to the
// Unity Catalog APIs of `deltacommit serve`, for a bucket whose credentials
// pass through (vend_credentials = "pass_through", docs/unity-catalog.md):
//
//   X-Deltacommit-Access-Key-Id
//   X-Deltacommit-Secret-Access-Key
//   X-Deltacommit-Session-Token
//   X-Deltacommit-Credentials-Expiration   RFC 3339, e.g. 2026-12-03T10:00:00Z
//
// Headers, not body fields: those APIs' bodies are Unity Catalog's, which
// other engines send without such fields. The client (src/adapters/unity)
// writes them and the service (service/vend) reads them, here, once.
//
// Only temporary credentials pass: a long-term key never leaves its owner.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/status.h"

namespace deltacommit::service_wire {

inline constexpr std::string_view kSentAccessKeyIdHeader = "X-Deltacommit-Access-Key-Id";
inline constexpr std::string_view kSentSecretAccessKeyHeader = "X-Deltacommit-Secret-Access-Key";
inline constexpr std::string_view kSentSessionTokenHeader = "X-Deltacommit-Session-Token";
inline constexpr std::string_view kSentExpirationHeader = "X-Deltacommit-Credentials-Expiration";

// The headers for `credentials`. kInvalidArgument unless they are
// temporary (a session token and an expiration).
StatusOr<aws::HttpHeaders> SentCredentialHeaders(const aws::Credentials& credentials);

// The four headers as a request carried them; a field is empty when its
// header was not sent.
struct SentCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string expiration;
  bool any() const {
    return !access_key_id.empty() || !secret_access_key.empty() || !session_token.empty() ||
           !expiration.empty();
  }
};

// The four headers, as `header` (a case-insensitive lookup by name) finds
// them.
SentCredentials ReadSentCredentials(
    const std::function<std::optional<std::string_view>(std::string_view)>& header);

// The credentials `sent` carries, with source `source`, at `now_ms`:
//   kFailedPrecondition  none of the headers was sent
//   kInvalidArgument     some but not all of them, or an expiration that is
//                        not an RFC 3339 time
//   kUnauthenticated     they expired (the message names the key id,
//                        redacted, and the time)
StatusOr<aws::Credentials> ParseSentCredentials(const SentCredentials& sent, int64_t now_ms,
                                                std::string source);

}  // namespace deltacommit::service_wire
