#include "deltacommit/aws/session_credentials.h"

#include <utility>

#include "deltacommit/aws/credentials_internal.h"

namespace deltacommit::aws {
namespace {

Status NoExpiration(const Credentials& c) {
  return UnauthenticatedError(
      "credentials of key " + c.RedactedKeyId() + " from " + c.source +
      " have a session token but no expiration, and the commit service takes only temporary "
      "credentials whose expiry it knows: set AWS_CREDENTIAL_EXPIRATION (ISO 8601, e.g. "
      "2026-11-29T10:00:00Z) beside AWS_SESSION_TOKEN, use a profile whose credential_process "
      "reports Expiration, or give long-term keys (they are exchanged through STS "
      "GetSessionToken)");
}

}  // namespace

SessionCredentialsProvider::SessionCredentialsProvider(CredentialsProvider& base,
                                                       GetSessionTokenFn get_session_token,
                                                       SessionCredentialsOptions options,
                                                       Clock& clock)
    : base_(base),
      get_session_token_(std::move(get_session_token)),
      options_(options),
      clock_(clock) {}

std::string SessionCredentialsProvider::Name() const {
  return "temporary credentials over " + base_.Name();
}

StatusOr<Credentials> SessionCredentialsProvider::GetCredentials() {
  DC_ASSIGN_OR_RETURN(Credentials base, base_.GetCredentials());
  if (!base.session_token.empty()) {
    if (!base.expiration_ms.has_value()) return NoExpiration(base);
    return base;  // already temporary; `base` checked that they are unexpired
  }
  return SessionsFor(base)->GetCredentials();
}

std::shared_ptr<CredentialsProvider> SessionCredentialsProvider::SessionsFor(
    const Credentials& long_term) {
  std::lock_guard<std::mutex> lock(mu_);
  if (sessions_ == nullptr || sessions_key_id_ != long_term.access_key_id) {
    // The fetch holds its own copy of the keys, so a session is always
    // asked for with the keys it is cached under.
    auto fetch = [get = get_session_token_, long_term, seconds = options_.duration_seconds] {
      return get(long_term, seconds);
    };
    sessions_ = internal::NewCachingProvider("STS sessions for key " + long_term.RedactedKeyId(),
                                             std::move(fetch), options_.refresh_before_expiry_ms,
                                             clock_);
    sessions_key_id_ = long_term.access_key_id;
  }
  return sessions_;  // used outside the lock: callers may wait on a refresh
}

}  // namespace deltacommit::aws
