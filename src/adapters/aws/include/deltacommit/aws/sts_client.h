// StsClient: AWS STS's GetSessionToken, which turns long-term access keys
// into temporary credentials (key id, secret, session token, expiration).
// The commit service accepts only temporary credentials, so a writer with
// long-term keys asks STS for a session first (SessionCredentialsProvider).
//
// The Query API: POST / with the form Action=GetSessionToken&Version=
// 2011-06-15&DurationSeconds=N, SigV4 with service "sts", the reply an XML
// GetSessionTokenResponse. AWS serves it at https://sts.<region>.amazonaws.com;
// S3-compatible stores (Ceph RGW, MinIO) on their S3 endpoint.
//
// Errors (messages name the endpoint, the request id and the long-term key's
// source and redacted id, never a secret or the reply's body):
//   kPermissionDenied  AccessDenied: the keys may not call sts:GetSessionToken
//                      (or the endpoint serves no STS); says what to do
//   kUnauthenticated   unknown key id, bad signature, expired credentials
//   kInvalidArgument   a duration outside [900, 129600] s (nothing sent);
//                      other client errors
//   kUnavailable       throttled, 5xx or unreachable after all attempts
//   kInternal          a 200 reply that is not a GetSessionTokenResponse
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
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

  const StsClientConfig& config() const { return config_; }

 private:
  Status ErrorFor(const HttpResponse& response, const Credentials& long_term) const;

  const StsClientConfig config_;
  HttpClient& http_;
  Clock& clock_;
  Sleeper& sleeper_;
};

// The Credentials of a GetSessionTokenResponse; `source` becomes their
// source. kInternal naming the missing or malformed element (never a value
// but the expiration's).
StatusOr<Credentials> ParseGetSessionTokenResponse(std::string_view xml,
                                                   const std::string& source);

// kInvalidArgument, naming `where`, unless seconds is within GetSessionToken's
// bounds.
Status CheckSessionDuration(int64_t seconds, std::string_view where);

// Where to ask for sessions for a table on S3 (`s3`, as resolved):
// `overrides.endpoint_url`, AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL, profile
// `endpoint_url`; else, when the S3 endpoint was overridden to a store that
// is not AWS, that endpoint (RGW and MinIO serve STS there); else AWS's STS
// for the region. Errors as ResolveServiceConfig's.
StatusOr<AwsServiceConfig> ResolveStsConfig(const AwsConfigOverrides& overrides,
                                            const AwsServiceConfig& s3,
                                            const AwsConfigSources& sources = {});

}  // namespace deltacommit::aws
