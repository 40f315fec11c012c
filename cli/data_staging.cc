#include "data_staging.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "deltacommit/percent_encoding.h"

namespace deltacommit::cli {
namespace {

Status Failure(std::string_view what, const std::string& path) {
  return InternalError(std::string(what) + " " + path + ": " + std::strerror(errno));
}

}  // namespace

StatusOr<StagingDir> StagingDir::Create() {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = (dir != nullptr && *dir != '\0') ? dir : "/tmp";
  pattern += "/deltacommit-data-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return Failure("mkdtemp", pattern);
  return StagingDir(pattern);
}

StagingDir::~StagingDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

StatusOr<std::string> StagingDir::SaveStdin(std::string_view name) {
  const std::string path = path_ + "/" + std::string(name);
  std::ofstream out(path, std::ios::binary);
  if (!out) return Failure("create", path);
  // Streaming an empty stdin sets failbit on `out`; that is an empty input
  // (reported as such by the converter), not a write failure.
  if (std::cin.rdbuf()->sgetc() != std::char_traits<char>::eof()) out << std::cin.rdbuf();
  out.close();
  if (out.bad()) return Failure("write", path);
  return path;
}

StatusOr<int64_t> LocalFileSize(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Failure("stat", path);
  return static_cast<int64_t>(st.st_size);
}

Status UploadFile(ObjectStore& store, const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Failure("open", path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return store.Put(key, bytes.str()).WithContext("writing " + store.Describe() + "/" + key);
}

Status DownloadDataFile(ObjectStore& store, const AddFile& add, const std::string& local) {
  if (add.path.find("://") != std::string::npos || add.path.starts_with("/") ||
      add.path.starts_with("file:")) {
    return InvalidArgumentError("data file \"" + add.path +
                                "\" has an absolute path; only paths relative to the table are "
                                "supported here");
  }
  DC_ASSIGN_OR_RETURN(std::string key, PercentDecode(add.path));
  DC_ASSIGN_OR_RETURN(std::string bytes, store.Get(key));
  std::ofstream out(local, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Failure("write", local);
  return OkStatus();
}

Status CheckDataCommandSupported(const Snapshot& snapshot, bool deletion_vectors,
                                 std::string_view command) {
  const auto& config = snapshot.metadata().configuration;
  if (auto it = config.find("delta.columnMapping.mode");
      it != config.end() && it->second != "none") {
    return UnimplementedError(std::string(command) +
                              ": the table uses column mapping (delta.columnMapping.mode=" +
                              it->second + "), which this command does not support");
  }
  if (!deletion_vectors) return OkStatus();
  for (const auto& [key, add] : snapshot.active_files()) {
    if (add.deletion_vector) {
      return UnimplementedError(std::string(command) + ": data file " + add.path +
                                " has a deletion vector, which this command does not apply; "
                                "refusing rather than returning deleted rows");
    }
  }
  return OkStatus();
}

}  // namespace deltacommit::cli
