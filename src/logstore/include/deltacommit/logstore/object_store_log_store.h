// ObjectStoreLogStore: a LogStore for object stores whose PutIfAbsent is a
// true atomic create-if-absent, so no coordinator is needed: version N is
// simply "_delta_log/N.json" created with PutIfAbsent. Serves the `local`
// mode (PosixObjectStore) and `s3-conditional` (S3 If-None-Match: *).
//
// Steps (for crash sweeps; see docs/protocols):
//   objstore/before-put  nothing written yet
//   objstore/after-put   N.json exists; the writer has not yet been told
//
// Thread-safety: safe for concurrent use (all state is in the store).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/log_store.h"
#include "deltacommit/object_store.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

class ObjectStoreLogStore : public LogStore {
 public:
  // `store` and `hooks` (may be null) must outlive this object. `mode_name`
  // ("local", "s3-conditional") prefixes Describe().
  ObjectStoreLogStore(ObjectStore& store, std::string mode_name,
                      StepHooks* hooks = nullptr);

  // "<mode_name> <store description>".
  std::string Describe() const override;

  // PutIfAbsent of CommitPath(version): its codes pass through (kAlreadyExists,
  // kUnknownOutcome, ...). kInvalidArgument for a negative version.
  Status Write(Version version, std::string_view content) override;

  // One List of "_delta_log/" starting just before version `from`. With
  // from > 0 the names that sort before the version digits (those starting
  // with '.', such as ".tmp/..." and ".N.json.<uuid>.tmp" temp files) are
  // left out; they are never log files a reader needs.
  StatusOr<std::vector<ObjectMeta>> List(Version from) override;

  StatusOr<std::string> Read(std::string_view key) override;

 private:
  ObjectStore& store_;
  const std::string mode_name_;
  StepHooks* const hooks_;
};

// The List start_after that yields every "_delta_log/" key of version >=
// `from` and every name that sorts after the version digits
// ("_last_checkpoint", "_staged_commits/..."). Exposed for tests.
std::string LogListStartAfter(Version from);

}  // namespace deltacommit
