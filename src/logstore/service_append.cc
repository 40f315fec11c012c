#include "logstore/service_append.h"

namespace deltacommit {

StatusOr<BlindAppendResult> AppendThroughService(CommitServiceClient& client,
                                                 const std::string& table_uri,
                                                 Version read_version, std::string_view content,
                                                 StepHooks* hooks,
                                                 std::atomic<bool>& assign_versions) {
  DC_RETURN_IF_ERROR(RunStep(hooks, "service/before-append"));
  ServiceCommitRequest request;
  request.table = table_uri;
  request.append = true;
  request.read_version = read_version;
  request.actions = std::string(content);
  ServiceCommitResult result = client.Commit(request);
  // A service older than appends refuses the field: commit with a version.
  if (result.status.code() == StatusCode::kInvalidArgument &&
      result.status.message().find("unknown field \"append\"") != std::string::npos) {
    assign_versions = false;
    return FailedPreconditionError(client.Describe() + " does not assign versions to appends");
  }
  if (result.error_code == "append_unavailable") assign_versions = false;
  DC_RETURN_IF_ERROR(result.status);
  DC_RETURN_IF_ERROR(RunStep(hooks, "service/after-append"));
  BlindAppendResult out;
  out.version = result.version;
  out.duplicate = result.duplicate;
  out.merged = result.merged;
  out.in_commit_timestamp = result.in_commit_timestamp;
  return out;
}

}  // namespace deltacommit
