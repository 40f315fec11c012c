// The local side of `doctor`: the table directory, its _delta_log, and that
// the file system has what the local log store commits with: an atomic
// create-if-absent (link(2) of a temp file, which fails with EEXIST when the
// name is taken).
#include <filesystem>

#include "deltacommit/log_path.h"
#include "deltacommit/posix/posix_object_store.h"
#include "doctor/doctor.h"

namespace deltacommit::cli {
namespace {

namespace fs = std::filesystem;

// `path` itself or its nearest ancestor that exists.
fs::path NearestExisting(fs::path path) {
  std::error_code ec;
  while (!fs::exists(path, ec) && path.has_parent_path() && path != path.parent_path()) {
    path = path.parent_path();
  }
  return path;
}

// Where the probe goes: _delta_log if there is one, else the directory the
// table will be created in. False (and a FAIL) when that is not a directory.
bool CheckDirectory(const fs::path& root, fs::path* probe_dir, DoctorReport& report) {
  std::error_code ec;
  const fs::path log = root / "_delta_log";
  if (fs::is_directory(log, ec)) {
    report.Add("table directory", Verdict::kOk, root.string() + " exists");
    *probe_dir = log;
    return true;
  }
  if (fs::exists(root, ec) && !fs::is_directory(root, ec)) {
    report.Add("table directory", Verdict::kFail, root.string() + " exists but is not a directory");
    return false;
  }
  *probe_dir = NearestExisting(root);
  if (!fs::is_directory(*probe_dir, ec)) {
    report.Add("table directory", Verdict::kFail,
               probe_dir->string() + " (the nearest existing parent of " + root.string() +
                   ") is not a directory");
    return false;
  }
  report.Add("table directory", Verdict::kOk,
             *probe_dir == root ? root.string() + " exists (no _delta_log yet: a new table)"
                                : root.string() + " does not exist yet: `deltacommit create` "
                                                  "makes it under " + probe_dir->string());
  return true;
}

void CheckLog(ObjectStore& store, const fs::path& root, DoctorReport& report) {
  std::error_code ec;
  if (!fs::is_directory(root / "_delta_log", ec)) return;
  auto listing = store.List(kLogDir);
  report.AddStatus("_delta_log readable", listing.status(),
                   "listed " + (root / "_delta_log").string() + ": " +
                       std::to_string(listing.ok() ? listing->size() : 0) + " files");
}

// Creates one probe name twice the way the local store commits: the first
// must succeed (writable), the second must fail with "already exists".
void CheckAtomicCreate(const fs::path& dir, DoctorReport& report) {
  PosixObjectStore probe_store(dir.string());
  // A leading '.' keeps Delta readers from ever looking at it.
  const std::string key = ".deltacommit-doctor-probe." + NewUuid();
  const std::string path = (dir / key).string();
  Status first = probe_store.PutIfAbsent(key, "1");
  report.AddStatus("writable", first, "created " + path);
  if (!first.ok()) {
    return SkipChecks({"atomic create-if-absent"}, "could not write in " + dir.string(), report);
  }
  Status second = probe_store.PutIfAbsent(key, "2");
  if (second.IsAlreadyExists()) {
    report.Add("atomic create-if-absent", Verdict::kOk,
               "a second create of one name failed with EEXIST (link(2)), as commits need");
  } else if (second.ok()) {
    report.Add("atomic create-if-absent", Verdict::kFail,
               "a second create of " + path + " succeeded: two writers could both commit "
               "one version on this file system");
  } else {
    report.Add("atomic create-if-absent", Verdict::kFail, second.ToString());
  }
  if (Status gone = probe_store.Delete(key); !gone.ok()) {
    report.Add("probe clean-up", Verdict::kWarn,
               "the probe file " + path + " was left behind: " + gone.ToString());
  }
}

}  // namespace

void CheckLocalTable(TableAdapters& table, DoctorReport& report) {
  const fs::path root(table.uri);
  fs::path probe_dir;
  if (!CheckDirectory(root, &probe_dir, report)) {
    return SkipChecks({"writable", "atomic create-if-absent"}, "no directory to write in", report);
  }
  CheckLog(*table.store, root, report);
  CheckAtomicCreate(probe_dir, report);
}

}  // namespace deltacommit::cli
