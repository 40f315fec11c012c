#include "service/testing/scripted_commit_service.h"

#include <charconv>
#include <thread>
#include <utility>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"
#include "deltacommit/service_wire/answers.h"
#include "deltacommit/service_wire/commit_body.h"

namespace deltacommit::testing {
namespace {

http::Response OkAnswer(Version version, bool published) {
  service_wire::CommitAnswer answer;
  answer.version = version;
  answer.published = published;
  return http::Response::Json(200, service_wire::SerializeCommitAnswer(answer));
}

bool Authorized(const http::Request& request) {
  auto header = request.Header("Authorization");
  return header && *header == "Bearer " + std::string(ScriptedCommitService::kToken);
}

std::optional<Version> ParseVersion(std::string_view text) {
  Version v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

http::Response ApiError(int status, std::string_view code, std::string_view message,
                        std::optional<Version> latest_version, std::string_view reason) {
  return http::Response::Json(
      status, service_wire::SerializeErrorBody({std::string(code), std::string(message),
                                                latest_version, std::string(reason)}));
}

ScriptedCommitService::ScriptedCommitService(std::string table, ObjectStore* store)
    : table_(std::move(table)), store_(store) {}

ScriptedCommitService::~ScriptedCommitService() { Stop(); }

Status ScriptedCommitService::Start() {
  http::HttpServerOptions options;
  options.address = "127.0.0.1";
  options.port = port_;  // 0 the first time; the same port after Stop()
  options.drain_timeout = std::chrono::milliseconds(0);
  options.worker_threads = 4;
  auto server = std::make_unique<http::HttpServer>(options, MakeRouter(), nullptr, nullptr);
  DC_RETURN_IF_ERROR(server->Start());
  port_ = server->port();
  server_ = std::move(server);
  return OkStatus();
}

void ScriptedCommitService::Stop() {
  if (server_ != nullptr) server_->Stop();
  server_.reset();
}

std::string ScriptedCommitService::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void ScriptedCommitService::ScriptCommits(Script script) {
  std::lock_guard<std::mutex> lock(mu_);
  commit_script_ = std::move(script);
}

void ScriptedCommitService::ScriptPending(Script script) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_script_ = std::move(script);
}

void ScriptedCommitService::DelayCommitAnswers(int count, std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(mu_);
  delayed_answers_ = count;
  delay_ = delay;
}

void ScriptedCommitService::ReplaceCommitAnswers(int count, http::Response answer) {
  std::lock_guard<std::mutex> lock(mu_);
  replaced_answers_ = count;
  replacement_ = std::move(answer);
}

std::vector<RecordedRequest> ScriptedCommitService::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

size_t ScriptedCommitService::CountRequests(std::string_view method) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const RecordedRequest& r : requests_) n += r.method == method ? 1u : 0u;
  return n;
}

http::Router ScriptedCommitService::MakeRouter() {
  http::Router router;
  router
      .Add("POST", "/v1/commits",
           [this](const http::Request& r) {
             return Handle(commit_script_, r, &ScriptedCommitService::ModelCommit);
           })
      .IgnoreError();
  router
      .Add("GET", "/v1/tables/{table}/commits",
           [this](const http::Request& r) {
             return Handle(pending_script_, r, &ScriptedCommitService::ModelPending);
           })
      .IgnoreError();
  return router;
}

http::Response ScriptedCommitService::Handle(
    const Script& script, const http::Request& request,
    http::Response (ScriptedCommitService::*model)(const http::Request&)) {
  Script copy;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back({request.method, request.target,
                         std::string(request.Header("Authorization").value_or("")),
                         request.body});
    copy = script;  // read under the lock; run without it (it may block)
  }
  if (copy) {
    if (std::optional<http::Response> answer = copy(request)) return *std::move(answer);
  }
  return (this->*model)(request);
}

Version ScriptedCommitService::latest_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ratified_.empty() ? -1 : ratified_.rbegin()->first;
}

Version ScriptedCommitService::LatestLocked() const {
  if (!ratified_.empty()) return ratified_.rbegin()->first;
  // Before any ratified commit the table's log is what the store holds.
  Version latest = -1;
  if (store_ == nullptr) return latest;
  auto listing = store_->List(kLogDir);
  if (!listing.ok()) return latest;
  for (const ObjectMeta& m : *listing) {
    ParsedLogPath p = ParseLogPath(std::string_view(m.key).substr(kLogDir.size()));
    if (p.type == LogFileType::kCommit && p.version > latest) latest = p.version;
  }
  return latest;
}

http::Response ScriptedCommitService::ModelCommit(const http::Request& request) {
  if (!Authorized(request)) return ApiError(401, "unauthenticated", "no or unknown bearer token");
  // The service's own strict read, so a client that sends what the real
  // service would refuse fails here too.
  StatusOr<service_wire::CommitBody> body = service_wire::ParseCommitBody(request.body);
  if (!body.ok()) return ApiError(400, "bad_request", body.status().message());
  if (body->append) {
    return ApiError(409, "append_unavailable", "the scripted model does not assign versions");
  }
  if (body->table != table_) return ApiError(403, "forbidden", "not this token's table");
  if (!body->credentials || body->credentials->access_key_id.empty() ||
      body->credentials->secret_access_key.empty()) {
    return ApiError(422, "credentials_invalid", "credentials missing");
  }
  const Version version = body->version;
  Ratified entry;
  const bool publish = body->actions.has_value();
  if (publish) {
    entry.content = *std::move(body->actions);
  } else {
    entry.staged_file = *std::move(body->staged_file);
  }
  std::unique_lock<std::mutex> lock(mu_);
  http::Response answer = RatifyLocked(version, std::move(entry), publish);
  if (replaced_answers_ > 0) {
    --replaced_answers_;
    answer = replacement_;
  }
  if (delayed_answers_ > 0) {
    --delayed_answers_;
    const auto delay = delay_;
    lock.unlock();
    std::this_thread::sleep_for(delay);
  }
  return answer;
}

http::Response ScriptedCommitService::RatifyLocked(Version version, Ratified entry, bool publish) {
  const Version latest = LatestLocked();
  if (version <= latest) {
    auto it = ratified_.find(version);
    const bool same = it != ratified_.end() && (publish ? it->second.content == entry.content
                                                        : it->second.staged_file == entry.staged_file);
    if (same) return OkAnswer(version, it->second.published);
    return ApiError(409, "version_taken",
                    "version " + std::to_string(version) + " is taken", latest);
  }
  if (version > latest + 1) {
    return ApiError(409, "version_ahead",
                    "version " + std::to_string(version) + " is not the next version", latest);
  }
  if (store_ == nullptr) return ApiError(500, "internal", "the model has no store");
  entry.timestamp_ms = SystemClock().NowMillis();
  if (publish) {
    entry.staged_file = StagedCommitPath(version, NewUuid());
    entry.size = static_cast<int64_t>(entry.content.size());
    if (!store_->Put(entry.staged_file, entry.content).ok()) {
      return ApiError(503, "unavailable", "staged put failed");
    }
  } else {
    auto head = store_->Head(entry.staged_file);
    if (!head.ok()) return ApiError(400, "bad_request", "staged file not found");
    entry.size = head->size;
  }
  const std::string staged = entry.staged_file;
  ratified_[version] = std::move(entry);
  if (publish) {
    Status copied = store_->Copy(staged, CommitPath(version), /*if_absent=*/true);
    ratified_[version].published = copied.ok();
  }
  return OkAnswer(version, ratified_[version].published);
}

http::Response ScriptedCommitService::ModelPending(const http::Request& request) {
  if (!Authorized(request)) return ApiError(401, "unauthenticated", "no or unknown bearer token");
  if (request.PathParam("table").value_or("") != table_) {
    return ApiError(403, "forbidden", "not this token's table");
  }
  std::optional<Version> start = ParseVersion(request.QueryParam("start").value_or(""));
  if (!start) return ApiError(400, "bad_request", "start must be a version");
  std::lock_guard<std::mutex> lock(mu_);
  service_wire::PendingCommitsAnswer answer;
  answer.table = table_;
  answer.pending.latest_version = ratified_.empty() ? -1 : ratified_.rbegin()->first;
  std::vector<PendingCommit>& commits = answer.pending.commits;
  for (const auto& [v, e] : ratified_) {
    if (v < *start || e.published) continue;
    if (commits.size() == pending_limit_) break;
    commits.push_back({v, e.staged_file, e.size, e.timestamp_ms});
  }
  return http::Response::Json(200, service_wire::SerializePendingCommits(answer));
}

void ScriptedCommitService::LimitPendingAnswers(size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_limit_ = limit;
}

Status ScriptedCommitService::Publish(Version through) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [v, e] : ratified_) {
    if (v > through || e.published) continue;
    Status copied = store_->Copy(e.staged_file, CommitPath(v), /*if_absent=*/true);
    if (!copied.ok() && !copied.IsAlreadyExists()) return copied;
    e.published = true;
  }
  return OkStatus();
}

Status ScriptedCommitService::Ratify(Version version, std::string staged_file) {
  std::lock_guard<std::mutex> lock(mu_);
  Ratified entry;
  entry.staged_file = std::move(staged_file);
  http::Response answer = RatifyLocked(version, std::move(entry), /*publish=*/false);
  if (answer.status != 200) return FailedPreconditionError("ratify: " + answer.body);
  return OkStatus();
}

}  // namespace deltacommit::testing
