#include "service/state/commit_record.h"

#include <string_view>

#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

bool IsLowerHex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status Invalid(const CommitRecord& record, std::string_view problem) {
  return InvalidArgumentError("commit record for version " +
                              std::to_string(record.version) + " of table '" +
                              record.table + "': " + std::string(problem));
}

// The staged name must be version's own: a record pointing version 7 at
// version 8's object would publish the wrong actions as 7.json.
Status CheckStagedFile(const CommitRecord& record) {
  std::string_view path = record.staged_file;
  ParsedLogPath parsed;
  if (path.starts_with(kLogDir))
    parsed = ParseLogPath(path.substr(kLogDir.size()));
  if (parsed.type != LogFileType::kStagedCommit) {
    return Invalid(record, "staged_file '" + record.staged_file +
                               "' is not _delta_log/_staged_commits/<20-digit "
                               "version>.<uuid>.json");
  }
  if (parsed.version != record.version) {
    return Invalid(record, "staged_file '" + record.staged_file +
                               "' is staged for version " +
                               std::to_string(parsed.version));
  }
  return OkStatus();
}

}  // namespace

bool SameCommit(const CommitRecord& a, const CommitRecord& b) {
  return a.table == b.table && a.version == b.version &&
         a.staged_file == b.staged_file &&
         a.content_sha256 == b.content_sha256 && a.size == b.size;
}

Status ValidateCommitRecord(const CommitRecord& record) {
  if (record.table.empty()) return Invalid(record, "table is empty");
  if (record.table.back() == '/')
    return Invalid(record, "table ends in '/' (not normalised)");
  if (record.version < 0) return Invalid(record, "version is negative");
  DC_RETURN_IF_ERROR(CheckStagedFile(record));
  if (record.content_sha256.size() != 64 ||
      !IsLowerHex(record.content_sha256)) {
    return Invalid(record, "content_sha256 '" + record.content_sha256 +
                               "' is not 64 lower-case hex digits");
  }
  if (record.size < 0) return Invalid(record, "size is negative");
  for (size_t i = 0; i < record.app_txns.size(); ++i) {
    const std::string& app = record.app_txns[i].app_id;
    if (app.empty()) return Invalid(record, "a txn has an empty appId");
    for (size_t j = 0; j < i; ++j) {
      if (record.app_txns[j].app_id == app) {
        return Invalid(record, "two txns for appId '" + app + "'");
      }
    }
  }
  return OkStatus();
}

std::string DescribeCommit(const CommitRecord& record) {
  return "version " + std::to_string(record.version) + " of " + record.table +
         " (" + record.staged_file + ", " + std::to_string(record.size) +
         " bytes, sha256 " + record.content_sha256 + ")";
}

Status CheckStateArguments(const std::string& table, Version version) {
  if (table.empty()) return InvalidArgumentError("table URI is empty");
  if (version < 0) {
    return InvalidArgumentError("version " + std::to_string(version) + " of " +
                                table + " is negative");
  }
  return OkStatus();
}

Status CheckStateLimit(int64_t limit) {
  if (limit >= 1) return OkStatus();
  return InvalidArgumentError("limit " + std::to_string(limit) + " is below 1");
}

}  // namespace deltacommit::service
