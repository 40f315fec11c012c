#include "deltacommit/log_store.h"

namespace deltacommit {

StatusOr<BlindAppendResult> LogStore::AppendBlind(Version, std::string_view) {
  return UnimplementedError(Describe() + " does not assign versions to appends");
}

}  // namespace deltacommit
