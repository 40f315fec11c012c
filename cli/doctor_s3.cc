// The S3 side of `doctor`: the permissions both S3 modes need, and each
// mode's own requirement (s3-conditional: If-None-Match enforced;
// s3-dynamodb: CopyObject).
#include "adapters/s3/s3_conditional_log_store.h"
#include "adapters/s3/s3_object_store.h"
#include "deltacommit/log_path.h"
#include "doctor.h"

namespace deltacommit::cli {
namespace {

// Names of the checks, for skipping them.
std::vector<std::string> S3CheckNames(const std::string& mode) {
  std::vector<std::string> names = {"s3:ListBucket", "s3:GetObject", "s3:PutObject"};
  names.push_back(mode == "s3-dynamodb" ? "CopyObject" : "If-None-Match");
  names.push_back("s3:DeleteObject");
  return names;
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
void CheckDelete(S3ObjectStore& s3, const std::string& mode, const std::vector<std::string>& keys,
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
  std::string why = mode == "s3-conditional"
                        ? "s3-conditional deletes its If-None-Match probe the same way, so its "
                          "probes will be left too"
                        : "s3-dynamodb itself does not delete";
  report.Add("s3:DeleteObject", Verdict::kWarn,
             "the probe object " + left +
                 " was left behind (harmless: readers skip _delta_log/.tmp/; delete it by "
                 "hand); " + why + ": " + error.ToString());
}

// The mode's own requirement, on the probe object already written.
void CheckModeRequirement(S3ObjectStore& s3, const std::string& mode, const std::string& probe,
                          std::vector<std::string>& written, DoctorReport& report) {
  if (mode == "s3-dynamodb") {
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

void CheckS3Table(OpenTable& table, DoctorReport& report) {
  auto* s3 = dynamic_cast<S3ObjectStore*>(table.store.get());
  if (s3 == nullptr) return;
  const bool have_credentials = CheckCredentials("S3", *table.credentials, SystemClock(), report);
  const std::string& endpoint = s3->config().service.endpoint_url;
  if (!CheckEndpoint("S3", endpoint, *table.http, SystemClock(), report)) {
    return SkipChecks(S3CheckNames(table.mode), "S3 endpoint " + endpoint + " unreachable", report);
  }
  if (!have_credentials) return SkipChecks(S3CheckNames(table.mode), "no S3 credentials", report);
  bool listed = false;
  std::optional<Version> latest = CheckList(*s3, report, &listed);
  CheckGet(*s3, latest, listed, report);
  const std::string probe = std::string(kLogDir) + ".tmp/doctor-probe." + NewUuid();
  Status put = s3->Put(probe, "deltacommit doctor probe: safe to delete\n");
  report.AddStatus("s3:PutObject", put, "wrote " + s3->Describe() + "/" + probe);
  if (!put.ok()) {
    const char* mode_check = table.mode == "s3-dynamodb" ? "CopyObject" : "If-None-Match";
    return SkipChecks({mode_check, "s3:DeleteObject"}, "s3:PutObject failed", report);
  }
  std::vector<std::string> written = {probe};
  CheckModeRequirement(*s3, table.mode, probe, written, report);
  CheckDelete(*s3, table.mode, written, report);
}

}  // namespace deltacommit::cli
