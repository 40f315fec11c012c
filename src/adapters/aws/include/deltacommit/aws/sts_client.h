// StsClient: AWS STS's GetSessionToken and AssumeRole, which give
// temporary credentials (key id, secret, session token, expiration).
//   GetSessionToken: the commit service accepts only temporary credentials,
//     so a writer with long-term keys asks STS for a session first
//     (SessionCredentialsProvider).
//   AssumeRole: the commit service vends credentials for one table (the
//     Unity Catalog API's temporary credentials): a session of a configured
//     role, narrowed by a session policy to the table's prefix.
//
// The Query API: POST / with the form Action=GetSessionToken&Version=
// 2011-06-15&DurationSeconds=N (AssumeRole adds RoleArn, RoleSessionName,
// Policy, ExternalId), SigV4 with service "sts", the reply an XML
// <Action>Response. AWS serves it at https://sts.<region>.amazonaws.com;
// S3-compatible stores (Ceph RGW, MinIO) on their S3 endpoint.
//
// Errors (messages name the endpoint, the request id and the long-term key's
// source and redacted id, never a secret or the reply's body):
//   kPermissionDenied  AccessDenied: the keys may not call sts:GetSessionToken
//                      or assume the role (or the endpoint serves no STS);
//                      says what to do
//   kUnauthenticated   unknown key id, bad signature, expired credentials
//   kInvalidArgument   a duration outside the action's bounds, a malformed
//                      role ARN or session name (nothing sent); other
//                      client errors (a malformed session policy)
//   kNotFound          AssumeRole of a role that does not exist
//   kUnavailable       throttled, 5xx or unreachable after all attempts
//   kInternal          a 200 reply that is not a GetSessionTokenResponse
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/retry.h"
#include "deltacommit/clock.h"
#include "deltacommit/status.h"

namespace deltacommit::aws {

// GetSessionToken's DurationSeconds bounds (AWS's; RGW's minimum is 900 too).
inline constexpr int64_t kMinSessionDurationSeconds = 900;
inline constexpr int64_t kMaxSessionDurationSeconds = 129'600;
// AssumeRole's (a role's own MaxSessionDuration may be lower: 1 h by default).
inline constexpr int64_t kMaxRoleSessionDurationSeconds = 43'200;
// AWS's limit on AssumeRole's Policy parameter (before packing).
inline constexpr size_t kMaxSessionPolicyBytes = 2'048;

// One AssumeRole call.
struct AssumeRoleRequest {
  std::string role_arn;       // arn:aws:iam::<account>:role/<name> (RGW: no account)
  std::string session_name;   // 2-64 of [A-Za-z0-9+=,.@_-]; shows in the store's logs
  std::string policy;         // a session policy (JSON, at most 2,048 bytes); "": none
  std::string external_id;    // "": none
  int64_t duration_seconds = 3600;
};

struct StsClientConfig {
  AwsServiceConfig service;  // endpoint and region (ResolveStsConfig)
  RetryPolicy retry;
};

class StsClient {
 public:
  // `http`, `clock` and `sleeper` must outlive the client.
  StsClient(StsClientConfig config, HttpClient& http, Clock& clock = SystemClock(),
            Sleeper& sleeper = RealSleeper());

  // Temporary credentials for `long_term`, valid `duration_seconds`. Idempotent
  // enough to retry (each call issues a new session; none is harmed).
  StatusOr<Credentials> GetSessionToken(const Credentials& long_term, int64_t duration_seconds);

  // Temporary credentials of `request.role_arn`, signed with `caller` (the
  // service's own credentials, long-term or not). The session may do only
  // what both the role's and the session policy allow. Retried like
  // GetSessionToken (each call is a new session).
  StatusOr<Credentials> AssumeRole(const Credentials& caller, const AssumeRoleRequest& request);

  const StsClientConfig& config() const { return config_; }

 private:
  // Signs and sends one action's form, parses its credentials.
  StatusOr<Credentials> Call(std::string_view action, const std::string& form,
                             const Credentials& caller, std::string_view purpose,
                             const std::string& source);
  Status ErrorFor(std::string_view action, std::string_view purpose,
                  const HttpResponse& response, const Credentials& caller) const;

  const StsClientConfig config_;
  HttpClient& http_;
  Clock& clock_;
  Sleeper& sleeper_;
};

// The Credentials of an STS <action>Response (action "GetSessionToken",
// "AssumeRole"); `source` becomes their source. kInternal naming the
// missing or malformed element (never a value but the expiration's).
StatusOr<Credentials> ParseStsCredentials(std::string_view xml, std::string_view action,
                                          const std::string& source);

// kInvalidArgument, naming `where`, unless seconds is within GetSessionToken's
// bounds.
Status CheckSessionDuration(int64_t seconds, std::string_view where);

// kInvalidArgument naming what is wrong with an AssumeRole request (its
// duration, role ARN, session name, policy size), before anything is sent;
// its parts, for checking a configuration.
Status CheckAssumeRoleRequest(const AssumeRoleRequest& request);
Status CheckRoleSessionDuration(int64_t seconds, std::string_view where);
Status CheckRoleArn(std::string_view arn);

// Where to ask for sessions for a table on S3 (`s3`, as resolved):
// `overrides.endpoint_url`, AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL, profile
// `endpoint_url`; else, when the S3 endpoint was overridden to a store that
// is not AWS, that endpoint (RGW and MinIO serve STS there); else AWS's STS
// for the region. Errors as ResolveServiceConfig's.
StatusOr<AwsServiceConfig> ResolveStsConfig(const AwsConfigOverrides& overrides,
                                            const AwsServiceConfig& s3,
                                            const AwsConfigSources& sources = {});

}  // namespace deltacommit::aws
