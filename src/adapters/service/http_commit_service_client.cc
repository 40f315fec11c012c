#include "deltacommit/service_client/http_commit_service_client.h"

#include <algorithm>
#include <random>
#include <utility>

#include "deltacommit/aws/sigv4.h"
#include "deltacommit/service_client/service_reply.h"
#include "deltacommit/service_wire/answers.h"
#include "deltacommit/service_wire/commit_body.h"

namespace deltacommit::service_client {
namespace {

// 500 (the handler failed), 502 and 504 (a proxy lost the service's answer)
// can come after the service ratified the commit. 503 and 429 cannot: the
// API answers them only when nothing was ratified ("retry later").
bool MayHaveBeenApplied(long http_status) {
  return http_status == 500 || http_status == 502 || http_status == 504;
}

ServiceCommitResult Failure(Status status) {
  ServiceCommitResult result;
  result.status = std::move(status);
  return result;
}

// "commit of version 7 of s3://b/t", "append to s3://b/t (read version 6)".
std::string What(const ServiceCommitRequest& request) {
  if (request.append) {
    return "append to " + request.table + " (read version " +
           std::to_string(request.read_version) + ")";
  }
  return "commit of version " + std::to_string(request.version) + " of " + request.table;
}

std::string AfterAttempts(int attempts) {
  return attempts > 1 ? " (after " + std::to_string(attempts) + " attempts)" : "";
}

}  // namespace

HttpCommitServiceClient::HttpCommitServiceClient(CommitServiceOptions options,
                                                 aws::HttpClient& http,
                                                 aws::CredentialsProvider& credentials,
                                                 Clock& clock, Sleeper& sleeper)
    : options_(std::move(options)),
      http_(http),
      credentials_(credentials),
      clock_(clock),
      sleeper_(sleeper) {}

std::string HttpCommitServiceClient::Describe() const { return "commit service " + options_.url; }

aws::HttpHeaders HttpCommitServiceClient::Headers(bool with_body) const {
  aws::HttpHeaders headers = {{"Authorization", "Bearer " + options_.token},
                              {"Accept", "application/json"}};
  if (with_body) headers.emplace_back("Content-Type", "application/json");
  return headers;
}

std::string HttpCommitServiceClient::RedactSecrets(std::string text,
                                                   const aws::Credentials* credentials) const {
  std::vector<std::string_view> secrets = {options_.token};
  if (credentials != nullptr) {
    secrets.push_back(credentials->secret_access_key);
    secrets.push_back(credentials->session_token);
  }
  return Redact(std::move(text), secrets);
}

ServiceCommitResult HttpCommitServiceClient::Commit(const ServiceCommitRequest& request) {
  if (request.table.starts_with("file://")) return Send(request, nullptr);
  StatusOr<aws::Credentials> credentials = credentials_.GetCredentials();
  if (!credentials.ok()) {
    return Failure(credentials.status().WithContext(
        Describe() + ": " + What(request) + ": nothing was sent; the writer's AWS credentials"));
  }
  return CommitWithCredentials(request, *credentials);
}

ServiceCommitResult HttpCommitServiceClient::CommitWithCredentials(
    const ServiceCommitRequest& request, const aws::Credentials& credentials) {
  if (Status valid = service_wire::ValidateCommitRequest(request); !valid.ok()) {
    return Failure(valid.WithContext(Describe()));
  }
  const std::string context = Describe() + ": " + What(request);
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return Failure(UnauthenticatedError(context + ": the AWS credentials from " +
                                        credentials.source +
                                        " have no access key id or secret; nothing was sent"));
  }
  return Send(request, &credentials);
}

ServiceCommitResult HttpCommitServiceClient::Send(const ServiceCommitRequest& request,
                                                  const aws::Credentials* credentials) {
  if (Status valid = service_wire::ValidateCommitRequest(request); !valid.ok()) {
    return Failure(valid.WithContext(Describe()));
  }
  const std::string context = Describe() + ": " + What(request);
  aws::HttpRequest http_request;
  http_request.method = "POST";
  http_request.url = options_.url + "/v1/commits";
  http_request.headers = Headers(/*with_body=*/true);
  http_request.body = service_wire::SerializeCommitBody(
      service_wire::ToCommitBody(request, credentials, options_.endpoint));
  Exchange exchange = SendWithRetries(http_request, credentials, context);
  return Finish(std::move(exchange), request, context, credentials);
}

HttpCommitServiceClient::Exchange HttpCommitServiceClient::SendWithRetries(
    const aws::HttpRequest& request, const aws::Credentials* credentials,
    const std::string& context) {
  std::mt19937_64 random(std::random_device{}());
  const int max_attempts = std::max(1, options_.retry.max_attempts);
  Exchange exchange;
  for (exchange.attempts = 1;; ++exchange.attempts) {
    if (credentials != nullptr) {
      // They can expire while we back off: never send expired credentials.
      Status fresh = aws::CheckNotExpired(*credentials, clock_.NowMillis());
      if (!fresh.ok()) {
        exchange.last = fresh.WithContext(context);
        return exchange;
      }
    }
    exchange.last = http_.Send(request);
    bool again = false;
    if (!exchange.last.ok()) {
      const StatusCode code = exchange.last.status().code();
      if (code == StatusCode::kUnknownOutcome) exchange.maybe_applied = true;
      again = code == StatusCode::kUnavailable || code == StatusCode::kUnknownOutcome;
    } else {
      if (MayHaveBeenApplied(exchange.last->status)) exchange.maybe_applied = true;
      again = IsRetryableHttpStatus(exchange.last->status) &&
              IsRetryableAnswer(ParseServiceError(*exchange.last));
    }
    if (!again || exchange.attempts >= max_attempts) return exchange;
    std::uniform_int_distribution<int64_t> jitter(
        0, aws::BackoffBound(options_.retry, exchange.attempts).count());
    sleeper_.Sleep(std::chrono::milliseconds(jitter(random)));
  }
}

ServiceCommitResult HttpCommitServiceClient::Finish(Exchange exchange,
                                                    const ServiceCommitRequest& request,
                                                    const std::string& context,
                                                    const aws::Credentials* credentials) {
  auto clean = [&](const Status& st) {
    return Status(st.code(), RedactSecrets(st.message(), credentials));
  };
  const std::string where = context + AfterAttempts(exchange.attempts);
  // A refusal after an attempt that may have been applied does not say the
  // commit failed: only a 409 does (a retry of an applied commit gets 200).
  auto settle = [&](const Status& st) {
    // log_inconsistent (kDataLoss) stops the table whatever happened to
    // this commit: an operator must look first.
    if (!exchange.maybe_applied || st.IsUnknownOutcome() || st.code() == StatusCode::kDataLoss) {
      return clean(st);
    }
    return clean(UnknownOutcomeError(
        where + ": an earlier attempt may have been applied (its reply was lost); read the log "
                "back or resend the same commit. Last answer: " + st.message()));
  };
  if (!exchange.last.ok()) return Failure(settle(exchange.last.status().WithContext(where)));
  const aws::HttpResponse& response = *exchange.last;
  if (response.status == 200) {
    StatusOr<service_wire::CommitAnswer> answer = service_wire::ParseCommitAnswer(response.body);
    if (!answer.ok()) {
      return Failure(clean(UnknownOutcomeError(where + ": HTTP 200, but " +
                                               answer.status().message() +
                                               "; is --service-url a deltacommit commit service?")));
    }
    const bool expected = request.append ? answer->version >= 0 || answer->duplicate
                                          : answer->version == request.version;
    if (!expected) {
      return Failure(clean(InternalError(where + ": the service answered version " +
                                         std::to_string(answer->version))));
    }
    ServiceCommitResult ok;
    ok.version = answer->version;
    ok.published = answer->published;
    ok.merged = answer->merged;
    ok.duplicate = answer->duplicate;
    ok.in_commit_timestamp = answer->in_commit_timestamp;
    return ok;
  }
  ServiceError error = ParseServiceError(response);
  Status status = ServiceErrorToStatus(error, where);
  if (response.status == 409) {
    ServiceCommitResult refused = Failure(clean(status));
    refused.latest_version = error.latest_version;
    refused.error_code = error.code;
    return refused;
  }
  return Failure(settle(status));
}

StatusOr<PendingCommits> HttpCommitServiceClient::GetPendingCommits(std::string_view table,
                                                                    Version start) {
  const std::string context = Describe() + ": pending commits of " + std::string(table) +
                              " from version " + std::to_string(start);
  if (table.empty() || start < 0) {
    return InvalidArgumentError(context + ": needs a table and a version >= 0");
  }
  aws::HttpRequest request;
  request.method = "GET";
  request.url = options_.url + "/v1/tables/" + aws::UriEncode(table, /*encode_slash=*/true) +
                "/commits?start=" + std::to_string(start);
  request.headers = Headers(/*with_body=*/false);
  Exchange exchange = SendWithRetries(request, nullptr, context);
  const std::string where = context + AfterAttempts(exchange.attempts);
  if (!exchange.last.ok()) {
    const Status& st = exchange.last.status();
    // A lost reply to a read changed nothing: it is simply unavailable.
    StatusCode code = st.IsUnknownOutcome() ? StatusCode::kUnavailable : st.code();
    return Status(code, RedactSecrets(where + ": " + st.message(), nullptr));
  }
  if (exchange.last->status != 200) {
    Status st = ServiceErrorToStatus(ParseServiceError(*exchange.last), where);
    return Status(st.code(), RedactSecrets(st.message(), nullptr));
  }
  StatusOr<service_wire::PendingCommitsAnswer> answer =
      service_wire::ParsePendingCommits(exchange.last->body, start);
  if (!answer.ok()) {
    // The message quotes the body, which a proxy may have filled with the
    // request (and so the token).
    return Status(answer.status().code(),
                  RedactSecrets(where + ": " + answer.status().message(), nullptr));
  }
  return std::move(answer->pending);
}

}  // namespace deltacommit::service_client
