#include "deltacommit/parquet/duckdb_parquet_handler.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "adapters/parquet/checkpoint_actions.h"
#include "adapters/parquet/checkpoint_rows.h"
#include "adapters/parquet/duckdb_api.h"
#include "adapters/parquet/duckdb_handles.h"
#include "deltacommit/action_json.h"
#include "deltacommit/core/read_ahead.h"

namespace deltacommit {
namespace {

using parquet_internal::Connection;
using parquet_internal::MemoryFile;
using parquet_internal::Result;
using parquet_internal::TempFile;

constexpr std::string_view kSidecarDir = "_delta_log/_sidecars/";

std::string Where(const ObjectStore& store, std::string_view key) {
  return store.Describe() + " " + std::string(key);
}

void AppendJsonLines(std::string_view content, std::vector<std::string>& out) {
  while (!content.empty()) {
    const size_t end = content.find('\n');
    std::string_view line = content.substr(0, end);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) {
      out.emplace_back(line);
    }
    if (end == std::string_view::npos) break;
    content.remove_prefix(end + 1);
  }
}

// The sidecar files named by the `sidecar` actions among `lines`. Lines
// that do not parse are left to the caller's decoder to report.
StatusOr<std::vector<std::string>> SidecarKeys(
    const std::vector<std::string>& lines) {
  std::vector<std::string> keys;
  ActionParser parser;
  for (const std::string& line : lines) {
    if (line.find("\"sidecar\"") == std::string::npos) continue;
    auto action = parser.ParseLine(line);
    if (!action.ok()) continue;
    const auto* sidecar = std::get_if<Sidecar>(&action.value());
    if (sidecar == nullptr) continue;
    DC_ASSIGN_OR_RETURN(std::string key,
                        parquet_internal::SidecarKey(sidecar->path));
    keys.push_back(std::move(key));
  }
  return keys;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

StatusOr<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int high = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
    const int low = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return InvalidArgumentError("sidecar path \"" + std::string(text) +
                                  "\": bad %-escape at byte " +
                                  std::to_string(i));
    }
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

}  // namespace

namespace parquet_internal {

StatusOr<std::string> SidecarKey(std::string_view path) {
  std::string_view name = path;
  const bool absolute =
      path.starts_with('/') || path.find(':') != std::string_view::npos;
  if (absolute) {
    const size_t at = path.rfind("/" + std::string(kSidecarDir));
    if (at == std::string_view::npos) {
      return InvalidArgumentError("sidecar path \"" + std::string(path) +
                                  "\" is outside the table's " +
                                  std::string(kSidecarDir));
    }
    name = path.substr(at + 1 + kSidecarDir.size());
  }
  DC_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(name));
  if (decoded.empty() || decoded.find('/') != std::string::npos) {
    return InvalidArgumentError("sidecar path \"" + std::string(path) +
                                "\" does not name a file directly in " +
                                std::string(kSidecarDir));
  }
  std::string key = std::string(kSidecarDir) + decoded;
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  return key;
}

}  // namespace parquet_internal

StatusOr<std::unique_ptr<DuckDbParquetHandler>> DuckDbParquetHandler::Create(
    int concurrent_reads) {
  auto db = std::make_unique<Database>();
  DC_ASSIGN_OR_RETURN(db->opened, data_internal::Database::Open());
  Connection connection;
  if (duckdb_connect(db->opened->get(), connection.out()) != DuckDBSuccess) {
    return InternalError("duckdb: cannot connect to the in-memory database");
  }
  DC_RETURN_IF_ERROR(db->scans.Register(connection.get()));
  // Each file is read once, from bytes just fetched, under a path that the
  // next file may take (a memory file's /proc/self/fd/N). DuckDB's cache of
  // file contents, keyed by path, would have to tell the two apart by
  // modification time alone, and would only hold the bytes after the read.
  Result no_cache;
  if (duckdb_query(connection.get(), "SET enable_external_file_cache = false", no_cache.out()) !=
      DuckDBSuccess) {
    return InternalError("duckdb: cannot turn its file cache off: " +
                         data_internal::ErrorText(duckdb_result_error(no_cache.out())));
  }
  return std::unique_ptr<DuckDbParquetHandler>(
      new DuckDbParquetHandler(std::move(db), concurrent_reads));
}

DuckDbParquetHandler::DuckDbParquetHandler(std::unique_ptr<Database> db, int concurrent_reads)
    : db_(std::move(db)), concurrent_reads_(concurrent_reads) {}

DuckDbParquetHandler::~DuckDbParquetHandler() = default;

StatusOr<std::vector<std::string>> DuckDbParquetHandler::ReadCheckpointActions(
    ObjectStore& store, const std::vector<std::string>& keys) {
  std::vector<std::string> lines;
  DC_RETURN_IF_ERROR(ReadFiles(store, keys, {.lines = &lines}));
  // Sidecars hold only add and remove actions (PROTOCOL.md "Sidecar Files"),
  // so they name no further sidecars.
  DC_ASSIGN_OR_RETURN(std::vector<std::string> sidecars, SidecarKeys(lines));
  DC_RETURN_IF_ERROR(ReadFiles(store, sidecars, {.lines = &lines}));
  return lines;
}

StatusOr<std::vector<Action>> DuckDbParquetHandler::ReadCheckpoint(
    ObjectStore& store, const std::vector<std::string>& keys) {
  std::vector<Action> actions;
  const auto gather = [&actions](std::vector<Action>& batch) {
    if (actions.empty()) {
      actions = std::move(batch);
    } else {
      std::move(batch.begin(), batch.end(), std::back_inserter(actions));
    }
    return OkStatus();
  };
  DC_RETURN_IF_ERROR(ReadCheckpointInBatches(store, keys, gather));
  return actions;
}

Status DuckDbParquetHandler::ReadCheckpointInBatches(ObjectStore& store,
                                                     const std::vector<std::string>& keys,
                                                     const ActionBatch& apply) {
  // Sidecars hold only add and remove actions (PROTOCOL.md "Sidecar
  // Files"): those named in the top-level files are read, and any a sidecar
  // names is not (nor does it grow the list being read).
  std::vector<std::string> sidecars;
  bool top_level = true;
  // apply's own error, returned as it is: the reader adds the file's key
  // to its errors, and apply's are not about the file.
  Status applied;
  const ActionBatch batch = [&](std::vector<Action>& actions) -> Status {
    for (const Action& action : actions) {
      const auto* sidecar = std::get_if<Sidecar>(&action);
      if (sidecar == nullptr || !top_level) continue;
      DC_ASSIGN_OR_RETURN(std::string key, parquet_internal::SidecarKey(sidecar->path));
      sidecars.push_back(std::move(key));
    }
    applied = apply(actions);
    return applied;
  };
  std::vector<Action> actions;
  Status read = ReadFiles(store, keys, {.actions = &actions, .batch = &batch});
  if (read.ok()) {
    top_level = false;
    read = ReadFiles(store, sidecars, {.actions = &actions, .batch = &batch});
  }
  return applied.ok() ? read : applied;
}

Status DuckDbParquetHandler::ReadFiles(ObjectStore& store, const std::vector<std::string>& keys,
                                       Sink out) {
  ReadAhead reads([&store](const std::string& key) { return store.Get(key); }, keys,
                  concurrent_reads_);
  for (size_t i = 0; i < keys.size(); ++i) {
    DC_ASSIGN_OR_RETURN(std::string bytes, reads.Take(i));
    DC_RETURN_IF_ERROR(DecodeFile(store, keys[i], std::move(bytes), out));
    if (out.batch != nullptr && !out.actions->empty()) {
      DC_RETURN_IF_ERROR((*out.batch)(*out.actions));
      out.actions->clear();
    }
  }
  return OkStatus();
}

Status DuckDbParquetHandler::DecodeFile(const ObjectStore& store, const std::string& key,
                                        std::string bytes, Sink out) {
  if (!std::string_view(key).ends_with(".json")) {
    return DecodeParquet(store, key, std::move(bytes), out);
  }
  if (out.lines != nullptr) {
    AppendJsonLines(bytes, *out.lines);
    return OkStatus();
  }
  ActionParser parser;
  StatusOr<std::vector<Action>> actions = parser.ParseCommit(bytes);
  if (!actions.ok()) return actions.status().WithContext(Where(store, key));
  for (Action& action : *actions) out.actions->push_back(std::move(action));
  return OkStatus();
}

Status DuckDbParquetHandler::DecodeParquet(const ObjectStore& store, const std::string& key,
                                           std::string bytes, Sink out) {
  if (!parquet_internal::LooksLikeParquet(bytes)) {
    return DataLossError(Where(store, key) +
                         ": not a Parquet file (no PAR1 magic at its start "
                         "and end; " +
                         std::to_string(bytes.size()) + " bytes)");
  }
  MemoryFile memory;
  TempFile file;
  std::string path;
  if (memory.Write(bytes)) {
    path = memory.path();
  } else {
    DC_RETURN_IF_ERROR(file.Write(bytes).WithContext(Where(store, key)));
    path = file.path();
  }
  bytes = std::string();  // the file holds it now

  auto taken = db_->reads.Take(db_->opened->get());
  if (!taken.ok()) return taken.status().WithContext(Where(store, key));
  std::unique_ptr<parquet_internal::ParquetReads::Reader> reader = std::move(taken).value();
  // The query ends (and frees the reader's connection) before the reader
  // goes back for another read.
  const auto read = [&]() -> Status {
    if (duckdb_bind_varchar(reader->statement.handle, 1, path.c_str()) != DuckDBSuccess) {
      return InternalError("duckdb: cannot bind the path of " + Where(store, key));
    }
    parquet_internal::StreamedQuery query;
    const auto unreadable = [&] {
      return DataLossError(Where(store, key) + ": DuckDB cannot read it: " + query.Error());
    };
    if (!query.Start(reader->statement.handle)) return unreadable();
    const Status decoded = out.lines != nullptr
                               ? parquet_internal::AppendActionLines(query.result(), *out.lines)
                               : parquet_internal::AppendActions(query.result(), *out.actions,
                                                                 out.batch, kBatchRows);
    if (!decoded.ok()) return decoded.WithContext(Where(store, key));
    // A failure part way through ends the chunks as if the file ended there.
    if (!query.Error().empty()) return unreadable();
    return OkStatus();
  };
  const Status status = read();
  if (status.ok()) db_->reads.Give(std::move(reader));
  return status;
}

}  // namespace deltacommit
