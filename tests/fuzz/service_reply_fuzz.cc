// Fuzz target: the commit service's answers as its HTTP client reads them
// (src/adapters/service/, on the wire format of src/service_wire/): error
// bodies (service_client::ParseServiceError, ServiceErrorToStatus), a
// commit's 200 answer (service_wire::ParseCommitAnswer), the pending-commits
// listing (service_wire::ParsePendingCommits), and all of it through
// HttpCommitServiceClient over an HTTP client that answers the input: a
// commit, an append, a coordinated commit and GetPendingCommits.
//
// Input: a first line "<HTTP status> <X-Request-Id>" (no digits: 200), the
// body after it.
//
// Invariants: no message of the client holds the bearer token, nor, after a
// commit, the AWS secret key or session token it sent (planted below; the
// client promises so);
// an error answer maps to the documented code (service_reply.h) and its
// message has no control character; a commit's 500/502/504 after the retry
// budget is kUnknownOutcome unless log_inconsistent (kDataLoss); a 200 commit
// answer is success only with the request's version; sends stay within the
// retry budget; an accepted listing is ascending, within start..latest, each
// commit's staged file its own version's.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/log_path.h"
#include "deltacommit/service_client/http_commit_service_client.h"
#include "deltacommit/service_client/service_reply.h"
#include "deltacommit/service_wire/answers.h"
#include "deltacommit/service_wire/commit_body.h"
#include "deltacommit/testing/fake_clock.h"
#include "fuzz_check.h"

namespace {

using namespace deltacommit;
using namespace deltacommit::service_client;

// The secrets the client holds; the seeds quote them where a proxy or a
// broken service could (an echoed request, a debugging page).
constexpr std::string_view kToken = "dct_fuzz_bearer_token_5f3a9c1e7b2d4e60";
constexpr std::string_view kSecretKey =
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr std::string_view kSessionToken =
    "FwoGZXIvYXdzEFuzzSessionTokenQ29tbWl0U2VydmljZQ";
constexpr int64_t kNowMs = 1'700'000'000'000;
constexpr int kMaxAttempts = 3;
constexpr Version kStart = 3;
constexpr char kTable[] = "s3://bucket/table";

// Answers every request with the input's response.
class AnsweringHttp : public aws::HttpClient {
 public:
  explicit AnsweringHttp(aws::HttpResponse response)
      : response_(std::move(response)) {}
  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest&) override {
    ++sends_;
    return response_;
  }
  int TakeSends() { return std::exchange(sends_, 0); }

 private:
  aws::HttpResponse response_;
  int sends_ = 0;
};

aws::HttpResponse ResponseOf(std::string_view input) {
  aws::HttpResponse response;
  const size_t newline = input.find('\n');
  std::string_view line = input.substr(0, newline);
  response.body.assign(newline == std::string_view::npos
                           ? std::string_view()
                           : input.substr(newline + 1));
  long status = 0;
  size_t digits = 0;
  while (digits < line.size() && digits < 4 && line[digits] >= '0' &&
         line[digits] <= '9') {
    status = status * 10 + (line[digits] - '0');
    ++digits;
  }
  response.status = digits == 0 ? 200 : status;
  line.remove_prefix(digits);
  if (line.starts_with(' '))
    response.headers.emplace_back("x-request-id", line.substr(1));
  return response;
}

// A commit sends all three secrets; a GET only the bearer token (the AWS
// credentials are not asked for), so only the token is the client's to hide.
void CheckNoSecret(const std::string& message, bool sent_credentials) {
  FUZZ_CHECK(message.find(kToken) == std::string::npos);
  if (!sent_credentials) return;
  FUZZ_CHECK(message.find(kSecretKey) == std::string::npos);
  FUZZ_CHECK(message.find(kSessionToken) == std::string::npos);
}

bool HasControlCharacter(std::string_view text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

// service_reply.h's table of codes.
StatusCode DocumentedCode(const ServiceError& e) {
  switch (e.http_status) {
    case 400:
    case 413:
      return StatusCode::kInvalidArgument;
    case 401:
    case 422:
      return StatusCode::kUnauthenticated;
    case 403:
      return StatusCode::kPermissionDenied;
    case 404:
    case 405:
      return StatusCode::kFailedPrecondition;
    case 409:
      return e.code == "version_taken" ? StatusCode::kAlreadyExists
                                       : StatusCode::kFailedPrecondition;
    case 424:
      return e.reason == "access_denied" ? StatusCode::kPermissionDenied
                                         : StatusCode::kUnauthenticated;
    case 500:
      return e.code == "log_inconsistent" ? StatusCode::kDataLoss
                                          : StatusCode::kUnavailable;
    case 429:
    case 502:
    case 503:
    case 504:
      return StatusCode::kUnavailable;
    default:
      return StatusCode::kInternal;
  }
}

void CheckServiceError(const aws::HttpResponse& response) {
  const ServiceError error = ParseServiceError(response);
  FUZZ_CHECK(error.http_status == response.status);
  FUZZ_CHECK(!error.code.empty() || !error.message.empty());
  FUZZ_CHECK(!HasControlCharacter(error.code) &&
             !HasControlCharacter(error.message) &&
             !HasControlCharacter(error.reason) &&
             !HasControlCharacter(error.request_id));
  const Status status =
      ServiceErrorToStatus(error, "commit service http://127.0.0.1:8642");
  FUZZ_CHECK(status.code() == DocumentedCode(error));
  FUZZ_CHECK(!HasControlCharacter(status.message()));
  FUZZ_CHECK(IsRetryableAnswer(error) ==
             (IsRetryableHttpStatus(error.http_status) &&
              error.code != "log_inconsistent"));
}

void CheckCommitAnswer(std::string_view body) {
  StatusOr<service_wire::CommitAnswer> answer = service_wire::ParseCommitAnswer(body);
  if (!answer.ok()) {
    FUZZ_CHECK(answer.status().code() == StatusCode::kInternal);
    FUZZ_CHECK(answer.status().message().starts_with(
        "the service's answer is malformed ("));
    FUZZ_CHECK(!HasControlCharacter(answer.status().message()));
  }
}

void CheckPendingCommits(std::string_view body, Version start) {
  StatusOr<service_wire::PendingCommitsAnswer> answer =
      service_wire::ParsePendingCommits(body, start);
  if (!answer.ok()) {
    FUZZ_CHECK(answer.status().code() == StatusCode::kInternal);
    FUZZ_CHECK(!HasControlCharacter(answer.status().message()));
    return;
  }
  const PendingCommits& pending = answer->pending;
  FUZZ_CHECK(pending.latest_version >= -1);
  const PendingCommit* previous = nullptr;
  for (const PendingCommit& commit : pending.commits) {
    FUZZ_CHECK(previous == nullptr ? commit.version >= start
                                   : commit.version > previous->version);
    FUZZ_CHECK(commit.version <= pending.latest_version);
    previous = &commit;
    const std::string_view key = commit.staged_file;
    FUZZ_CHECK(key.starts_with(kLogDir));
    const ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
    FUZZ_CHECK(parsed.type == LogFileType::kStagedCommit &&
               parsed.version == commit.version);
  }
}

bool MayHaveBeenApplied(long http_status) {
  return http_status == 500 || http_status == 502 || http_status == 504;
}

void CheckCommit(HttpCommitServiceClient& client, AnsweringHttp& http,
                 const aws::HttpResponse& response,
                 const ServiceCommitRequest& request,
                 const aws::Credentials& credentials) {
  const ServiceCommitResult result =
      client.CommitWithCredentials(request, credentials);
  const int sends = http.TakeSends();
  CheckNoSecret(result.status.message(), /*sent_credentials=*/true);
  FUZZ_CHECK(sends >= 1 && sends <= kMaxAttempts);
  if (response.status == 200) {
    FUZZ_CHECK(sends == 1);
    StatusOr<service_wire::CommitAnswer> answer =
        service_wire::ParseCommitAnswer(response.body);
    if (!result.status.ok()) return;
    FUZZ_CHECK(answer.ok());
    FUZZ_CHECK(result.version == answer->version);
    FUZZ_CHECK(request.append ? answer->version >= 0 || answer->duplicate
                              : answer->version == request.version);
    FUZZ_CHECK(result.published == answer->published &&
               result.merged == answer->merged &&
               result.duplicate == answer->duplicate);
    return;
  }
  FUZZ_CHECK(!result.status.ok());
  const ServiceError error = ParseServiceError(response);
  if (response.status == 409) {
    FUZZ_CHECK(result.error_code == error.code);
    FUZZ_CHECK(result.latest_version == error.latest_version);
  }
  if (!IsRetryableAnswer(error)) FUZZ_CHECK(sends == 1);
  if (response.status == 500 && error.code == "log_inconsistent") {
    FUZZ_CHECK(result.status.code() == StatusCode::kDataLoss);
  } else if (MayHaveBeenApplied(response.status)) {
    FUZZ_CHECK(result.status.code() == StatusCode::kUnknownOutcome);
  } else {
    FUZZ_CHECK(result.status.code() == DocumentedCode(error));
  }
}

void CheckGetPending(HttpCommitServiceClient& client, AnsweringHttp& http,
                     const aws::HttpResponse& response) {
  StatusOr<PendingCommits> pending = client.GetPendingCommits(kTable, kStart);
  const int sends = http.TakeSends();
  FUZZ_CHECK(sends >= 1 && sends <= kMaxAttempts);
  if (!pending.ok())
    CheckNoSecret(pending.status().message(), /*sent_credentials=*/false);
  if (response.status != 200) {
    FUZZ_CHECK(!pending.ok());
    FUZZ_CHECK(pending.status().code() ==
               DocumentedCode(ParseServiceError(response)));
    return;
  }
  StatusOr<service_wire::PendingCommitsAnswer> direct =
      service_wire::ParsePendingCommits(response.body, kStart);
  FUZZ_CHECK(pending.ok() == direct.ok());
  if (pending.ok()) {
    FUZZ_CHECK(pending->latest_version == direct->pending.latest_version);
    FUZZ_CHECK(pending->commits == direct->pending.commits);
  }
}

void CheckClient(const aws::HttpResponse& response) {
  FakeClock clock(kNowMs);  // never advanced: every input sees one time
  RecordingSleeper sleeper;  // returns at once
  AnsweringHttp http(response);
  aws::Credentials credentials{"ASIAIOSFODNN7EXAMPLE", std::string(kSecretKey),
                               std::string(kSessionToken), kNowMs + 3'600'000,
                               "fuzz"};
  std::unique_ptr<aws::CredentialsProvider> provider =
      aws::StaticCredentialsProvider(credentials, clock);
  CommitServiceOptions options;
  options.url = "http://127.0.0.1:8642";
  options.token = std::string(kToken);
  options.retry = {kMaxAttempts, std::chrono::milliseconds(1),
                   std::chrono::milliseconds(2)};
  HttpCommitServiceClient client(options, http, *provider, clock, sleeper);

  ServiceCommitRequest commit;
  commit.table = kTable;
  commit.version = 7;
  commit.actions =
      R"({"commitInfo":{"timestamp":1700000000000,"operation":"WRITE"}})"
      "\n";
  CheckCommit(client, http, response, commit, credentials);

  ServiceCommitRequest append;
  append.table = kTable;
  append.append = true;
  append.read_version = 6;
  append.actions =
      R"({"txn":{"appId":"fuzz-app","version":3,"lastUpdated":1700000000000}})"
      "\n";
  FUZZ_CHECK(service_wire::ValidateCommitRequest(append).ok());
  CheckCommit(client, http, response, append, credentials);

  ServiceCommitRequest coordinated;
  coordinated.table = kTable;
  coordinated.version = 7;
  coordinated.staged_file =
      StagedCommitPath(7, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
  CheckCommit(client, http, response, coordinated, credentials);

  CheckGetPending(client, http, response);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const aws::HttpResponse response = ResponseOf(input);
  CheckServiceError(response);
  CheckCommitAnswer(response.body);
  for (Version start : {Version{0}, kStart})
    CheckPendingCommits(response.body, start);
  CheckClient(response);
  return 0;
}
