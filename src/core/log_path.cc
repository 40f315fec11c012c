#include "deltacommit/log_path.h"

#include <cassert>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace deltacommit {
namespace {

// Widths fixed by PROTOCOL.md ("Delta Log Entries", "Checkpoints").
constexpr size_t kVersionDigits = 20;
constexpr size_t kPartDigits = 10;
constexpr size_t kUuidLength = 36;  // 8-4-4-4-12

constexpr std::string_view kJson = "json";
constexpr std::string_view kParquet = "parquet";
constexpr std::string_view kCheckpointInfix = ".checkpoint.";
constexpr std::string_view kCompactedSuffix = ".compacted.json";
constexpr std::string_view kLastCheckpointName = "_last_checkpoint";
constexpr std::string_view kStagedCommitsDir = "_staged_commits";
constexpr std::string_view kSidecarsDir = "_sidecars";
constexpr std::string_view kTmpDir = ".tmp";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Parses exactly `text` as an unsigned decimal of exactly `width` digits.
// std::from_chars alone would take a leading '-', so digits are checked first.
template <typename Int>
std::optional<Int> ParseFixedDigits(std::string_view text, size_t width) {
  if (text.size() != width) return std::nullopt;
  for (char c : text) {
    if (!IsDigit(c)) return std::nullopt;
  }
  Int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;  // overflow
  return value;
}

std::optional<Version> ParseVersion(std::string_view text) {
  return ParseFixedDigits<Version>(text, kVersionDigits);
}

// Canonical 8-4-4-4-12 form; either case, since object stores and other
// writers do not agree on one.
bool IsUuid(std::string_view text) {
  if (text.size() != kUuidLength) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool dash_position = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_position ? text[i] != '-' : !IsHexDigit(text[i])) return false;
  }
  return true;
}

// Removes `prefix` from `*text` if it is there.
bool ConsumePrefix(std::string_view* text, std::string_view prefix) {
  if (!text->starts_with(prefix)) return false;
  text->remove_prefix(prefix.size());
  return true;
}

bool ConsumeSuffix(std::string_view* text, std::string_view suffix) {
  if (!text->ends_with(suffix)) return false;
  text->remove_suffix(suffix.size());
  return true;
}

// Hadoop-style hidden companions: `.<name>.tmp` (written then renamed by
// HDFS/local log stores) and `.<name>.crc` (ChecksumFileSystem's checksum of
// <name>). They sit beside any file Hadoop writes, so they are accepted in
// every directory this parser knows. Never part of the log's contents.
bool IsHiddenCompanion(std::string_view name) {
  if (!ConsumePrefix(&name, ".")) return false;
  if (!ConsumeSuffix(&name, ".tmp") && !ConsumeSuffix(&name, ".crc")) {
    return false;
  }
  return !name.empty();
}

ParsedLogPath Unrecognized() { return ParsedLogPath{}; }

ParsedLogPath Make(LogFileType type, Version version) {
  ParsedLogPath parsed;
  parsed.type = type;
  parsed.version = version;
  return parsed;
}

ParsedLogPath MakeWithUuid(LogFileType type, Version version,
                           std::string_view uuid) {
  ParsedLogPath parsed = Make(type, version);
  parsed.uuid.assign(uuid);
  return parsed;
}

// `rest` follows "<v>.checkpoint.": "parquet", "<p>.<n>.parquet" or
// "<uuid>.json|parquet". The three lengths differ, so there is no ambiguity.
ParsedLogPath ParseCheckpoint(Version version, std::string_view rest) {
  if (rest == kParquet) return Make(LogFileType::kClassicCheckpoint, version);
  std::string_view stem = rest;
  if (ConsumeSuffix(&stem, ".parquet") && stem.size() == 2 * kPartDigits + 1 &&
      stem[kPartDigits] == '.') {
    auto part =
        ParseFixedDigits<int32_t>(stem.substr(0, kPartDigits), kPartDigits);
    auto num_parts =
        ParseFixedDigits<int32_t>(stem.substr(kPartDigits + 1), kPartDigits);
    if (!part || !num_parts || *part < 1 || *part > *num_parts) {
      return Unrecognized();
    }
    ParsedLogPath parsed = Make(LogFileType::kMultiPartCheckpoint, version);
    parsed.part = *part;
    parsed.num_parts = *num_parts;
    return parsed;
  }
  const size_t dot = rest.find('.');
  if (dot != kUuidLength) return Unrecognized();
  const std::string_view uuid = rest.substr(0, dot);
  const std::string_view extension = rest.substr(dot + 1);
  if (!IsUuid(uuid) || (extension != kJson && extension != kParquet)) {
    return Unrecognized();
  }
  ParsedLogPath parsed =
      MakeWithUuid(LogFileType::kV2Checkpoint, version, uuid);
  parsed.extension.assign(extension);
  return parsed;
}

// `rest` follows "<v1>.": "<v2>.compacted.json".
ParsedLogPath ParseCompacted(Version start, std::string_view rest) {
  if (!ConsumeSuffix(&rest, kCompactedSuffix)) return Unrecognized();
  auto end = ParseVersion(rest);
  if (!end || *end < start) return Unrecognized();
  ParsedLogPath parsed = Make(LogFileType::kCompactedCommit, start);
  parsed.end_version = *end;
  return parsed;
}

// A file directly in `_delta_log/`.
ParsedLogPath ParseTopLevel(std::string_view name) {
  if (name == kLastCheckpointName) {
    return Make(LogFileType::kLastCheckpoint, -1);
  }
  if (IsHiddenCompanion(name)) return Make(LogFileType::kTemp, -1);
  if (name.size() <= kVersionDigits || name[kVersionDigits] != '.') {
    return Unrecognized();
  }
  auto version = ParseVersion(name.substr(0, kVersionDigits));
  if (!version) return Unrecognized();
  const std::string_view suffix = name.substr(kVersionDigits);  // ".json"...
  if (suffix == ".json") return Make(LogFileType::kCommit, *version);
  if (suffix == ".crc") return Make(LogFileType::kChecksum, *version);
  std::string_view rest = suffix;
  if (ConsumePrefix(&rest, kCheckpointInfix)) {
    return ParseCheckpoint(*version, rest);
  }
  rest.remove_prefix(1);  // the '.'
  return ParseCompacted(*version, rest);
}

// `_staged_commits/<v>.<uuid>.json`.
ParsedLogPath ParseStagedCommit(std::string_view name) {
  if (!ConsumeSuffix(&name, ".json")) return Unrecognized();
  if (name.size() != kVersionDigits + 1 + kUuidLength ||
      name[kVersionDigits] != '.') {
    return Unrecognized();
  }
  auto version = ParseVersion(name.substr(0, kVersionDigits));
  const std::string_view uuid = name.substr(kVersionDigits + 1);
  if (!version || !IsUuid(uuid)) return Unrecognized();
  return MakeWithUuid(LogFileType::kStagedCommit, *version, uuid);
}

// `.tmp/<v>.json.<uuid>`: BaseExternalLogStore's createTemporaryPath.
ParsedLogPath ParseTmpDirEntry(std::string_view name) {
  constexpr std::string_view kInfix = ".json.";
  if (name.size() != kVersionDigits + kInfix.size() + kUuidLength ||
      name.substr(kVersionDigits, kInfix.size()) != kInfix) {
    return Unrecognized();
  }
  auto version = ParseVersion(name.substr(0, kVersionDigits));
  const std::string_view uuid = name.substr(kVersionDigits + kInfix.size());
  if (!version || !IsUuid(uuid)) return Unrecognized();
  return MakeWithUuid(LogFileType::kTemp, *version, uuid);
}

// `_sidecars/<name>.parquet|json`. The protocol only asks for a unique name;
// a hidden (dot-prefixed) one is never a sidecar.
ParsedLogPath ParseSidecar(std::string_view name) {
  std::string_view stem = name;
  std::string_view extension;
  if (ConsumeSuffix(&stem, ".parquet")) {
    extension = kParquet;
  } else if (ConsumeSuffix(&stem, ".json")) {
    extension = kJson;
  } else {
    return Unrecognized();
  }
  if (stem.empty() || stem.front() == '.') return Unrecognized();
  ParsedLogPath parsed = Make(LogFileType::kSidecar, -1);
  parsed.extension.assign(extension);
  return parsed;
}

ParsedLogPath ParseInSubdirectory(std::string_view dir, std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos) {
    return Unrecognized();
  }
  const bool known_dir =
      dir == kStagedCommitsDir || dir == kSidecarsDir || dir == kTmpDir;
  if (!known_dir) return Unrecognized();
  if (IsHiddenCompanion(name)) return Make(LogFileType::kTemp, -1);
  if (dir == kStagedCommitsDir) return ParseStagedCommit(name);
  if (dir == kSidecarsDir) return ParseSidecar(name);
  return ParseTmpDirEntry(name);
}

// Writes `value` zero-padded to `width` digits. A negative value (a caller
// bug) is written as '-' followed by its magnitude padded to width - 1 (for a
// version still 20 characters, INT64_MIN included). The parser accepts no
// name with a '-' there, so a bad version never aliases a real log entry.
void AppendPadded(std::string* out, int64_t value, size_t width) {
  char digits[24];
  uint64_t magnitude = static_cast<uint64_t>(value);
  if (value < 0) {
    out->push_back('-');
    magnitude = 0 - magnitude;  // well defined, also for INT64_MIN
    --width;
  }
  auto [ptr, ec] = std::to_chars(digits, digits + sizeof(digits), magnitude);
  (void)ec;  // 24 chars always hold a uint64_t
  const auto length = static_cast<size_t>(ptr - digits);
  if (length < width) out->append(width - length, '0');
  out->append(digits, length);
}

std::string LogPathFor(Version version, std::string_view suffix) {
  assert(version >= 0);
  std::string path;
  path.reserve(kLogDir.size() + kVersionDigits + suffix.size());
  path.append(kLogDir);
  AppendPadded(&path, version, kVersionDigits);
  path.append(suffix);
  return path;
}

}  // namespace

std::string_view LogFileTypeName(LogFileType type) {
  switch (type) {
    case LogFileType::kCommit:
      return "Commit";
    case LogFileType::kClassicCheckpoint:
      return "ClassicCheckpoint";
    case LogFileType::kMultiPartCheckpoint:
      return "MultiPartCheckpoint";
    case LogFileType::kV2Checkpoint:
      return "V2Checkpoint";
    case LogFileType::kChecksum:
      return "Checksum";
    case LogFileType::kCompactedCommit:
      return "CompactedCommit";
    case LogFileType::kStagedCommit:
      return "StagedCommit";
    case LogFileType::kLastCheckpoint:
      return "LastCheckpoint";
    case LogFileType::kSidecar:
      return "Sidecar";
    case LogFileType::kTemp:
      return "Temp";
    case LogFileType::kUnrecognized:
      return "Unrecognized";
  }
  return "Unrecognized";
}

// Runs on every listed file of the log: string_view slicing only, and the
// result's strings are filled only once a name is accepted, so a rejected
// name costs no allocation.
ParsedLogPath ParseLogPath(std::string_view relative_path) {
  const size_t slash = relative_path.find('/');
  if (slash == std::string_view::npos) return ParseTopLevel(relative_path);
  return ParseInSubdirectory(relative_path.substr(0, slash),
                             relative_path.substr(slash + 1));
}

// REQUIRES: version >= 0. Asserted in debug builds; in release a negative
// version yields "-" + 19 digits (e.g. "-0000000000000000001") rather than
// clamping to 0, so a buggy caller cannot write or read version 0's files.
std::string FormatVersion(Version version) {
  assert(version >= 0);
  std::string text;
  text.reserve(kVersionDigits);
  AppendPadded(&text, version, kVersionDigits);
  return text;
}

std::string CommitPath(Version version) { return LogPathFor(version, ".json"); }

std::string CommitFileName(Version version) { return FormatVersion(version) + ".json"; }

std::string ChecksumPath(Version version) {
  return LogPathFor(version, ".crc");
}

std::string ClassicCheckpointPath(Version version) {
  return LogPathFor(version, ".checkpoint.parquet");
}

// REQUIRES: 1 <= part <= num_parts. Otherwise (release) the name is written
// anyway and ParseLogPath rejects it.
std::string MultiPartCheckpointPath(Version version, int32_t part,
                                    int32_t num_parts) {
  assert(part >= 1 && part <= num_parts);
  std::string path = LogPathFor(version, kCheckpointInfix);
  AppendPadded(&path, part, kPartDigits);
  path.push_back('.');
  AppendPadded(&path, num_parts, kPartDigits);
  path.append(".parquet");
  return path;
}

// REQUIRES: uuid is a canonical UUID; extension is "json" or "parquet".
std::string V2CheckpointPath(Version version, std::string_view uuid,
                             std::string_view extension) {
  assert(IsUuid(uuid));
  assert(extension == kJson || extension == kParquet);
  std::string path = LogPathFor(version, kCheckpointInfix);
  path.append(uuid);
  path.push_back('.');
  path.append(extension);
  return path;
}

// REQUIRES: uuid is a canonical UUID.
std::string StagedCommitPath(Version version, std::string_view uuid) {
  assert(version >= 0);
  assert(IsUuid(uuid));
  std::string path(kLogDir);
  path.append(kStagedCommitsDir);
  path.push_back('/');
  AppendPadded(&path, version, kVersionDigits);
  path.push_back('.');
  path.append(uuid);
  path.append(".json");
  return path;
}

std::string LastCheckpointPath() {
  std::string path(kLogDir);
  path.append(kLastCheckpointName);
  return path;
}

// REQUIRES: uuid is a canonical UUID.
std::string TempCommitPath(Version version, std::string_view uuid) {
  assert(version >= 0);
  assert(IsUuid(uuid));
  std::string path(kLogDir);
  path.append(kTmpDir);
  path.push_back('/');
  AppendPadded(&path, version, kVersionDigits);
  path.append(".json.");
  path.append(uuid);
  return path;
}

}  // namespace deltacommit
