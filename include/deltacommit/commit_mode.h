// CommitMode: how a table's commits are made exactly once — the commit
// protocols of docs/protocols/, by the names users type (`--log-store`,
// TableOptions::mode).
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace deltacommit {

enum class CommitMode {
  kLocal,          // "local": link(2) create of <v>.json (local.md)
  kS3Conditional,  // "s3-conditional": PUT If-None-Match: * (s3-conditional.md)
  kS3DynamoDb,     // "s3-dynamodb": Delta Spark's S3DynamoDBLogStore
                   // (s3-dynamodb.md)
  kService,        // "service": through `deltacommit serve` (service.md)
  kCoordinated,    // "coordinated": staged commits ratified by the service
                   // (coordinated.md)
  kUnityCatalog,   // "unity-catalog": a catalog-managed table, its commits
                   // ratified by its catalog (catalog-managed.md); the mode
                   // of uc://catalog.schema.table
};

inline constexpr std::array<CommitMode, 6> kCommitModes = {
    CommitMode::kLocal,   CommitMode::kS3Conditional, CommitMode::kS3DynamoDb,
    CommitMode::kService, CommitMode::kCoordinated,   CommitMode::kUnityCatalog};

// "local", "s3-conditional", "s3-dynamodb", "service", "coordinated",
// "unity-catalog".
std::string_view CommitModeName(CommitMode mode);

// The mode of a name as CommitModeName prints it (exact, lower case), or
// nullopt.
std::optional<CommitMode> ParseCommitMode(std::string_view name);

// True for the modes that commit through the commit service.
inline bool UsesCommitService(CommitMode mode) {
  return mode == CommitMode::kService || mode == CommitMode::kCoordinated;
}

}  // namespace deltacommit
