// Fuzz target: names under `_delta_log/` (ParseLogPath,
// include/deltacommit/log_path.h). Invariants: a recognised name carries
// consistent fields for its type, and the formatter of its type (CommitPath,
// MultiPartCheckpointPath, ...) writes exactly the name back, so a file the
// library writes is read as the same file and no two names alias one entry.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "deltacommit/log_path.h"
#include "fuzz_check.h"

namespace {

using namespace deltacommit;

// `path` without the leading "_delta_log/" the formatters add.
std::string InLog(const std::string& path) {
  FUZZ_CHECK(path.starts_with(kLogDir));
  return path.substr(kLogDir.size());
}

// The name the library writes for `parsed`; empty for the types it never
// writes itself (sidecars, Hadoop companions).
std::string WrittenName(const ParsedLogPath& p) {
  switch (p.type) {
    case LogFileType::kCommit:
      return CommitFileName(p.version);
    case LogFileType::kClassicCheckpoint:
      return InLog(ClassicCheckpointPath(p.version));
    case LogFileType::kMultiPartCheckpoint:
      return InLog(MultiPartCheckpointPath(p.version, p.part, p.num_parts));
    case LogFileType::kV2Checkpoint:
      return InLog(V2CheckpointPath(p.version, p.uuid, p.extension));
    case LogFileType::kChecksum:
      return InLog(ChecksumPath(p.version));
    case LogFileType::kCompactedCommit:
      return FormatVersion(p.version) + "." + FormatVersion(p.end_version) + ".compacted.json";
    case LogFileType::kStagedCommit:
      return InLog(StagedCommitPath(p.version, p.uuid));
    case LogFileType::kLastCheckpoint:
      return InLog(LastCheckpointPath());
    case LogFileType::kTemp:
      return p.version >= 0 ? InLog(TempCommitPath(p.version, p.uuid)) : std::string();
    case LogFileType::kSidecar:
    case LogFileType::kUnrecognized:
      return std::string();
  }
  return std::string();
}

bool HasVersion(LogFileType type) {
  switch (type) {
    case LogFileType::kCommit:
    case LogFileType::kClassicCheckpoint:
    case LogFileType::kMultiPartCheckpoint:
    case LogFileType::kV2Checkpoint:
    case LogFileType::kChecksum:
    case LogFileType::kCompactedCommit:
    case LogFileType::kStagedCommit:
      return true;
    default:
      return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  const ParsedLogPath parsed = ParseLogPath(name);
  FUZZ_CHECK(!LogFileTypeName(parsed.type).empty());
  if (parsed.type == LogFileType::kUnrecognized) {
    FUZZ_CHECK(parsed == ParsedLogPath{});
    return 0;
  }
  if (HasVersion(parsed.type)) FUZZ_CHECK(parsed.version >= 0);
  if (parsed.type == LogFileType::kMultiPartCheckpoint) {
    FUZZ_CHECK(parsed.part >= 1 && parsed.part <= parsed.num_parts);
  }
  if (parsed.type == LogFileType::kCompactedCommit) {
    FUZZ_CHECK(parsed.end_version >= parsed.version);
  }
  const std::string formatted = WrittenName(parsed);
  if (!formatted.empty()) FUZZ_CHECK(formatted == name);
  // Parsing is a function of the name alone.
  FUZZ_CHECK(ParseLogPath(std::string(name)) == parsed);
  return 0;
}
