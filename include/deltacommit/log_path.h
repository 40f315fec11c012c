// Names of the files under a table's `_delta_log/`, parsed in one place.
//
// Recognised (v = 20-digit zero-padded version, PROTOCOL.md "Delta Log
// Entries"):
//   v.json                                  commit
//   v.checkpoint.parquet                    classic checkpoint
//   v.checkpoint.<p>.<n>.parquet            part p of an n-part checkpoint (10 digits each)
//   v.checkpoint.<uuid>.json|parquet        v2 (UUID-named) checkpoint
//   v.crc                                   version checksum
//   <v1>.<v2>.compacted.json                log compaction of v1..v2
//   _staged_commits/v.<uuid>.json           staged (coordinated) commit
//   _last_checkpoint                        checkpoint hint
//   _sidecars/<name>.parquet|json           v2 checkpoint sidecar
//   .tmp/v.json.<uuid> and .v.json.<...>.tmp temporary files
// Anything else is kUnrecognized, never silently taken as a commit.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/actions.h"

namespace deltacommit {

enum class LogFileType {
  kCommit,
  kClassicCheckpoint,
  kMultiPartCheckpoint,
  kV2Checkpoint,
  kChecksum,
  kCompactedCommit,
  kStagedCommit,
  kLastCheckpoint,
  kSidecar,
  kTemp,
  kUnrecognized,
};

std::string_view LogFileTypeName(LogFileType type);

struct ParsedLogPath {
  LogFileType type = LogFileType::kUnrecognized;
  Version version = -1;       // commit/checkpoint/checksum/staged; compacted: start
  Version end_version = -1;   // compacted only
  int32_t part = 0;           // multi-part only, 1-based
  int32_t num_parts = 0;      // multi-part only
  std::string uuid;           // v2 checkpoint, staged commit, temp
  std::string extension;      // "json" or "parquet" where it varies
  friend bool operator==(const ParsedLogPath&, const ParsedLogPath&) = default;
};

// Parses a path relative to `_delta_log/` (e.g. "00000000000000000007.json",
// "_staged_commits/00000000000000000007.<uuid>.json"). A path with any other
// directory part, a version that is not exactly 20 digits, a part number of 0
// or above num_parts, or a malformed UUID is kUnrecognized.
ParsedLogPath ParseLogPath(std::string_view relative_path);

// "00000000000000000007"
std::string FormatVersion(Version version);

// Paths relative to the table root, e.g. "_delta_log/00000000000000000007.json".
inline constexpr std::string_view kLogDir = "_delta_log/";
std::string CommitPath(Version version);
// "00000000000000000007.json": a commit's name inside _delta_log/ (the
// fileName of s3-dynamodb entries).
std::string CommitFileName(Version version);
std::string ChecksumPath(Version version);
std::string ClassicCheckpointPath(Version version);
std::string MultiPartCheckpointPath(Version version, int32_t part, int32_t num_parts);
std::string V2CheckpointPath(Version version, std::string_view uuid, std::string_view extension);
std::string StagedCommitPath(Version version, std::string_view uuid);
std::string LastCheckpointPath();
// "_delta_log/.tmp/<v>.json.<uuid>" (the s3-dynamodb temp name).
std::string TempCommitPath(Version version, std::string_view uuid);

// A new random (v4) UUID, lower-case with dashes.
std::string NewUuid();
// A UUID's 16 bytes (big endian, as deletion vectors and variants hold
// them) as that text: 8-4-4-4-12 lower-case hex digits.
std::string UuidText(std::string_view bytes);

}  // namespace deltacommit
