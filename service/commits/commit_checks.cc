#include "service/commits/commit_checks.h"

#include <string>
#include <variant>

#include "deltacommit/action_json.h"
#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/aws/sigv4.h"
#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

std::string AtLine(int64_t line) { return "actions line " + std::to_string(line) + ": "; }

// The txn actions, recorded with the commit (CommitChecker has checked
// them: non-empty and unique appIds).
void NoteTxn(const Action& action, CheckedCommit& checked) {
  if (const auto* txn = std::get_if<SetTransaction>(&action)) {
    checked.app_txns.push_back(AppTxn{txn->app_id, txn->version});
  }
}

void NoteTimestamp(const Action& action, CheckedCommit& checked) {
  const auto* info = std::get_if<CommitInfo>(&action);
  if (info == nullptr) return;
  checked.commit_timestamp_ms =
      info->in_commit_timestamp ? info->in_commit_timestamp : info->timestamp;
}

Status CheckLine(std::string_view line, ActionParser& parser, CheckedCommit& checked) {
  if (line.ends_with('\r')) line.remove_suffix(1);
  if (line.empty()) return InvalidArgumentError("empty line: one action per line");
  DC_ASSIGN_OR_RETURN(Action action, parser.ParseLine(line));
  DC_RETURN_IF_ERROR(checked.rules.Add(action));
  NoteTimestamp(action, checked);
  NoteTxn(action, checked);
  return OkStatus();
}

}  // namespace

StatusOr<CheckedCommit> CheckCommitContent(std::string_view table, std::string_view content,
                                           const CommitLimits& limits) {
  const auto size = static_cast<int64_t>(content.size());
  if (size > limits.max_commit_bytes) {
    return ResourceExhaustedError("the actions are " + std::to_string(size) +
                                  " bytes, over the limit of " +
                                  std::to_string(limits.max_commit_bytes) + " bytes per commit");
  }
  if (content.empty()) return InvalidArgumentError("the actions are empty: a commit needs one");
  const std::string_view bytes = content;
  if (content.ends_with('\n')) content.remove_suffix(1);
  CheckedCommit checked;
  checked.rules = CommitChecker(std::string(table));
  ActionParser parser;
  int64_t line_number = 0;
  for (size_t start = 0; start <= content.size();) {
    size_t end = content.find('\n', start);
    if (end == std::string_view::npos) end = content.size();
    if (++line_number > limits.max_actions) {
      return ResourceExhaustedError("more than " + std::to_string(limits.max_actions) +
                                    " actions in one commit (the limit)");
    }
    Status line = CheckLine(content.substr(start, end - start), parser, checked);
    if (!line.ok()) return Status(line.code(), AtLine(line_number) + line.message());
    start = end + 1;
  }
  checked.content_sha256 = aws::Sha256Hex(bytes);
  checked.size = size;
  return checked;
}

Status CheckStagedFileName(std::string_view staged_file, Version version) {
  const std::string expected = "_delta_log/_staged_commits/" + FormatVersion(version) +
                               ".<uuid>.json";
  if (!staged_file.starts_with(kLogDir)) {
    return InvalidArgumentError("staged_file \"" + std::string(staged_file) +
                                "\" is not a staged commit of version " +
                                std::to_string(version) + ": expected " + expected);
  }
  const ParsedLogPath parsed = ParseLogPath(staged_file.substr(kLogDir.size()));
  if (parsed.type != LogFileType::kStagedCommit || parsed.version != version) {
    return InvalidArgumentError("staged_file \"" + std::string(staged_file) +
                                "\" is not a staged commit of version " +
                                std::to_string(version) + ": expected " + expected);
  }
  return OkStatus();
}

Status CheckRequestCredentials(const aws::Credentials& c, int64_t now_ms,
                               int64_t min_validity_ms) {
  if (c.access_key_id.empty() || c.secret_access_key.empty()) {
    return UnauthenticatedError(
        "credentials are missing an access key id or a secret access key: send the temporary "
        "credentials (access key id, secret, session token, expiration) for the table");
  }
  if (!c.expiration_ms) {
    return UnauthenticatedError("credentials of key " + c.RedactedKeyId() +
                                " have no expiration: send temporary credentials with the "
                                "expiration they were issued with");
  }
  if (*c.expiration_ms - min_validity_ms > now_ms) return OkStatus();
  const bool expired = *c.expiration_ms <= now_ms;
  return UnauthenticatedError(
      "credentials of key " + c.RedactedKeyId() + (expired ? " expired at " : " expire at ") +
      aws::internal::FormatUtc(*c.expiration_ms) + " (UTC; service time " +
      aws::internal::FormatUtc(now_ms) +
      (expired ? ")" : ", less than " + std::to_string(min_validity_ms / 1000) + " s left)") +
      ": obtain fresh temporary credentials and send the commit again; nothing was written");
}

}  // namespace deltacommit::service
