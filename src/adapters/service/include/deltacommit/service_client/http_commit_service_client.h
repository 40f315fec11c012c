// HttpCommitServiceClient: the CommitServiceClient port over HTTP (the
// project's libcurl client: connection reuse, timeouts, transport failures
// classified as "not sent" or "unknown outcome").
//
// Each commit carries the bearer token and the writer's own temporary AWS
// credentials, taken from `credentials` at the time of the call: access key,
// secret, session token and expiry (the service refuses credentials without
// an expiry; the CLI passes an aws::SessionCredentialsProvider, which never
// gives long-term keys). Credentials that have expired are refused before
// anything is sent. A local table (file:///path, which the service writes
// as its own user) gets none: the provider is not asked. The token and the secrets never appear in a message.
//
// Retries (bounded by options.retry, with jittered backoff):
//   POST /v1/commits: after "not sent", after a lost reply, and after 429 and
//     5xx. Resending is safe even when an earlier attempt was applied: the
//     service answers 200 to the same version with the same content (same
//     SHA-256 of the actions; the same staged name in coordinated mode) and
//     409 version_taken only to a different commit. When the budget runs out
//     after an attempt that may have been applied (lost reply, 500/502/504;
//     the API answers 503 and 429 only when nothing was ratified), the answer
//     is kUnknownOutcome, never a plain failure, unless the last answer was
//     a 409 (which a resent applied commit never gets).
//   GET .../commits: any transport failure, 429 and 5xx (it changes nothing).
//
// Thread-safety: safe for concurrent use (`http`, `credentials`, `clock` and
// `sleeper` are, by their ports).
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/clock.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/service_client/service_client_options.h"

namespace deltacommit::service_client {

class HttpCommitServiceClient : public CommitServiceClient {
 public:
  // `http`, `credentials`, `clock` and `sleeper` must outlive this object.
  HttpCommitServiceClient(CommitServiceOptions options, aws::HttpClient& http,
                          aws::CredentialsProvider& credentials, Clock& clock = SystemClock(),
                          Sleeper& sleeper = RealSleeper());

  // "commit service <url>".
  std::string Describe() const override;
  std::string Url() const override { return options_.url; }

  // With credentials from the provider given at construction.
  ServiceCommitResult Commit(const ServiceCommitRequest& request) override;
  // With these credentials.
  ServiceCommitResult CommitWithCredentials(const ServiceCommitRequest& request,
                                            const aws::Credentials& credentials);

  StatusOr<PendingCommits> GetPendingCommits(std::string_view table, Version start) override;

 private:
  // What one call's sends came to.
  struct Exchange {
    StatusOr<aws::HttpResponse> last = InternalError("not sent");
    int attempts = 0;
    bool maybe_applied = false;  // an attempt may have been applied
  };

  // Sends `request` until an answer that is not retried or the budget runs
  // out; `credentials` (POST only) are checked for expiry before each send.
  Exchange SendWithRetries(const aws::HttpRequest& request, const aws::Credentials* credentials,
                           const std::string& context);
  // POST /v1/commits with `credentials` (null: none, for a local table).
  ServiceCommitResult Send(const ServiceCommitRequest& request,
                           const aws::Credentials* credentials);
  ServiceCommitResult Finish(Exchange exchange, const ServiceCommitRequest& request,
                             const std::string& context, const aws::Credentials* credentials);
  std::string RedactSecrets(std::string text, const aws::Credentials* credentials) const;
  aws::HttpHeaders Headers(bool with_body) const;

  const CommitServiceOptions options_;
  aws::HttpClient& http_;
  aws::CredentialsProvider& credentials_;
  Clock& clock_;
  Sleeper& sleeper_;
};

}  // namespace deltacommit::service_client
