// The commit service side of `doctor` for --log-store service and
// coordinated: what a writer needs from and for the service.
//   sts:GetSessionToken  the writer sends the service temporary credentials
//                        only: its chain's when they are temporary, else a
//                        session from STS for its long-term keys
//   session on S3        that session lists _delta_log/ (the service's S3
//                        calls for this writer use it)
//   service endpoint     GET /healthz answers
//   service ready        GET /readyz: the service's state store answers
//   service:commit       the token may commit to the table (and use the
//                        --service-endpoint): proven by a commit request with
//                        placeholder credentials, which the service refuses
//                        (422) only after the token, table and endpoint checks
//                        and before its commit logic (docs/api.md, "Checks
//                        run in this order"), so nothing is committed or
//                        written
//   service:read         GET /v1/tables/{table}/commits: coordinated writers
//                        (and readers) ask it on every listing; service mode
//                        never does
//   pending commits      ratified commits not yet published (information),
//                        and a log with versions the service never ratified
// The bearer token never appears in a detail (CheckCommitService cuts it out
// of every one), nor does any credential: keys only redacted.
#include <algorithm>
#include <cctype>

#include "deltacommit/aws/credentials_internal.h"  // FormatUtc
#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"
#include "deltacommit/s3/s3_object_store.h"
#include "deltacommit/service_client/service_client_options.h"
#include "deltacommit/service_client/service_reply.h"
#include "deltacommit/service_wire/answers.h"
#include "deltacommit/service_wire/commit_body.h"
#include "doctor.h"

namespace deltacommit::cli {
namespace {

using service_client::CommitServiceOptions;

// The probe's version: one no table reaches. Were a service ever to get past
// the refusal the probe is built for, it would still answer version_ahead
// before staging anything.
constexpr Version kProbeVersion = 1'000'000'000'000'000'000;

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// What to do about a transport failure, from libcurl's words ("" when none
// fits). Timeouts before refusals: curl says "Failed to connect ... Timeout
// was reached".
std::string TransportHint(const Status& status) {
  const std::string text = Lower(status.message());
  auto has = [&text](const char* word) { return text.find(word) != std::string::npos; };
  if (has("ssl") || has("tls") || has("certificate")) {
    return "; TLS failed: an https:// URL needs a service with [tls] in its config (else use "
           "http://), and this machine must trust its certificate (CA bundle, host name)";
  }
  if (has("resolve")) return "; the host name does not resolve: check --service-url";
  if (has("timed out") || has("timeout")) {
    return "; no answer in time: a firewall dropping the connection, or the wrong host or port";
  }
  if (has("refused") || has("couldn't connect") || has("failed to connect")) {
    return "; nothing accepts connections there: is `deltacommit serve` running, and are the "
           "host and port of --service-url right?";
  }
  if (has("empty reply")) {
    return "; the connection closed without an answer: an HTTPS service spoken to with http://?";
  }
  return "";
}

StatusOr<aws::HttpResponse> Send(aws::HttpClient& http, const CommitServiceOptions& o,
                                 const std::string& method, const std::string& path,
                                 std::string body = {}) {
  aws::HttpRequest request;
  request.method = method;
  request.url = o.url + path;
  request.headers = {{"Accept", "application/json"}};
  if (method == "POST") {
    request.headers.emplace_back("Authorization", "Bearer " + o.token);
    request.headers.emplace_back("Content-Type", "application/json");
  }
  request.body = std::move(body);
  return http.Send(request);
}

// GET /healthz; false when the service does not answer it (the other checks
// are then skipped).
bool CheckReachable(aws::HttpClient& http, const CommitServiceOptions& o, DoctorReport& report) {
  const char* name = "service endpoint";
  StatusOr<aws::HttpResponse> reply = Send(http, o, "GET", "/healthz");
  if (!reply.ok()) {
    report.Add(name, Verdict::kFail,
               o.url + " unreachable (GET /healthz): " + reply.status().ToString() +
                   TransportHint(reply.status()));
    return false;
  }
  if (reply->status != 200) {
    report.Add(name, Verdict::kFail,
               o.url + " answered GET /healthz with HTTP " + std::to_string(reply->status) +
                   " (\"" + Excerpt(reply->body, 120) +
                   "\"): is --service-url the address of a deltacommit commit service (behind "
                   "a proxy: with its path prefix)?");
    return false;
  }
  report.Add(name, Verdict::kOk, o.url + " answers GET /healthz");
  return true;
}

// GET /readyz: 503 {"status": "unavailable", "reason": ...} while the
// service's state store fails, {"status": "stopping"} while it shuts down.
void CheckReady(aws::HttpClient& http, const CommitServiceOptions& o, DoctorReport& report) {
  const char* name = "service ready";
  StatusOr<aws::HttpResponse> reply = Send(http, o, "GET", "/readyz");
  if (!reply.ok()) {
    report.Add(name, Verdict::kFail, "GET /readyz: " + reply.status().ToString());
    return;
  }
  if (reply->status == 200) {
    report.Add(name, Verdict::kOk, "ready: its state store answers (GET /readyz)");
    return;
  }
  // Whatever answered may not be a commit service: read leniently.
  const service_wire::HealthAnswer answer = service_wire::ParseHealthAnswer(reply->body);
  std::string why = answer.status;
  if (!answer.reason.empty()) why += ", " + answer.reason;
  report.Add(name, Verdict::kFail,
             "not ready (GET /readyz: HTTP " + std::to_string(reply->status) + " " +
                 Excerpt(why.empty() ? reply->body : why, 120) +
                 "): it refuses commits until it is; its log says why");
}

// A commit request the service must refuse for its credentials, which it
// checks last before the commit logic: placeholders with an expiration that
// is not a time, never the writer's own credentials.
std::string ProbeCommitBody(const TableAdapters& t, const CommitServiceOptions& o) {
  service_wire::CommitBody probe;
  probe.table = t.service_table;
  probe.version = kProbeVersion;
  if (t.mode == CommitMode::kService) {
    probe.actions = "{\"commitInfo\":{\"operation\":\"DELTACOMMIT DOCTOR PROBE\"}}\n";
  } else {
    probe.staged_file = StagedCommitPath(kProbeVersion, NewUuid());  // never written
  }
  probe.credentials = service_wire::RequestCredentials{
      "DOCTORPROBE", "doctor-probe-placeholder", "", "doctor probe: not a time"};
  probe.endpoint = o.endpoint;
  return service_wire::SerializeCommitBody(probe);
}

// POST /v1/commits with the probe. False when the service does not know the
// token (401): reading would only say so again.
bool CheckCommitAllowed(TableAdapters& t, const CommitServiceOptions& o, DoctorReport& report) {
  const char* name = "service:commit";
  StatusOr<aws::HttpResponse> reply = Send(*t.http, o, "POST", "/v1/commits",
                                           ProbeCommitBody(t, o));
  if (!reply.ok()) {
    report.Add(name, Verdict::kFail,
               "POST /v1/commits: " + reply.status().ToString() + TransportHint(reply.status()));
    return true;
  }
  const service_client::ServiceError error = service_client::ParseServiceError(*reply);
  const std::string endpoint = o.endpoint.empty() ? "" : " through endpoint \"" + o.endpoint + "\"";
  if (t.is_local() && reply->status == 400 &&
      error.message.find("which the service writes as its own user") != std::string::npos) {
    report.Add(name, Verdict::kOk,
               "the token may commit to " + t.service_table +
                   ": a probe commit with placeholder credentials passed the token and [local] "
                   "root checks and was refused for carrying credentials a local table does not "
                   "take (400), as it must be; nothing was committed");
  } else if (reply->status == 422 && error.code == "credentials_invalid") {
    report.Add(name, Verdict::kOk,
               "the token may commit to " + t.service_table + endpoint +
                   ": a probe commit with placeholder credentials passed the token, table and "
                   "endpoint checks and was refused for its credentials (422), as it must be; "
                   "nothing was committed");
  } else if (reply->status / 100 == 2) {
    report.Add(name, Verdict::kFail,
               "the service answered HTTP " + std::to_string(reply->status) + " to a probe "
               "commit of version " + std::to_string(kProbeVersion) + " whose credentials have "
               "no valid expiration: it does not check credentials as docs/api.md says");
  } else {
    report.Add(name, Verdict::kFail,
               service_client::ServiceErrorToStatus(
                   error, "commit service " + o.url + ": commit to " + t.service_table + endpoint)
                   .ToString());
  }
  return reply->status != 401;
}

// GET /v1/tables/{table}/commits (with the client's retries); the answer
// when the token may read the table.
std::optional<PendingCommits> CheckReadAllowed(TableAdapters& t, DoctorReport& report) {
  const char* name = "service:read";
  StatusOr<PendingCommits> pending = t.service->GetPendingCommits(t.service_table, 0);
  if (pending.ok()) {
    report.Add(name, Verdict::kOk,
               "the token may read " + t.service_table + ": " +
                   (pending->latest_version >= 0
                        ? "the service's latest ratified version is " +
                              std::to_string(pending->latest_version)
                        : std::string("the service has no state for it yet (its first commit "
                                      "through the service takes the log as it is)")));
    return std::move(pending).value();
  }
  if (pending.status().code() == StatusCode::kPermissionDenied && t.mode == CommitMode::kService) {
    report.Add(name, Verdict::kOk,
               "not needed in service mode (only coordinated writers and readers ask the "
               "service): " + pending.status().message());
    return std::nullopt;
  }
  std::string why = pending.status().ToString();
  if (pending.status().code() == StatusCode::kPermissionDenied) {
    why += " (coordinated writers and readers ask the service on every listing: the token "
           "needs the \"read\" action on the table)";
  }
  report.Add(name, Verdict::kFail, why);
  return std::nullopt;
}

// The service's ratified commits against the log the S3 checks listed.
// Race-free: the listing came first, and the service ratifies a version
// before anyone publishes it, so every <v>.json listed through the service
// is <= its latest by now.
void CheckPending(const TableAdapters& t, const PendingCommits& p,
                  std::optional<Version> listed_latest, DoctorReport& report) {
  const char* name = "pending commits";
  const Version latest = p.latest_version;
  if (latest >= 0 && listed_latest && *listed_latest > latest) {
    report.Add(name, Verdict::kFail,
               "the log has " + CommitPath(*listed_latest) + " but the service's latest "
               "ratified version is " + std::to_string(latest) + ": versions " +
               std::to_string(latest + 1) + " to " + std::to_string(*listed_latest) +
               " were written around the service (another log store or tool); coordinated "
               "readers do not see them, and commits through the service collide with them "
               "(version_ahead, log_inconsistent) until an operator reconciles the log: every "
               "writer of this table must go through the service");
    return;
  }
  if (p.commits.empty()) {
    report.Add(name, Verdict::kOk,
               "none: every commit the service ratified is published as _delta_log/<v>.json");
    return;
  }
  const PendingCommit& oldest = p.commits.front();
  std::string detail = std::to_string(p.commits.size()) + " ratified, not yet published: " +
                       "versions " + std::to_string(oldest.version) + " to " +
                       std::to_string(p.commits.back().version) + " (the oldest committed " +
                       aws::internal::FormatUtc(oldest.commit_timestamp_ms) + "); ";
  detail += t.mode == CommitMode::kCoordinated
                ? "the service's publisher copies them to <v>.json while it holds valid "
                  "credentials for the table, else the next commit does; until then readers "
                  "that do not ask the service (plain Delta readers) do not see them"
                : "the service publishes them before the table's next commit";
  report.Add(name, Verdict::kOk, detail);
}

// Returns true when the session came from STS (the chain's keys are
// long-term), which CheckSessionOnS3 then tries.
bool CheckSessionCredentials(TableAdapters& t, DoctorReport& report) {
  const char* name = "sts:GetSessionToken";
  StatusOr<aws::Credentials> chain = t.credentials->GetCredentials();
  if (!chain.ok()) {
    SkipChecks({name}, "no AWS credentials (see S3 credentials)", report);
    return false;
  }
  const std::string key = "key " + chain->RedactedKeyId() + " from " + chain->source;
  StatusOr<aws::Credentials> sent = t.service_credentials->GetCredentials();
  if (!chain->session_token.empty()) {
    // Temporary already: passed through, or refused without an expiration.
    report.AddStatus(name, sent.status(),
                     "not needed: the credentials (" + key + ") are temporary and go to the "
                     "service as they are, expiring " +
                         aws::internal::FormatUtc(chain->expiration_ms.value_or(0)));
    return false;
  }
  if (!sent.ok()) {
    // The error names the STS endpoint, the key again and what to do.
    report.Add(name, Verdict::kFail,
               "the long-term " + key + " got no session (the service takes only temporary "
               "credentials): " + sent.status().ToString());
    return false;
  }
  const aws::AwsServiceConfig& sts = t.sts->config().service;
  report.Add(name, Verdict::kOk,
             "the long-term " + key + " got a session (key " + sent->RedactedKeyId() +
                 ", expires " + aws::internal::FormatUtc(sent->expiration_ms.value_or(0)) +
                 ") from STS at " + sts.endpoint_url + " (" + sts.endpoint_source +
                 "); the service gets only sessions, renewed before they expire");
  return true;
}

// The service's S3 calls for this writer use the session: it must work on
// S3 too (an S3-compatible store may issue sessions it does not accept).
void CheckSessionOnS3(TableAdapters& t, DoctorReport& report) {
  auto* s3 = dynamic_cast<S3ObjectStore*>(t.store.get());
  if (s3 == nullptr) return;
  S3ObjectStore with_session(s3->config(), *t.http, *t.service_credentials);
  auto listing = with_session.List(kLogDir);
  if (listing.ok()) {
    report.Add("session on S3", Verdict::kOk,
               "the session lists " + s3->Describe() + "/" + std::string(kLogDir) +
                   ", as the service will with it");
  } else {
    report.Add("session on S3", Verdict::kFail,
               listing.status().ToString() + "; the service's S3 calls with this session "
               "would be refused too (424 credentials_rejected)");
  }
}

void CheckService(TableAdapters& t, const CommitServiceOptions& o,
                  std::optional<Version> listed_latest, DoctorReport& report) {
  if (!CheckReachable(*t.http, o, report)) {
    return SkipChecks({"service ready", "service:commit", "service:read", "pending commits"},
                      "the commit service at " + o.url + " does not answer", report);
  }
  CheckReady(*t.http, o, report);
  if (!CheckCommitAllowed(t, o, report)) {
    return SkipChecks({"service:read", "pending commits"}, "the service refused the token",
                      report);
  }
  std::optional<PendingCommits> pending = CheckReadAllowed(t, report);
  if (!pending) {
    return SkipChecks({"pending commits"}, "service:read failed or was not allowed", report);
  }
  CheckPending(t, *pending, listed_latest, report);
}

}  // namespace

void CheckCommitService(TableAdapters& t, const TableFlags& options,
                        std::optional<Version> listed_latest, DoctorReport& report) {
  if (t.service == nullptr) return;
  // Resolved as OpenTableUri did, which succeeded: the URL, token, endpoint.
  StatusOr<CommitServiceOptions> o = service_client::ResolveCommitServiceOptions(
      options.service_url, options.service_token, options.service_endpoint);
  if (!o.ok()) return report.Add("service endpoint", Verdict::kFail, o.status().ToString());
  if (t.is_local()) {
    report.Add("credentials", Verdict::kOk,
               "none needed: " + t.service_table + " is a local table, which the service writes "
               "as its own user (under one of its [local] roots)");
  } else if (CheckSessionCredentials(t, report)) {
    CheckSessionOnS3(t, report);
  }
  DoctorReport service;
  CheckService(t, *o, listed_latest, service);
  for (const DoctorCheck& c : service.checks()) {
    report.Add(c.name, c.verdict, service_client::Redact(c.detail, {o->token}));
  }
}

}  // namespace deltacommit::cli
