// StsCredentialVendor: vends credentials by STS AssumeRole of the role the
// bucket's configuration names (VendConfig), at the STS endpoint it names,
// signed with the service's own credentials (its AWS chain). Each session
// is narrowed by a session policy to the location and operation asked for
// (session_policy.h), so a vended credential reaches nothing else even
// where the role could.
//
// Sessions are kept and handed out again while more than half of their
// lifetime is left: engines ask for credentials per query or file, and one
// AssumeRole per ask would meet STS's rate limits. A kept session is only
// ever given for the same location, operation and principal.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/retry.h"
#include "deltacommit/clock.h"
#include "service/config/service_config.h"
#include "service/vend/credential_vendor.h"

namespace deltacommit::service {

class StsCredentialVendor : public CredentialVendor {
 public:
  // Every reference must outlive the vendor. `service_credentials` signs
  // the AssumeRole calls; its secrets never leave the service.
  StsCredentialVendor(const S3Config& s3, aws::HttpClient& http,
                      aws::CredentialsProvider& service_credentials, Clock& clock = SystemClock(),
                      Sleeper& sleeper = RealSleeper(), aws::RetryPolicy retry = {});

  StatusOr<VendedCredentials> Vend(const VendRequest& request) override;

  // Most sessions kept; beyond it the expired ones are dropped, then the
  // one closest to its expiry.
  static constexpr size_t kMaxKeptSessions = 4096;

 private:
  using Key = std::tuple<std::string, std::string, VendOperation, std::string>;
  StatusOr<aws::Credentials> AssumeRole(const VendConfig& vend, const VendRequest& request);
  std::optional<aws::Credentials> Kept(const Key& key, int64_t duration_seconds);
  void Keep(const Key& key, const aws::Credentials& credentials);

  const S3Config& s3_;
  aws::HttpClient& http_;
  aws::CredentialsProvider& service_credentials_;
  Clock& clock_;
  Sleeper& sleeper_;
  const aws::RetryPolicy retry_;
  std::mutex mu_;
  std::map<Key, aws::Credentials> kept_;  // guarded by mu_
};

// The STS session name for `principal`: "dc-", the principal with
// characters STS refuses replaced by '_' (at most 40), '-', 8 random hex
// digits.
std::string RoleSessionName(std::string_view principal);

}  // namespace deltacommit::service
