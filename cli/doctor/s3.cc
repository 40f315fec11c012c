// The S3 side of `doctor`: the permissions every S3 mode needs, and each
// mode's own requirement (s3-conditional: If-None-Match enforced;
// s3-dynamodb: CopyObject; coordinated, for a table still to be created:
// If-None-Match, with which the writer puts version 0 itself).
//
// service and coordinated: the writer lists and reads `_delta_log/` itself,
// and the service reads and writes it with the writer's (session)
// credentials, so the same List/Get/Put probes apply; the probe object goes
// where those writes go, `_delta_log/_staged_commits/` (a policy may grant
// no more), under a name that is not a staged commit's, so readers and the
// service ignore it. If-None-Match on the writer's endpoint does not matter
// for their commits (the service decides versions, and the service's own
// endpoint setting says how it publishes), except for coordinated table
// creation. CopyObject is s3-dynamodb's alone.
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/s3_conditional_log_store.h"
#include "deltacommit/s3/s3_object_store.h"
#include "doctor/doctor.h"

namespace deltacommit::cli {
namespace {

// The check of the mode's own requirement, if it has one; `table_exists`
// when the listing found a commit.
std::optional<std::string> ModeCheckName(CommitMode mode, bool table_exists) {
  if (mode == CommitMode::kS3DynamoDb) return "CopyObject";
  if (mode == CommitMode::kS3Conditional) return "If-None-Match";
  // Coordinated writers create version 0 with PUT If-None-Match: *
  // (CoordinatedLogStore::WriteFirst); later versions go through the service.
  if (mode == CommitMode::kCoordinated && !table_exists) return "If-None-Match";
  return std::nullopt;
}

// Names of the checks, for skipping them.
std::vector<std::string> S3CheckNames(CommitMode mode) {
  std::vector<std::string> names = {"s3:ListBucket", "s3:GetObject", "s3:PutObject"};
  if (auto mode_check = ModeCheckName(mode, /*table_exists=*/false)) names.push_back(*mode_check);
  names.push_back("s3:DeleteObject");
  return names;
}

// Where the probe object goes: see the top of the file.
std::string ProbeKey(CommitMode mode) {
  const std::string dir = UsesCommitService(mode) ? "_staged_commits/" : ".tmp/";
  return std::string(kLogDir) + dir + "doctor-probe." + NewUuid();
}

// The latest commit in `listing`, if any.
std::optional<Version> LatestCommit(const std::vector<ObjectMeta>& listing) {
  std::optional<Version> latest;
  for (const ObjectMeta& m : listing) {
    if (!m.key.starts_with(kLogDir)) continue;
    ParsedLogPath p = ParseLogPath(std::string_view(m.key).substr(kLogDir.size()));
    if (p.type == LogFileType::kCommit && (!latest || p.version > *latest)) latest = p.version;
  }
  return latest;
}

// ListBucket on _delta_log/; returns the latest commit seen.
std::optional<Version> CheckList(S3ObjectStore& s3, DoctorReport& report, bool* listed) {
  const std::string where = s3.Describe() + "/" + std::string(kLogDir);
  auto listing = s3.List(kLogDir);
  *listed = listing.ok();
  if (!listing.ok()) {
    report.Add("s3:ListBucket", Verdict::kFail, listing.status().ToString());
    return std::nullopt;
  }
  std::optional<Version> latest = LatestCommit(*listing);
  report.Add("s3:ListBucket", Verdict::kOk,
             "listed " + where + ": " + std::to_string(listing->size()) +
                 (listing->size() == 1 ? " object" : " objects") +
                 (latest ? ", latest commit " + std::to_string(*latest) : " (no commits yet)"));
  return latest;
}

// GetObject of the latest commit, or of a key that cannot exist (404 proves
// the permission; 403 may also mean ListBucket is missing: S3 hides whether
// a key exists from callers who may not list).
void CheckGet(S3ObjectStore& s3, std::optional<Version> latest, bool listed,
              DoctorReport& report) {
  if (latest) {
    const std::string key = CommitPath(*latest);
    auto content = s3.Get(key);
    report.AddStatus("s3:GetObject", content.status(),
                     "read " + s3.Describe() + "/" + key + " (" +
                         std::to_string(content.ok() ? content->size() : 0) + " bytes)");
    return;
  }
  const std::string missing = std::string(kLogDir) + ".tmp/doctor-missing." + NewUuid();
  Status st = s3.Get(missing).status();
  if (st.IsNotFound()) {
    report.Add("s3:GetObject", Verdict::kOk,
               "allowed: a missing key (" + s3.Describe() + "/" + missing + ") gave NoSuchKey");
  } else if (st.ok()) {
    report.Add("s3:GetObject", Verdict::kOk, "allowed");
  } else {
    std::string note;
    if (st.code() == StatusCode::kPermissionDenied && !listed) {
      note = " (S3 answers 403 instead of 404 for a missing key without s3:ListBucket, so "
             "this may be the missing ListBucket permission)";
    }
    report.Add("s3:GetObject", Verdict::kFail, st.ToString() + note);
  }
}

// Deletes the probe objects; a denial leaves them (harmless: readers skip
// _delta_log/.tmp/), which the WARN names.
void CheckDelete(S3ObjectStore& s3, CommitMode mode, const std::vector<std::string>& keys,
                 DoctorReport& report) {
  std::string left;
  Status error;
  for (const std::string& key : keys) {
    Status st = s3.Delete(key);
    if (st.ok()) continue;
    left += (left.empty() ? "" : ", ") + s3.Describe() + "/" + key;
    error = st;
  }
  if (left.empty()) {
    report.Add("s3:DeleteObject", Verdict::kOk, "deleted the probe objects");
    return;
  }
  std::string why = mode == CommitMode::kS3Conditional
                        ? "s3-conditional deletes its If-None-Match probe the same way, so its "
                          "probes will be left too"
                    : mode == CommitMode::kS3DynamoDb
                        ? "s3-dynamodb itself does not delete"
                        : "staged commits that can never be ratified (refused ones, orphans) "
                          "will be left the same way, which is harmless";
  const std::string dir = UsesCommitService(mode) ? "_delta_log/_staged_commits/ that are not "
                                                    "ratified" : "_delta_log/.tmp/";
  report.Add("s3:DeleteObject", Verdict::kWarn,
             "the probe object " + left + " was left behind (harmless: readers skip files in " +
                 dir + "; delete it by hand); " + why + ": " + error.ToString());
}

// Coordinated table creation: a store that ignores If-None-Match lets two
// creators both write version 0, which only creating the table from one
// writer avoids (a WARN: every later commit goes through the service).
void CheckCoordinatedCreate(S3ObjectStore& s3, DoctorReport& report) {
  S3ConditionalLogStore conditional(s3, s3.config().service.endpoint_url, s3.config().bucket);
  Status st = conditional.VerifyConditionalPut();
  const std::string why = "the table has no commit yet, and a coordinated writer creates "
                          "version 0 with PUT If-None-Match: * itself, without the service";
  if (st.ok()) {
    report.Add("If-None-Match", Verdict::kOk, "the store enforces PUT If-None-Match: *; " + why);
  } else if (st.code() == StatusCode::kFailedPrecondition) {
    // st's message advises other modes, which is s3-conditional's advice.
    report.Add("If-None-Match", Verdict::kWarn,
               why + ", and the store at " + s3.config().service.endpoint_url +
                   " does not enforce it: two writers creating the table at once could both "
                   "write version 0 (a store that refuses the header fails the creation "
                   "instead); create it from one writer only (`deltacommit create`)");
  } else {
    report.Add("If-None-Match", Verdict::kFail, why + ": " + st.ToString());
  }
}

// The mode's own requirement, on the probe object already written.
void CheckModeRequirement(S3ObjectStore& s3, CommitMode mode, bool table_exists,
                          const std::string& probe, std::vector<std::string>& written,
                          DoctorReport& report) {
  if (!ModeCheckName(mode, table_exists)) return;
  if (mode == CommitMode::kCoordinated) return CheckCoordinatedCreate(s3, report);
  if (mode == CommitMode::kS3DynamoDb) {
    const std::string copy = probe + ".copy";
    Status st = s3.Copy(probe, copy, /*if_absent=*/false);
    if (st.ok()) written.push_back(copy);
    report.AddStatus("CopyObject", st,
                     "copied the probe to " + s3.Describe() + "/" + copy +
                         " as step 4 of a commit copies the temp object to N.json");
    return;
  }
  S3ConditionalLogStore conditional(s3, s3.config().service.endpoint_url, s3.config().bucket);
  report.AddStatus("If-None-Match", conditional.VerifyConditionalPut(),
                   "the store enforces PUT If-None-Match: * (a second conditional PUT of one "
                   "key was refused)");
}

}  // namespace

std::optional<Version> CheckS3Table(TableAdapters& table, DoctorReport& report) {
  auto* s3 = dynamic_cast<S3ObjectStore*>(table.store.get());
  if (s3 == nullptr) return std::nullopt;
  const bool have_credentials = CheckCredentials("S3", *table.credentials, SystemClock(), report);
  const std::string& endpoint = s3->config().service.endpoint_url;
  if (!CheckEndpoint("S3", endpoint, *table.http, SystemClock(), report)) {
    SkipChecks(S3CheckNames(table.mode), "S3 endpoint " + endpoint + " unreachable", report);
    return std::nullopt;
  }
  if (!have_credentials) {
    SkipChecks(S3CheckNames(table.mode), "no S3 credentials", report);
    return std::nullopt;
  }
  bool listed = false;
  std::optional<Version> latest = CheckList(*s3, report, &listed);
  CheckGet(*s3, latest, listed, report);
  // Unknown without a listing: then check what creating it would need.
  const bool table_exists = latest.has_value();
  const std::string probe = ProbeKey(table.mode);
  Status put = s3->Put(probe, "deltacommit doctor probe: safe to delete\n");
  report.AddStatus("s3:PutObject", put, "wrote " + s3->Describe() + "/" + probe);
  if (!put.ok()) {
    std::vector<std::string> skipped = {"s3:DeleteObject"};
    if (auto mode_check = ModeCheckName(table.mode, table_exists)) {
      skipped.insert(skipped.begin(), *mode_check);
    }
    SkipChecks(skipped, "s3:PutObject failed", report);
    return latest;
  }
  std::vector<std::string> written = {probe};
  CheckModeRequirement(*s3, table.mode, table_exists, probe, written, report);
  CheckDelete(*s3, table.mode, written, report);
  return latest;
}

}  // namespace deltacommit::cli
