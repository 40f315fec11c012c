#include "deltacommit/aws/sts_client.h"

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <utility>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/aws/errors.h"
#include "deltacommit/aws/sigv4.h"
#include "deltacommit/core/message_quote.h"

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

// What to do when STS refuses to let the service's credentials assume the
// role it vends sessions of.
constexpr char kAssumeRoleDeniedAdvice[] =
    "; the service's credentials may not assume the role: its trust policy must allow "
    "sts:AssumeRole to this principal (the user or role of the service's key), and on AWS the "
    "principal needs sts:AssumeRole on the role too; a session policy cannot widen what the role "
    "itself may do";

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

StatusOr<Credentials> ParseStsCredentials(std::string_view xml, std::string_view action,
                                          const std::string& source) {
  const std::string response = std::string(action) + "Response";
  const std::string result = std::string(action) + "Result";
  const std::string what = "the " + response;
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) {
    return InternalError("the reply is not XML (" + std::to_string(xml.size()) + " bytes)");
  }
  pugi::xml_node credentials =
      doc.child(response.c_str()).child(result.c_str()).child("Credentials");
  if (!credentials) {
    return InternalError("the reply has no " + response + "/" + result + "/Credentials element");
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

Status CheckRoleSessionDuration(int64_t seconds, std::string_view where) {
  if (seconds >= kMinSessionDurationSeconds && seconds <= kMaxRoleSessionDurationSeconds) {
    return OkStatus();
  }
  return InvalidArgumentError(std::string(where) + " = " + std::to_string(seconds) +
                              ": STS AssumeRole takes " +
                              std::to_string(kMinSessionDurationSeconds) + " to " +
                              std::to_string(kMaxRoleSessionDurationSeconds) + " seconds");
}

Status CheckRoleArn(std::string_view arn) {
  // arn:<partition>:iam::<account, empty on RGW>:role/<path/name>
  const size_t role = arn.find(":role/");
  if (arn.rfind("arn:", 0) != 0 || arn.find(":iam::") == std::string_view::npos ||
      role == std::string_view::npos || role + 6 >= arn.size()) {
    return InvalidArgumentError("role ARN " + QuoteForMessage(arn) +
                                " is not an IAM role ARN (arn:aws:iam::<account>:role/<name>; "
                                "on Ceph RGW arn:aws:iam:::role/<name>)");
  }
  return OkStatus();
}

Status CheckAssumeRoleRequest(const AssumeRoleRequest& request) {
  DC_RETURN_IF_ERROR(CheckRoleSessionDuration(request.duration_seconds, "role session duration"));
  DC_RETURN_IF_ERROR(CheckRoleArn(request.role_arn));
  const std::string& name = request.session_name;
  const bool name_ok =
      name.size() >= 2 && name.size() <= 64 &&
      std::all_of(name.begin(), name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) ||
               std::string_view("+=,.@_-").find(ch) != std::string_view::npos;
      });
  if (!name_ok) {
    return InvalidArgumentError("role session name " + QuoteForMessage(name) +
                                " must be 2 to 64 of A-Z, a-z, 0-9 and +=,.@_-");
  }
  if (request.policy.size() > kMaxSessionPolicyBytes) {
    return InvalidArgumentError("the session policy is " + std::to_string(request.policy.size()) +
                                " bytes; STS AssumeRole takes at most " +
                                std::to_string(kMaxSessionPolicyBytes));
  }
  return OkStatus();
}

StsClient::StsClient(StsClientConfig config, HttpClient& http, Clock& clock, Sleeper& sleeper)
    : config_(std::move(config)), http_(http), clock_(clock), sleeper_(sleeper) {}

StatusOr<Credentials> StsClient::GetSessionToken(const Credentials& long_term,
                                                 int64_t duration_seconds) {
  DC_RETURN_IF_ERROR(CheckSessionDuration(duration_seconds, "session duration"));
  return Call("GetSessionToken",
              "Action=GetSessionToken&Version=2011-06-15&DurationSeconds=" +
                  std::to_string(duration_seconds),
              long_term, "(temporary credentials for the commit service)",
              "STS GetSessionToken at " + config_.service.endpoint_url + " for key " +
                  long_term.RedactedKeyId() + " from " + long_term.source);
}

StatusOr<Credentials> StsClient::AssumeRole(const Credentials& caller,
                                            const AssumeRoleRequest& request) {
  DC_RETURN_IF_ERROR(CheckAssumeRoleRequest(request));
  std::string form = "Action=AssumeRole&Version=2011-06-15&RoleArn=" +
                     UriEncode(request.role_arn, true) +
                     "&RoleSessionName=" + UriEncode(request.session_name, true) +
                     "&DurationSeconds=" + std::to_string(request.duration_seconds);
  if (!request.policy.empty()) form += "&Policy=" + UriEncode(request.policy, true);
  if (!request.external_id.empty()) form += "&ExternalId=" + UriEncode(request.external_id, true);
  return Call("AssumeRole", form, caller, "(role " + request.role_arn + ")",
              "STS AssumeRole of " + request.role_arn + " at " + config_.service.endpoint_url +
                  " by key " + caller.RedactedKeyId() + " from " + caller.source);
}

StatusOr<Credentials> StsClient::Call(std::string_view action, const std::string& form,
                                      const Credentials& caller, std::string_view purpose,
                                      const std::string& source) {
  const std::string& endpoint = config_.service.endpoint_url;
  const std::string where = "STS " + std::string(action) + " at " + endpoint;
  auto build = [&]() -> StatusOr<HttpRequest> {
    const int64_t now_ms = clock_.NowMillis();
    DC_RETURN_IF_ERROR(CheckNotExpired(caller, now_ms));
    HttpRequest request;
    request.method = "POST";
    request.url = endpoint + "/";
    request.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
    request.body = form;
    SignRequest(request, caller, {config_.service.region, "sts", now_ms, false});
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
    return Status(code, where + ": " + response.status().message());
  }
  if (response->status != 200) return ErrorFor(action, purpose, *response, caller);
  StatusOr<Credentials> session = ParseStsCredentials(response->body, action, source);
  if (!session.ok()) {
    // The message may quote the reply (its Expiration).
    const Status& failed = session.status();
    return Status(failed.code(), RedactCredentials(failed.message(), caller)).WithContext(where);
  }
  return session;
}

Status StsClient::ErrorFor(std::string_view action, std::string_view purpose,
                           const HttpResponse& response, const Credentials& caller) const {
  const AwsError error = ParseXmlError(response);
  const AwsErrorContext context{"STS",
                                std::string(action),
                                std::string(purpose),
                                config_.service.endpoint_url,
                                caller.source,
                                caller.RedactedKeyId(),
                                &caller};
  Status base = ErrorToStatus(error, context);
  if (error.code == "AccessDenied" || error.code == "AccessDeniedException") {
    return PermissionDeniedError(base.message() + (action == "AssumeRole"
                                                       ? kAssumeRoleDeniedAdvice
                                                       : kAccessDeniedAdvice));
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
