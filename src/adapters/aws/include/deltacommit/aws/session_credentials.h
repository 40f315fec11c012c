// SessionCredentialsProvider: the credentials a writer sends to the commit
// service, which takes only temporary ones (with an expiration) so that it
// never holds a long-term secret. Over the writer's normal chain (`base`):
//   - temporary credentials (a session token and an expiration) pass through
//     unchanged;
//   - a session token without a known expiration is refused, saying how to
//     give it (AWS_CREDENTIAL_EXPIRATION, or a credential_process that
//     reports Expiration);
//   - long-term keys (no session token) are exchanged for a session through
//     STS GetSessionToken, cached and renewed `refresh_before_expiry_ms`
//     before it expires; never sent themselves.
// The S3 calls the writer makes itself keep using `base`.
//
// Nothing here logs; messages carry credential sources and redacted key ids
// only.
//
// Thread-safety: safe for concurrent use; writer threads share one session
// (one GetSessionToken at a time refreshes it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/clock.h"
#include "deltacommit/status.h"

namespace deltacommit::aws {

struct SessionCredentialsOptions {
  // GetSessionToken's DurationSeconds: 900 (STS's minimum) to 129600.
  int64_t duration_seconds = 3600;
  // Renew a session this long before it expires; well above the service's
  // minimum validity (10 s) so a commit never carries nearly expired ones.
  int64_t refresh_before_expiry_ms = 5 * 60 * 1000;
};

// Exchanges long-term keys for a session (StsClient::GetSessionToken; a fake
// in tests).
using GetSessionTokenFn =
    std::function<StatusOr<Credentials>(const Credentials& long_term, int64_t duration_seconds)>;

class SessionCredentialsProvider : public CredentialsProvider {
 public:
  // `base` and `clock` must outlive this.
  SessionCredentialsProvider(CredentialsProvider& base, GetSessionTokenFn get_session_token,
                             SessionCredentialsOptions options = {},
                             Clock& clock = SystemClock());

  std::string Name() const override;  // "temporary credentials over <base>"

  // Errors of `base` and of GetSessionToken as they come; kUnauthenticated
  // for a session token without an expiration.
  StatusOr<Credentials> GetCredentials() override;

 private:
  // The cache of sessions for `long_term`'s key; a new one when the chain's
  // key changed (rotated keys get their own session).
  std::shared_ptr<CredentialsProvider> SessionsFor(const Credentials& long_term);

  CredentialsProvider& base_;
  const GetSessionTokenFn get_session_token_;
  const SessionCredentialsOptions options_;
  Clock& clock_;
  std::mutex mu_;
  std::string sessions_key_id_;                    // guarded by mu_
  std::shared_ptr<CredentialsProvider> sessions_;  // guarded by mu_
};

}  // namespace deltacommit::aws
