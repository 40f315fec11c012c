#include "deltacommit/logstore/object_store_log_store.h"

#include <utility>

#include "deltacommit/log_path.h"

namespace deltacommit {

std::string LogListStartAfter(Version from) {
  if (from <= 0) return {};
  // Byte order is '.' < '0'..'9' < '_'. Every key of version from-1 is its
  // 20 digits followed by '.', which sorts below '~'; every key of a later
  // version differs in the digits, so sorts above. '~' rather than 0xFF keeps
  // start_after valid UTF-8, which S3 requires.
  return std::string(kLogDir) + FormatVersion(from - 1) + "~";
}

ObjectStoreLogStore::ObjectStoreLogStore(ObjectStore& store,
                                         std::string mode_name,
                                         StepHooks* hooks)
    : store_(store), mode_name_(std::move(mode_name)), hooks_(hooks) {}

std::string ObjectStoreLogStore::Describe() const {
  return mode_name_ + " " + store_.Describe();
}

// Step 4 of docs/protocols/local.md and step 3 of s3-conditional.md: the
// conditional create of <v>.json is the commit point; what an "already
// exists" or a lost reply means is the Transaction's (steps 6 and 7).
Status ObjectStoreLogStore::Write(Version version, std::string_view content) {
  if (version < 0) {
    return InvalidArgumentError("negative version " + std::to_string(version) +
                                " for " + Describe());
  }
  DC_RETURN_IF_ERROR(RunStep(hooks_, "objstore/before-put"));
  const std::string key = CommitPath(version);
  DC_RETURN_IF_ERROR(store_.PutIfAbsent(key, content)  // the commit point
                         .WithContext("write version " +
                                      std::to_string(version) + " of " +
                                      Describe()));
  return RunStep(hooks_, "objstore/after-put");
}

StatusOr<std::vector<ObjectMeta>> ObjectStoreLogStore::List(Version from) {
  return store_.List(kLogDir, LogListStartAfter(from));
}

StatusOr<std::string> ObjectStoreLogStore::Read(std::string_view key) {
  return store_.Get(key);
}

}  // namespace deltacommit
