#include "deltacommit/aws/errors.h"

#include <pugixml.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>
#include <vector>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/aws/sigv4.h"

namespace deltacommit::aws {
namespace {

struct Replacement {
  std::string value;  // as it may appear in the server's text
  std::string with;
};

// Each credential value as a store may quote it: as sent or known, and
// percent-encoded (quoting a URL or a query string). Longest first, so that
// a value containing another (a token that contains the key id) goes whole.
std::vector<Replacement> CredentialReplacements(const Credentials& c) {
  std::vector<Replacement> out;
  auto add = [&out](const std::string& value, const std::string& with) {
    if (value.empty()) return;  // an empty value would match everywhere
    for (std::string form : {value, UriEncode(value, true), UriEncode(value, false)}) {
      out.push_back({std::move(form), with});
    }
  };
  add(c.session_token, "[redacted session token]");
  add(c.secret_access_key, "[redacted secret access key]");
  add(c.access_key_id, c.RedactedKeyId());
  std::stable_sort(out.begin(), out.end(), [](const Replacement& a, const Replacement& b) {
    return a.value.size() > b.value.size();
  });
  return out;
}

// The member `name` of a JSON error body when it is a string, else "". The
// body is whatever the server (or a proxy before it) sent: json::value()
// would throw on a member of another type.
std::string StringMember(const nlohmann::json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string CodeForStatus(long status) {
  switch (status) {
    case 301: return "PermanentRedirect";
    case 304: return "NotModified";
    case 400: return "BadRequest";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 409: return "Conflict";
    case 412: return "PreconditionFailed";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 501: return "NotImplemented";
    case 503: return "ServiceUnavailable";
    default: return "HTTP" + std::to_string(status);
  }
}

struct Rule {
  std::string_view code;
  StatusCode status;
  // What went wrong and what to do; the context is added around it.
  std::string_view explanation;
};

// Codes we explain. Order does not matter; codes are unique.
constexpr Rule kRules[] = {
    {"NoSuchKey", StatusCode::kNotFound, "the object does not exist"},
    {"NotFound", StatusCode::kNotFound, "the object does not exist"},
    {"NoSuchBucket", StatusCode::kNotFound,
     "the bucket does not exist at this endpoint: check the bucket name, region and endpoint"},
    {"ResourceNotFoundException", StatusCode::kNotFound, "the table does not exist"},
    {"PreconditionFailed", StatusCode::kAlreadyExists,
     "the object already exists (conditional write refused)"},
    {"NotModified", StatusCode::kAlreadyExists,
     "the object already exists (conditional write refused)"},
    {"ConditionalCheckFailedException", StatusCode::kAlreadyExists,
     "the item already exists (condition failed)"},
    {"InvalidAccessKeyId", StatusCode::kUnauthenticated,
     "the access key id is not known to this endpoint: check the key, and that it belongs "
     "to this endpoint and account"},
    {"UnrecognizedClientException", StatusCode::kUnauthenticated,
     "the access key id or session token is not known to this endpoint: check the credentials"},
    {"InvalidClientTokenId", StatusCode::kUnauthenticated,
     "the access key id or security token is not known to this endpoint: check the key, and "
     "that it belongs to this endpoint and account"},
    {"SignatureDoesNotMatch", StatusCode::kUnauthenticated,
     "the signature was rejected: the secret access key does not match the key id, or the "
     "region or clock used for signing is wrong"},
    {"InvalidSignatureException", StatusCode::kUnauthenticated,
     "the signature was rejected: the secret access key does not match the key id, or the "
     "region or clock used for signing is wrong"},
    {"ExpiredToken", StatusCode::kUnauthenticated,
     "the session token has expired: obtain new temporary credentials"},
    {"ExpiredTokenException", StatusCode::kUnauthenticated,
     "the session token has expired: obtain new temporary credentials"},
    {"InvalidToken", StatusCode::kUnauthenticated,
     "the security token included in the request is invalid (malformed, or issued for "
     "another account or region): obtain new temporary credentials from the same source "
     "as the key id"},
    {"RequestTimeTooSkewed", StatusCode::kUnauthenticated,
     "the local clock differs from the server's by more than 15 minutes: fix the clock (NTP)"},
    {"AccessDenied", StatusCode::kPermissionDenied,
     "access denied: grant these credentials the permission for this action on this resource"},
    {"AccessDeniedException", StatusCode::kPermissionDenied,
     "access denied: grant these credentials the permission for this action on this resource"},
    {"Forbidden", StatusCode::kPermissionDenied,
     "forbidden (no error body): the credentials may lack permission, or be invalid"},
    {"ConditionalRequestConflict", StatusCode::kUnavailable,
     "a concurrent conditional write to the same key is in progress: retry"},
    {"SlowDown", StatusCode::kUnavailable, "the store asks to slow down (throttled)"},
    {"ThrottlingException", StatusCode::kUnavailable, "throttled"},
    {"Throttling", StatusCode::kUnavailable, "throttled"},
    {"TooManyRequests", StatusCode::kUnavailable, "throttled"},
    {"ProvisionedThroughputExceededException", StatusCode::kUnavailable,
     "provisioned throughput exceeded (throttled)"},
    {"RequestLimitExceeded", StatusCode::kUnavailable, "request limit exceeded (throttled)"},
    {"InternalError", StatusCode::kUnavailable, "internal error in the store"},
    {"InternalServerError", StatusCode::kUnavailable, "internal error in the store"},
    {"ServiceUnavailable", StatusCode::kUnavailable, "the store is unavailable"},
    {"NotImplemented", StatusCode::kUnimplemented,
     "the store does not implement this request (or one of its headers)"},
    {"EntityTooLarge", StatusCode::kInvalidArgument, "the object is too large for one request"},
    {"ValidationException", StatusCode::kInvalidArgument, "the request was invalid"},
};

const Rule* FindRule(std::string_view code) {
  for (const Rule& r : kRules) {
    if (r.code == code) return &r;
  }
  return nullptr;
}

// Codes with which a store refuses credentials it does not recognise. With
// a session token in the request, the usual cause is the token, not the
// key: expired, tampered with, or issued by another endpoint's STS (AWS
// answers "The security token included in the request is invalid"; Ceph
// RGW answers InvalidAccessKeyId for a foreign token).
bool RefusesUnknownCredentials(std::string_view code) {
  for (std::string_view c : {"InvalidAccessKeyId", "InvalidToken", "ExpiredToken",
                             "ExpiredTokenException", "SignatureDoesNotMatch",
                             "InvalidSignatureException", "InvalidClientTokenId",
                             "UnrecognizedClientException"}) {
    if (code == c) return true;
  }
  return false;
}

// What to check when `c`, temporary credentials, were refused at `endpoint`.
std::string TemporaryCredentialsAdvice(const Credentials& c, const std::string& endpoint) {
  std::string m = "; the request carried temporary credentials (a session token) from " +
                  (c.source.empty() ? std::string("an unnamed source") : c.source);
  if (c.expiration_ms.has_value()) {
    m += ", valid until " + internal::FormatUtc(*c.expiration_ms);
  }
  m += ": the token may be invalid, expired or revoked, or issued by another endpoint's STS "
       "(a token from AWS STS is not valid at a Ceph RGW or MinIO endpoint, nor the reverse); "
       "obtain new temporary credentials from the STS that serves " +
       endpoint;
  return m;
}

StatusCode FallbackCode(long status) {
  if (status >= 500) return StatusCode::kUnavailable;
  if (status == 401) return StatusCode::kUnauthenticated;
  if (status == 403) return StatusCode::kPermissionDenied;
  if (status == 404) return StatusCode::kNotFound;
  return StatusCode::kInvalidArgument;
}

}  // namespace

AwsError ParseXmlError(const HttpResponse& response) {
  AwsError e;
  e.http_status = response.status;
  pugi::xml_document doc;
  if (!response.body.empty() && doc.load_buffer(response.body.data(), response.body.size())) {
    // S3: <Error>…</Error>. The Query protocol (STS, IAM) wraps it:
    // <ErrorResponse><Error>…</Error><RequestId>…</RequestId></ErrorResponse>.
    pugi::xml_node wrapper = doc.child("ErrorResponse");
    pugi::xml_node error = wrapper ? wrapper.child("Error") : doc.child("Error");
    e.code = error.child_value("Code");
    e.message = error.child_value("Message");
    e.request_id = error.child_value("RequestId");
    if (e.request_id.empty() && wrapper) e.request_id = wrapper.child_value("RequestId");
  }
  if (e.code.empty()) e.code = CodeForStatus(response.status);
  if (e.request_id.empty()) e.request_id = response.Header("x-amz-request-id");
  return e;
}

AwsError ParseJsonError(const HttpResponse& response) {
  AwsError e;
  e.http_status = response.status;
  auto json = nlohmann::json::parse(response.body, nullptr, false);
  if (!json.is_discarded() && json.is_object()) {
    const std::string type = StringMember(json, "__type");
    // "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException"
    e.code = type.substr(type.find('#') == std::string::npos ? 0 : type.find('#') + 1);
    e.message = json.contains("message") ? StringMember(json, "message")
                                         : StringMember(json, "Message");
  }
  if (e.code.empty()) e.code = CodeForStatus(response.status);
  e.request_id = response.Header("x-amzn-requestid");
  return e;
}

std::string RedactCredentials(std::string_view server_text, const Credentials& credentials) {
  const std::vector<Replacement> replacements = CredentialReplacements(credentials);
  // One pass, never rescanning what was put in: a replacement cannot form
  // a value together with the text around it.
  std::string out;
  size_t i = 0;
  while (i < server_text.size()) {
    const std::string_view rest = server_text.substr(i);
    auto hit = std::find_if(replacements.begin(), replacements.end(),
                            [&rest](const Replacement& r) { return rest.starts_with(r.value); });
    if (hit == replacements.end()) {
      out.push_back(server_text[i++]);
    } else {
      out += hit->with;
      i += hit->value.size();
    }
  }
  return out;
}

bool IsRetryableError(const AwsError& error) {
  const Rule* rule = FindRule(error.code);
  if (rule != nullptr) return rule->status == StatusCode::kUnavailable;
  return error.http_status >= 500 || error.http_status == 429;
}

Status ErrorToStatus(const AwsError& error, const AwsErrorContext& c) {
  const Rule* rule = FindRule(error.code);
  const StatusCode code = rule ? rule->status : FallbackCode(error.http_status);
  auto quote = [&c](const std::string& server_text) {
    return c.credentials == nullptr ? server_text : RedactCredentials(server_text, *c.credentials);
  };
  std::string m = c.service + " " + c.action + " " + c.resource + " at " + c.endpoint + ": " +
                  quote(error.code) + " (HTTP " + std::to_string(error.http_status) + ")";
  if (rule != nullptr) m += ": " + std::string(rule->explanation);
  if (!error.message.empty()) m += "; server says: " + quote(error.message);
  const bool about_credentials =
      code == StatusCode::kUnauthenticated || code == StatusCode::kPermissionDenied;
  if (about_credentials && !c.credential_source.empty()) {
    m += "; credentials: key " + c.key_id + " from " + c.credential_source;
  }
  if (c.credentials != nullptr && !c.credentials->session_token.empty() &&
      RefusesUnknownCredentials(error.code)) {
    m += TemporaryCredentialsAdvice(*c.credentials, c.endpoint);
  }
  if (!error.request_id.empty()) m += "; request id " + quote(error.request_id);
  return Status(code, std::move(m));
}

}  // namespace deltacommit::aws
