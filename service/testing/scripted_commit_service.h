// ScriptedCommitService: a stand-in for `deltacommit serve` in unit tests of
// the client and of the service and coordinated log stores. It runs on the
// service's real HTTP server (service/http) on 127.0.0.1, so requests cross
// a real socket through the real libcurl client.
//
// Each request is first offered to the test's script for its route; when the
// script returns nothing, a small model of docs/api.md answers for ONE table
// (`table`, objects in `store`):
//   - bearer token must equal `token` (401), the table must be `table` (403);
//   - the latest version is the highest ratified one, or, before any, the
//     highest `<v>.json` in the store (commit 0 goes through the store);
//   - v ratified with the same content / staged name -> 200 (idempotent),
//     v ratified otherwise -> 409 version_taken, v > latest+1 -> 409
//     version_ahead, both with latest_version;
//   - actions: puts a staged object, ratifies, copies it to `<v>.json`,
//     200 published=true; staged_file: ratifies only, 200 published=false
//     (Publish() is the background publisher);
//   - GET .../commits?start=V: the ratified, unpublished commits >= V;
//   - an append ("append": true) -> 409 append_unavailable, so writers
//     take the versioned path (the real service's appends are tested
//     against `deltacommit serve`).
// Every request is recorded. Bodies are read and written with the service's
// own wire format (deltacommit_service_wire), its strict parse included;
// beyond that it is not the service: no credentials are checked beyond
// being present, nothing is validated beyond what the tests need.
//
// Thread-safety: safe for concurrent use; handlers run on server threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/status.h"
#include "service/http/http_server.h"

namespace deltacommit::testing {

struct RecordedRequest {
  std::string method;
  std::string target;         // path and query, percent-encoded
  std::string authorization;  // the header's value
  std::string body;
};

class ScriptedCommitService {
 public:
  // An answer of its own for a request, or nullopt to let the model answer.
  using Script = std::function<std::optional<http::Response>(const http::Request&)>;

  static constexpr std::string_view kToken = "test-token-0123456789";

  // `store` (may be null: scripts only) must outlive this object.
  ScriptedCommitService(std::string table, ObjectStore* store);
  ~ScriptedCommitService();

  // Starts the server on 127.0.0.1 (an ephemeral port the first time, the
  // same port again after Stop()).
  Status Start();
  // Stops the server at once: a request in flight is still applied, but its
  // connection is closed without an answer (a lost reply). Returns when its
  // handler has finished.
  void Stop();
  std::string url() const;  // "http://127.0.0.1:<port>"

  void ScriptCommits(Script script);  // POST /v1/commits
  void ScriptPending(Script script);  // GET /v1/tables/{table}/commits
  // The model applies the next `count` POST /v1/commits and then holds each
  // answer for `delay` (a client with a shorter timeout loses the reply).
  void DelayCommitAnswers(int count, std::chrono::milliseconds delay);
  // The model applies the next `count` POST /v1/commits and answers each
  // with `answer` instead (a 502 from a proxy that lost the real answer).
  void ReplaceCommitAnswers(int count, http::Response answer);
  // GET .../commits lists at most `limit` commits (as the real service's
  // pending_list_limit); the client asks for the rest.
  void LimitPendingAnswers(size_t limit);

  std::vector<RecordedRequest> requests() const;
  size_t CountRequests(std::string_view method) const;

  // The model's state: the latest ratified version (-1: none).
  Version latest_version() const;
  // Copies the ratified, unpublished commits up to `through` to `<v>.json`,
  // in order (the background publisher).
  Status Publish(Version through);
  // Ratifies `staged_file` as `version` as if another writer had sent it.
  Status Ratify(Version version, std::string staged_file);

 private:
  struct Ratified {
    std::string staged_file;
    std::string content;  // service mode: the actions; coordinated: empty
    int64_t size = 0;
    int64_t timestamp_ms = 0;
    bool published = false;
  };

  http::Router MakeRouter();
  http::Response Handle(const Script& script, const http::Request& request,
                        http::Response (ScriptedCommitService::*model)(const http::Request&));
  http::Response ModelCommit(const http::Request& request);
  http::Response ModelPending(const http::Request& request);
  Version LatestLocked() const;
  http::Response RatifyLocked(Version version, Ratified entry, bool publish);

  const std::string table_;
  ObjectStore* const store_;
  mutable std::mutex mu_;
  std::unique_ptr<http::HttpServer> server_;
  uint16_t port_ = 0;
  Script commit_script_;   // guarded by mu_
  Script pending_script_;  // guarded by mu_
  int delayed_answers_ = 0;
  std::chrono::milliseconds delay_{0};
  int replaced_answers_ = 0;
  http::Response replacement_;
  size_t pending_limit_ = SIZE_MAX;
  std::vector<RecordedRequest> requests_;
  std::map<Version, Ratified> ratified_;
};

// {"error": {"code", "message", "latest_version"?, "reason"?}} with `status`.
http::Response ApiError(int status, std::string_view code, std::string_view message,
                        std::optional<Version> latest_version = std::nullopt,
                        std::string_view reason = {});

}  // namespace deltacommit::testing
