#include "deltacommit/logstore/s3_conditional_log_store.h"

#include <map>
#include <mutex>

#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

std::mutex probe_mu;
std::map<std::string, Status>& ProbeCache() {  // endpoint|bucket -> verdict
  static auto* cache = new std::map<std::string, Status>();
  return *cache;
}

Status NotEnforced(const std::string& endpoint, const std::string& bucket,
                   const std::string& what) {
  return FailedPreconditionError(
      "s3-conditional: the store at " + endpoint + " (bucket " + bucket + ") does not enforce PUT with If-None-Match: * (" + what +
      "), so two writers could both create the same version and one would silently lose its "
      "data. Use --log-store s3-dynamodb or the commit service (--log-store service) for this "
      "store instead.");
}

// Writes one probe object twice with If-None-Match: *; the second must be
// refused. Cleans up after itself.
Status RunProbe(ObjectStore& store, const std::string& endpoint, const std::string& bucket) {
  const std::string key = "_delta_log/.tmp/conditional-put-probe." + NewUuid();
  Status first = store.PutIfAbsent(key, "probe 1");
  if (first.code() == StatusCode::kUnimplemented) {
    return NotEnforced(endpoint, bucket, first.message());
  }
  DC_RETURN_IF_ERROR(first.WithContext("s3-conditional probe"));
  Status second = store.PutIfAbsent(key, "probe 2");
  auto content = store.Get(key);
  store.Delete(key).IgnoreError();  // a leftover probe is harmless
  if (second.ok()) {
    return NotEnforced(endpoint, bucket, "a second conditional PUT of one key succeeded");
  }
  if (!second.IsAlreadyExists()) return second.WithContext("s3-conditional probe");
  if (content.ok() && *content != "probe 1") {
    return NotEnforced(endpoint, bucket, "the refused PUT still overwrote the object");
  }
  return OkStatus();
}

}  // namespace

S3ConditionalLogStore::S3ConditionalLogStore(ObjectStore& store, std::string endpoint,
                                             std::string bucket, StepHooks* hooks)
    : store_(store),
      endpoint_(std::move(endpoint)),
      bucket_(std::move(bucket)),
      inner_(store, "s3-conditional", hooks) {}

Status S3ConditionalLogStore::VerifyConditionalPut() {
  const std::string key = endpoint_ + "|" + bucket_;
  {
    std::lock_guard<std::mutex> lock(probe_mu);
    auto it = ProbeCache().find(key);
    if (it != ProbeCache().end()) return it->second;
  }
  Status verdict = RunProbe(store_, endpoint_, bucket_);
  // Transient failures are not cached: the next write probes again.
  if (verdict.ok() || verdict.code() == StatusCode::kFailedPrecondition) {
    std::lock_guard<std::mutex> lock(probe_mu);
    ProbeCache()[key] = verdict;
  }
  return verdict;
}

// The steps of docs/protocols/s3-conditional.md: 1 (load the snapshot) and
// 2 (build the commit) are the Transaction's; the rest happen here.
Status S3ConditionalLogStore::Write(Version version, std::string_view content) {
  DC_RETURN_IF_ERROR(VerifyConditionalPut());  // step 0: the probe, once
  return inner_.Write(version, content);       // step 3: PUT If-None-Match: *
}

void ResetConditionalPutProbeCache() {
  std::lock_guard<std::mutex> lock(probe_mu);
  ProbeCache().clear();
}

}  // namespace deltacommit
