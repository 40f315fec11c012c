#include "deltacommit/aws/sts_client.h"

#include <pugixml.hpp>

#include <random>
#include <string>
#include <utility>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/aws/errors.h"
#include "deltacommit/aws/sigv4.h"

namespace deltacommit::aws {
namespace {

std::mt19937_64& ThreadRng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// What to do when STS refuses the long-term keys: the service cannot take
// them, so either STS must allow them or the writer brings its own session.
constexpr char kAccessDeniedAdvice[] =
    "; the commit service needs temporary credentials, and the writer's long-term keys may not "
    "call sts:GetSessionToken here: grant them sts:GetSessionToken (on Ceph RGW also enable STS "
    "with rgw_s3_auth_use_sts and rgw_sts_key; RGW answers AccessDenied to a wrong secret too), "
    "or give the writer temporary credentials: a role or SSO profile, credential_process, or "
    "AWS_SESSION_TOKEN with AWS_CREDENTIAL_EXPIRATION";

}  // namespace

Status CheckSessionDuration(int64_t seconds, std::string_view where) {
  if (seconds >= kMinSessionDurationSeconds && seconds <= kMaxSessionDurationSeconds) {
    return OkStatus();
  }
  return InvalidArgumentError(std::string(where) + " = " + std::to_string(seconds) +
                              ": STS GetSessionToken takes " +
                              std::to_string(kMinSessionDurationSeconds) + " to " +
                              std::to_string(kMaxSessionDurationSeconds) + " seconds");
}

StatusOr<Credentials> ParseGetSessionTokenResponse(std::string_view xml,
                                                   const std::string& source) {
  const std::string what = "the GetSessionTokenResponse";
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) {
    return InternalError("the reply is not XML (" + std::to_string(xml.size()) + " bytes)");
  }
  pugi::xml_node credentials = doc.child("GetSessionTokenResponse")
                                   .child("GetSessionTokenResult")
                                   .child("Credentials");
  if (!credentials) {
    return InternalError("the reply has no GetSessionTokenResponse/GetSessionTokenResult/"
                         "Credentials element");
  }
  Credentials c;
  c.source = source;
  struct Field {
    const char* name;
    std::string* out;
  };
  std::string expiration;
  for (Field f : {Field{"AccessKeyId", &c.access_key_id},
                  Field{"SecretAccessKey", &c.secret_access_key},
                  Field{"SessionToken", &c.session_token}, Field{"Expiration", &expiration}}) {
    *f.out = credentials.child_value(f.name);
    if (f.out->empty()) return InternalError(what + ": Credentials has no " + f.name);
  }
  c.expiration_ms = internal::ParseIso8601(expiration);
  if (!c.expiration_ms) {
    return InternalError(what + ": Expiration \"" + expiration.substr(0, 40) +
                         "\" is not an ISO 8601 time");
  }
  return c;
}

StsClient::StsClient(StsClientConfig config, HttpClient& http, Clock& clock, Sleeper& sleeper)
    : config_(std::move(config)), http_(http), clock_(clock), sleeper_(sleeper) {}

StatusOr<Credentials> StsClient::GetSessionToken(const Credentials& long_term,
                                                 int64_t duration_seconds) {
  DC_RETURN_IF_ERROR(CheckSessionDuration(duration_seconds, "session duration"));
  const std::string& endpoint = config_.service.endpoint_url;
  auto build = [&]() -> StatusOr<HttpRequest> {
    const int64_t now_ms = clock_.NowMillis();
    DC_RETURN_IF_ERROR(CheckNotExpired(long_term, now_ms));
    HttpRequest request;
    request.method = "POST";
    request.url = endpoint + "/";
    request.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
    request.body = "Action=GetSessionToken&Version=2011-06-15&DurationSeconds=" +
                   std::to_string(duration_seconds);
    SignRequest(request, long_term, {config_.service.region, "sts", now_ms, false});
    return request;
  };
  std::mt19937_64 rng(ThreadRng()());
  StatusOr<HttpResponse> response = SendWithRetry(http_, build, /*idempotent=*/true,
                                                  config_.retry, sleeper_, rng,
                                                  IsTransientResponse);
  if (!response.ok()) {
    // A lost reply changed nothing worth knowing: STS is just unreachable.
    const StatusCode code = response.status().IsUnknownOutcome() ? StatusCode::kUnavailable
                                                                  : response.status().code();
    return Status(code, "STS GetSessionToken at " + endpoint + ": " + response.status().message());
  }
  if (response->status != 200) return ErrorFor(*response, long_term);
  StatusOr<Credentials> session = ParseGetSessionTokenResponse(
      response->body, "STS GetSessionToken at " + endpoint + " for key " +
                          long_term.RedactedKeyId() + " from " + long_term.source);
  if (!session.ok()) {
    // The message may quote the reply (its Expiration).
    const Status& failed = session.status();
    return Status(failed.code(), RedactCredentials(failed.message(), long_term))
        .WithContext("STS GetSessionToken at " + endpoint);
  }
  return session;
}

Status StsClient::ErrorFor(const HttpResponse& response, const Credentials& long_term) const {
  const AwsError error = ParseXmlError(response);
  const AwsErrorContext context{"STS",
                                "GetSessionToken",
                                "(temporary credentials for the commit service)",
                                config_.service.endpoint_url,
                                long_term.source,
                                long_term.RedactedKeyId(),
                                &long_term};
  Status base = ErrorToStatus(error, context);
  if (error.code == "AccessDenied" || error.code == "AccessDeniedException") {
    return PermissionDeniedError(base.message() + kAccessDeniedAdvice);
  }
  if (base.code() == StatusCode::kUnavailable) {
    return UnavailableError(base.message() + "; still failing after all attempts");
  }
  return base;
}

StatusOr<AwsServiceConfig> ResolveStsConfig(const AwsConfigOverrides& overrides,
                                            const AwsServiceConfig& s3,
                                            const AwsConfigSources& sources) {
  DC_ASSIGN_OR_RETURN(AwsServiceConfig sts, ResolveServiceConfig("sts", overrides, sources));
  const bool sts_configured = sts.endpoint_source != kAwsDefaultEndpointSource;
  const bool s3_elsewhere =
      s3.endpoint_source != kAwsDefaultEndpointSource && !IsAwsEndpoint(s3.endpoint_url);
  if (!sts_configured && s3_elsewhere) {
    sts.endpoint_url = s3.endpoint_url;
    sts.endpoint_source = "the table's S3 endpoint (from " + s3.endpoint_source + ")";
    sts.allow_http = s3.allow_http;
  }
  return sts;
}

}  // namespace deltacommit::aws
