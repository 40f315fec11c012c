#include "service/commits/commit_observer.h"

namespace deltacommit::service {

std::string_view CommitModeName(CommitMode mode) {
  switch (mode) {
    case CommitMode::kCoordinated: return "coordinated";
    case CommitMode::kAppend: return "append";
    case CommitMode::kService: break;
  }
  return "service";
}

CommitObserver& NoCommitObserver() {
  static CommitObserver* const observer = new CommitObserver();
  return *observer;
}

}  // namespace deltacommit::service
