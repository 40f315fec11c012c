#include "service/commits/commit_observer.h"

namespace deltacommit::service {

std::string_view CommitModeName(CommitMode mode) {
  return mode == CommitMode::kCoordinated ? "coordinated" : "service";
}

CommitObserver& NoCommitObserver() {
  static CommitObserver* const observer = new CommitObserver();
  return *observer;
}

}  // namespace deltacommit::service
