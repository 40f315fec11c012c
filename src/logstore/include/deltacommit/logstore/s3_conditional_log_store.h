// S3ConditionalLogStore: the `s3-conditional` mode. Version N is
// `_delta_log/N.json` created with PUT If-None-Match: *
// (docs/protocols/s3-conditional.md).
//
// Some S3-compatible stores accept If-None-Match and overwrite anyway, or
// refuse it: before the first write to a bucket, this store proves the
// bucket enforces it (a probe object under `_delta_log/.tmp/` written twice,
// the second must fail), caches the answer per endpoint+bucket for the
// process, and refuses to commit where it is not enforced.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <string>

#include "deltacommit/log_store.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

class S3ConditionalLogStore : public LogStore {
 public:
  // `store` and `hooks` (may be null) must outlive this object. `endpoint`
  // and `bucket` name the store in messages and key the probe cache.
  S3ConditionalLogStore(ObjectStore& store, std::string endpoint, std::string bucket,
                        StepHooks* hooks = nullptr);

  std::string Describe() const override { return inner_.Describe(); }
  // kFailedPrecondition when the store does not enforce conditional PUTs
  // (names the safe alternatives); otherwise as ObjectStoreLogStore::Write.
  Status Write(Version version, std::string_view content) override;
  StatusOr<std::vector<ObjectMeta>> List(Version from) override { return inner_.List(from); }
  StatusOr<std::string> Read(std::string_view key) override { return inner_.Read(key); }

  // Runs the probe now (normally done by the first Write); cached.
  Status VerifyConditionalPut();

 private:
  ObjectStore& store_;
  const std::string endpoint_;
  const std::string bucket_;
  ObjectStoreLogStore inner_;
};

// Forgets cached probe results (tests).
void ResetConditionalPutProbeCache();

}  // namespace deltacommit
