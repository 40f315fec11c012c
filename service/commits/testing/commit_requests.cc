#include "service/commits/testing/commit_requests.h"

#include <utility>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/table_features.h"

namespace deltacommit::service::testing {

std::string CreateTableActions(bool in_commit_timestamps) {
  Metadata m;
  m.id = NewUuid();
  m.schema_string = R"({"type":"struct","fields":[]})";
  if (in_commit_timestamps) m.configuration["delta.enableInCommitTimestamps"] = "true";
  CommitInfo info;
  info.timestamp = 1'700'000'000'000;
  if (in_commit_timestamps) info.in_commit_timestamp = info.timestamp;
  return ActionsToCommit({info, ProtocolForNewTable(m).value(), m});
}

std::string AppendActions(std::string_view path, std::string_view app, int64_t txn_version) {
  std::string out = R"({"add":{"path":")" + std::string(path) +
                    R"(","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}})"
                    "\n";
  if (!app.empty()) {
    out += R"({"txn":{"appId":")" + std::string(app) + R"(","version":)" +
           std::to_string(txn_version) + "}}\n";
  }
  return out;
}

CommitRequest AppendCommit(const TableAccess& access, Version read_version, std::string actions) {
  CommitRequest r;
  r.access = access;
  r.append = true;
  r.read_version = read_version;
  r.actions = std::move(actions);
  return r;
}

std::string CommitActions(std::string_view tag, int64_t timestamp_ms) {
  const std::string ts = std::to_string(timestamp_ms);
  return "{\"commitInfo\":{\"inCommitTimestamp\":" + ts + ",\"timestamp\":" + ts +
         ",\"operation\":\"WRITE\"}}\n"
         "{\"add\":{\"path\":\"part-" + std::string(tag) +
         ".parquet\",\"partitionValues\":{},\"size\":100,\"modificationTime\":" + ts +
         ",\"dataChange\":true}}\n";
}

std::string FirstCommitActions(std::string_view tag, int64_t timestamp_ms) {
  const std::string commit = CommitActions(tag, timestamp_ms);
  const size_t first_line = commit.find('\n') + 1;
  return commit.substr(0, first_line) +
         "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
         "{\"metaData\":{\"id\":\"00000000-0000-4000-8000-0000000000ab\",\"format\":"
         "{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
         "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[],"
         "\"configuration\":{}}}\n" +
         commit.substr(first_line);
}

std::string CommitActionsAt(Version version, std::string_view tag, int64_t timestamp_ms) {
  return version == 0 ? FirstCommitActions(tag, timestamp_ms) : CommitActions(tag, timestamp_ms);
}

aws::Credentials TestCredentials(Clock& clock, std::string secret, std::string session_token,
                                 std::string key_id) {
  aws::Credentials c;
  c.access_key_id = std::move(key_id);
  c.secret_access_key = std::move(secret);
  c.session_token = std::move(session_token);
  c.expiration_ms = clock.NowMillis() + 3'600'000;
  c.source = "the request";
  return c;
}

TableAccess TestAccess(const std::string& table, aws::Credentials credentials) {
  TableAccess access;
  access.table = table;
  access.endpoint.name = "test";
  access.credentials = std::move(credentials);
  return access;
}

CommitRequest ServiceCommit(const TableAccess& access, Version version, std::string actions) {
  CommitRequest r;
  r.access = access;
  r.version = version;
  r.actions = std::move(actions);
  return r;
}

CommitRequest CoordinatedCommit(const TableAccess& access, Version version,
                                std::string staged_file) {
  CommitRequest r;
  r.access = access;
  r.version = version;
  r.staged_file = std::move(staged_file);
  return r;
}

}  // namespace deltacommit::service::testing
