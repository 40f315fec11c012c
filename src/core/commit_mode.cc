#include "deltacommit/commit_mode.h"

namespace deltacommit {

std::string_view CommitModeName(CommitMode mode) {
  switch (mode) {
    case CommitMode::kLocal:
      return "local";
    case CommitMode::kS3Conditional:
      return "s3-conditional";
    case CommitMode::kS3DynamoDb:
      return "s3-dynamodb";
    case CommitMode::kService:
      return "service";
    case CommitMode::kCoordinated:
      return "coordinated";
    case CommitMode::kUnityCatalog:
      return "unity-catalog";
  }
  return "unknown";
}

std::optional<CommitMode> ParseCommitMode(std::string_view name) {
  for (CommitMode mode : kCommitModes) {
    if (CommitModeName(mode) == name) return mode;
  }
  return std::nullopt;
}

}  // namespace deltacommit
