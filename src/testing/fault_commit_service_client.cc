#include "deltacommit/testing/fault_commit_service_client.h"

#include <array>
#include <utility>

namespace deltacommit {
namespace {

// Indexed by CommitServiceClientOp.
constexpr std::array<std::string_view, kCommitServiceClientOpCount> kCommitServiceClientOpNames = {
    "Commit", "GetPendingCommits"};

ServiceCommitResult FaultedResult(Status status) {
  ServiceCommitResult result;
  result.status = std::move(status);
  return result;
}

}  // namespace

std::string_view CommitServiceClientOpName(CommitServiceClientOp op) {
  const auto index = static_cast<size_t>(op);
  return index < kCommitServiceClientOpNames.size() ? kCommitServiceClientOpNames[index] : "Unknown";
}

FaultInjectingCommitServiceClient::FaultInjectingCommitServiceClient(
    CommitServiceClient& base, Sleeper& sleeper)
    : ForwardingCommitServiceClient(base), PortFaults(kCommitServiceClientOpNames, sleeper) {}

FaultInjectingCommitServiceClient::~FaultInjectingCommitServiceClient() {
  ClearRules();
}

ServiceCommitResult FaultInjectingCommitServiceClient::Commit(
    const ServiceCommitRequest& request) {
  // Not Intercept: a ServiceCommitResult is no StatusOr.
  const std::array<std::string_view, 2> keys = {request.table,
                                                request.staged_file};
  FaultVerdict verdict = Decide(CommitServiceClientOp::kCommit, keys);
  if (verdict.fail) return FaultedResult(*std::move(verdict.fail));
  ServiceCommitResult result = ForwardingCommitServiceClient::Commit(request);
  if (verdict.drop_reply) return FaultedResult(*std::move(verdict.drop_reply));
  return result;
}

StatusOr<PendingCommits> FaultInjectingCommitServiceClient::GetPendingCommits(
    std::string_view table, Version start) {
  return Intercept<StatusOr<PendingCommits>>(
      CommitServiceClientOp::kGetPendingCommits, {table}, [&] {
        return ForwardingCommitServiceClient::GetPendingCommits(table, start);
      });
}

}  // namespace deltacommit
