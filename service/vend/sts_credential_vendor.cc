#include "service/vend/sts_credential_vendor.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <utility>

#include "deltacommit/aws/sts_client.h"
#include "service/config/s3_endpoints.h"
#include "service/vend/session_policy.h"

namespace deltacommit::service {

std::string RoleSessionName(std::string_view principal) {
  std::string name = "dc-";
  for (char c : principal.substr(0, 40)) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) ||
                    std::string_view("+=,.@_-").find(c) != std::string_view::npos;
    name += ok ? c : '_';
  }
  thread_local std::mt19937 rng{std::random_device{}()};
  char suffix[10];
  std::snprintf(suffix, sizeof(suffix), "-%08x", static_cast<unsigned>(rng()));
  return name + suffix;
}

StsCredentialVendor::StsCredentialVendor(const S3Config& s3, aws::HttpClient& http,
                                         aws::CredentialsProvider& service_credentials,
                                         Clock& clock, Sleeper& sleeper, aws::RetryPolicy retry)
    : s3_(s3),
      http_(http),
      service_credentials_(service_credentials),
      clock_(clock),
      sleeper_(sleeper),
      retry_(retry) {}

StatusOr<VendedCredentials> StsCredentialVendor::Vend(const VendRequest& request) {
  const TableUri& location = request.location;
  const std::string what = DescribeVendRequest(request);
  DC_RETURN_IF_ERROR(CheckVendLocation(request));
  DC_ASSIGN_OR_RETURN(S3EndpointConfig endpoint, ResolveS3Endpoint(s3_, location.bucket, {}));
  if (endpoint.vend.source != VendConfig::Source::kAssumeRole) {
    return FailedPreconditionError(what + ": this service vends no credentials for bucket " +
                                   location.bucket +
                                   " by STS AssumeRole; its operator can set vend_credentials = "
                                   "\"assume_role\" and vend_role_arn in [s3] or "
                                   "in the bucket's [[s3.bucket]] entry");
  }
  if (const size_t bytes = SessionPolicy(location, request.operation).size();
      bytes > aws::kMaxSessionPolicyBytes) {
    return InvalidArgumentError(what +
                                ": the location's prefix is too long to scope a session "
                                "policy to (" +
                                std::to_string(bytes) + " bytes; STS takes at most " +
                                std::to_string(aws::kMaxSessionPolicyBytes) + ")");
  }
  const Key key{endpoint.vend.role_arn, location.uri, request.operation, request.principal};
  if (std::optional<aws::Credentials> kept = Kept(key, endpoint.vend.duration_seconds)) {
    return VendedCredentials{*std::move(kept), location.uri};
  }
  StatusOr<aws::Credentials> session = AssumeRole(endpoint.vend, request);
  if (!session.ok()) {
    // What STS refused is the service's own set-up (its credentials, the
    // role's trust), not the client's request: the client can only retry
    // when STS was unreachable.
    const StatusCode code = session.status().code() == StatusCode::kUnavailable
                                ? StatusCode::kUnavailable
                                : StatusCode::kInternal;
    return Status(code, what + ": " + session.status().message());
  }
  Keep(key, *session);
  return VendedCredentials{*std::move(session), location.uri};
}

StatusOr<aws::Credentials> StsCredentialVendor::AssumeRole(const VendConfig& vend,
                                                           const VendRequest& request) {
  StatusOr<aws::Credentials> caller = service_credentials_.GetCredentials();
  if (!caller.ok()) {
    return Status(caller.status().code(),
                  "the service's own AWS credentials (which sign STS AssumeRole): " +
                      caller.status().message());
  }
  aws::AssumeRoleRequest assume;
  assume.role_arn = vend.role_arn;
  assume.session_name = RoleSessionName(request.principal);
  assume.policy = SessionPolicy(request.location, request.operation);
  assume.external_id = vend.external_id;
  assume.duration_seconds = vend.duration_seconds;
  aws::StsClient sts({vend.sts, retry_}, http_, clock_, sleeper_);
  StatusOr<aws::Credentials> session = sts.AssumeRole(*caller, assume);
  if (session.ok()) {
    session->source = "a session of " + vend.role_arn + " vended by this service for " +
                      std::string(VendOperationName(request.operation)) + " on " +
                      request.location.uri;
  }
  return session;
}

std::optional<aws::Credentials> StsCredentialVendor::Kept(const Key& key,
                                                          int64_t duration_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kept_.find(key);
  if (it == kept_.end()) return std::nullopt;
  const int64_t left_ms = it->second.expiration_ms.value_or(0) - clock_.NowMillis();
  if (left_ms * 2 > duration_seconds * 1000) return it->second;
  kept_.erase(it);
  return std::nullopt;
}

void StsCredentialVendor::Keep(const Key& key, const aws::Credentials& credentials) {
  std::lock_guard<std::mutex> lock(mu_);
  if (kept_.size() >= kMaxKeptSessions && !kept_.contains(key)) {
    const int64_t now = clock_.NowMillis();
    std::erase_if(kept_,
                  [&](const auto& entry) { return entry.second.expiration_ms.value_or(0) <= now; });
    // Still full: the session closest to its expiry goes, so that one
    // client asking for many locations cannot empty everyone's.
    if (kept_.size() >= kMaxKeptSessions) {
      kept_.erase(std::min_element(kept_.begin(), kept_.end(), [](const auto& a, const auto& b) {
        return a.second.expiration_ms.value_or(0) < b.second.expiration_ms.value_or(0);
      }));
    }
  }
  kept_[key] = credentials;
}

}  // namespace deltacommit::service
