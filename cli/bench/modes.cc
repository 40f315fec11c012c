#include "bench/modes.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "deltacommit/log_path.h"
#include "service/config/auth.h"
#include "shared/self_process.h"

namespace deltacommit::cli {
namespace {

bool Wanted(const std::vector<std::string>& modes, const std::string& mode) {
  return modes.empty() || std::find(modes.begin(), modes.end(), mode) != modes.end();
}

// A fresh lock table, so that the bench's entries meet no others'.
StatusOr<std::string> CreateLockTable(const ModeRequest& r, const std::string& name) {
  const std::string out = r.work_dir + "/dynamodb-create-table.out";
  if (RunSelf(r.self, {"dynamodb", "create-table", "--table-name", name}, out) != 0) {
    return UnavailableError("s3-dynamodb: deltacommit dynamodb create-table --table-name " +
                            name + " failed (leave the mode out with --modes): " +
                            ReadChildOutput(out + ".err"));
  }
  return name;
}

// Where the service and coordinated modes' tables go: under the S3 root,
// or, without a bucket, in a local directory the service serves as its
// [local] root (no cloud account needed).
std::string ServiceTableRoot(const ModeRequest& r) {
  if (!r.bucket.empty()) return r.s3_root;
  return std::filesystem::absolute(r.work_dir + "/service-tables").lexically_normal().string();
}

// Starts the service the service and coordinated modes share; the writers
// find its token in their environment, never on a command line.
Status StartService(const ModeRequest& r, ModeSetup& setup) {
  const std::string token = "bench-" + NewUuid() + NewUuid();
  ServeChildSettings settings;
  settings.self = r.self;
  settings.dir = r.work_dir + "/serve";
  settings.table_prefix = r.bucket.empty() ? "file://" + ServiceTableRoot(r) : r.s3_root;
  settings.token_sha256 = service::HashToken(token);
  settings.workers = r.service_workers;
  if (r.bucket.empty()) settings.local_root = ServiceTableRoot(r);
  StatusOr<std::unique_ptr<ServeChild>> service = ServeChild::Start(settings);
  if (!service.ok()) {
    return service.status().WithContext("service and coordinated modes: the commit service");
  }
  setup.service = std::move(*service);
  setenv("DELTACOMMIT_SERVICE_TOKEN", token.c_str(), 1);
  setup.notes.push_back("service: deltacommit serve at " + setup.service->url() +
                        " (SQLite state, " + std::to_string(r.service_workers) + " workers, " +
                        (r.bucket.empty() ? "local tables under " + ServiceTableRoot(r)
                                          : "S3 tables") +
                        "), log " + setup.service->log_path());
  return OkStatus();
}

// The raw primitive each target rests on, once each.
void AddRawTargets(const ModeRequest& r, ModeSetup& setup) {
  for (const ModeTarget& t : setup.targets) {
    const std::string primitive = RawPrimitiveOf(t.mode, !r.bucket.empty());
    if (std::any_of(setup.raw.begin(), setup.raw.end(),
                    [&](const RawTarget& raw) { return raw.primitive == primitive; })) {
      continue;
    }
    if (primitive == "link") {
      setup.raw.push_back({primitive, r.work_dir + "/raw", {}});
    } else if (primitive == "s3-put") {
      setup.raw.push_back({primitive, r.s3_root + "/raw", {"--log-store", "s3-conditional"}});
    } else {
      setup.raw.push_back({primitive, r.s3_root + "/raw", t.options});  // the lock table
    }
  }
}

}  // namespace

std::string RawPrimitiveOf(const std::string& mode, bool on_s3) {
  if (mode == "s3-dynamodb") return "dynamodb-put";
  if (mode == "s3-conditional") return "s3-put";
  if (mode == "local") return "link";
  return on_s3 ? "s3-put" : "link";
}

StatusOr<ModeSetup> SetUpModes(const ModeRequest& r) {
  ModeSetup setup;
  for (const std::string& mode : kBenchModes) {
    if (!Wanted(r.modes, mode)) continue;
    if (mode == "local") {
      setup.targets.push_back({mode, r.work_dir + "/tables", {}});
      continue;
    }
    const bool s3_only = mode == "s3-conditional" || mode == "s3-dynamodb";
    if (r.bucket.empty() && s3_only) {
      if (!r.modes.empty()) {
        return InvalidArgumentError("--modes " + mode +
                                    ": needs --bucket BUCKET (an S3 bucket for its tables; the "
                                    "endpoint and credentials come from the AWS environment)");
      }
      setup.skipped.push_back(mode + ": no --bucket given (S3 modes need a bucket for their "
                              "tables)");
      continue;
    }
    if (mode == "s3-conditional") {
      setup.targets.push_back({mode, r.s3_root, {"--log-store", mode}});
    } else if (mode == "s3-dynamodb") {
      DC_ASSIGN_OR_RETURN(const std::string lock_table,
                          CreateLockTable(r, "dl_bench_" + NewUuid().substr(0, 8)));
      setup.notes.push_back("s3-dynamodb: lock table " + lock_table +
                            " (created for this run; delete it when done)");
      setup.targets.push_back(
          {mode,
           r.s3_root,
           {"--log-store", mode, "--storage-option",
            "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=" + lock_table}});
    } else {
      if (setup.service == nullptr) {
        DC_RETURN_IF_ERROR(StartService(r, setup));
      }
      setup.targets.push_back({mode,
                               ServiceTableRoot(r),
                               {"--log-store", mode, "--service-url", setup.service->url()}});
    }
  }
  AddRawTargets(r, setup);
  return setup;
}

}  // namespace deltacommit::cli
