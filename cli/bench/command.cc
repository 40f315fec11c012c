// `deltacommit bench`: the same commit load against every commit mode in
// one run, on the same servers: local, s3-conditional, s3-dynamodb, and
// service and coordinated through a `deltacommit serve` it starts.
//
// For each writer count W it runs W `deltacommit demo-writer` processes x C
// commits, spread round-robin over K fresh tables per mode, the modes one
// after another at the same W so that the machine's noise hits them alike,
// and prints per mode commits/s, p50/p95/p99 commit latency (snapshot load
// + commit), retries and conflicts per commit, the ratios to a baseline
// mode (on a shared machine the ratios mean more than the times) and the
// remote calls per commit by kind (counted in the writers by the metering
// wrappers, DELTACOMMIT_METER=1). Every table is then checked against what
// its writers reported. Beside the modes, at each W, W `deltacommit
// demo-primitive` processes make C calls of each store's own commit
// primitive on fresh keys (link(2), a conditional PUT, a conditional
// PutItem), and each mode's p50 and commits/s are also given as ratios to
// those of the primitive it rests on.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/modes.h"
#include "bench/stats.h"
#include "bench/writers.h"
#include "commands.h"
#include "deltacommit/log_path.h"
#include "shared/output.h"
#include "shared/self_process.h"

namespace deltacommit::cli {
namespace {

struct BenchArgs {
  std::vector<int> writers = {1, 2, 4, 8};
  int commits = 20;
  int tables = 1;
  std::vector<std::string> modes;  // empty: every mode that can run
  std::string baseline;            // empty: s3-dynamodb when measured, else the first mode
  std::string mix = "blind";
  std::string data;
  std::string bucket;
  std::string prefix = "deltacommit-bench";
  std::string dir;
  bool keep = false;
  int service_workers = 4;
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

bool IsMode(const std::string& mode) {
  return std::find(kBenchModes.begin(), kBenchModes.end(), mode) != kBenchModes.end();
}

Status Validate(BenchArgs& a) {
  for (int w : a.writers) {
    if (w < 1) {
      return InvalidArgumentError("--writers: every writer count must be at least 1 (got " +
                                  std::to_string(w) + ")");
    }
  }
  if (a.writers.empty()) return InvalidArgumentError("--writers: give at least one count");
  if (a.commits < 1) return InvalidArgumentError("--commits must be at least 1");
  if (a.tables < 1) return InvalidArgumentError("--tables must be at least 1");
  if (a.service_workers < 1) return InvalidArgumentError("--service-workers must be at least 1");
  for (const std::string& m : a.modes) {
    if (!IsMode(m)) {
      return InvalidArgumentError("--modes \"" + m + "\": unknown mode (modes: " +
                                  Join(kBenchModes) + ")");
    }
  }
  if (!a.baseline.empty() && !IsMode(a.baseline)) {
    return InvalidArgumentError("--baseline \"" + a.baseline + "\": unknown mode (modes: " +
                                Join(kBenchModes) + ")");
  }
  if (a.mix != "blind" && a.mix != "remove") {
    return InvalidArgumentError("--mix \"" + a.mix + "\": use blind or remove");
  }
  if (a.bucket.find("://") != std::string::npos || a.bucket.find('/') != std::string::npos) {
    return InvalidArgumentError("--bucket \"" + a.bucket +
                                "\": a bucket name (the tables go under s3://BUCKET/--prefix)");
  }
  while (a.prefix.starts_with('/')) a.prefix.erase(0, 1);
  while (a.prefix.ends_with('/')) a.prefix.pop_back();
  if (a.prefix.empty()) return InvalidArgumentError("--prefix must not be empty");
  return OkStatus();
}

// The baseline of the ratios: as given (then it must be measured), else
// s3-dynamodb when measured, else the first mode measured.
StatusOr<std::string> Baseline(const BenchArgs& a, const ModeSetup& setup) {
  for (const ModeTarget& t : setup.targets) {
    if (t.mode == (a.baseline.empty() ? "s3-dynamodb" : a.baseline)) return t.mode;
  }
  if (!a.baseline.empty()) {
    return InvalidArgumentError("--baseline " + a.baseline + ": that mode is not measured in "
                                "this run (add it to --modes, or give --bucket)");
  }
  return setup.targets.front().mode;
}

// One run's context: what every mode at every W shares.
struct Bench {
  const BenchArgs& args;
  std::string self;
  std::string work_dir;
  std::ofstream data;
};

// One mode at one writer count: fresh tables, the writers, the figures,
// the check of the tables against the writers' reports.
StatusOr<RunStats> RunOne(Bench& b, const ModeTarget& target, int writers,
                          std::vector<int64_t>& log_versions) {
  const int tables = std::min(b.args.tables, writers);
  const std::string name = target.mode + "-w" + std::to_string(writers);
  const std::string scratch = b.work_dir + "/runs/" + name;
  DC_ASSIGN_OR_RETURN(std::vector<std::string> uris,
                      CreateTables(b.self, target, name, tables, scratch));
  WriterRun run;
  run.self = b.self;
  run.tables = std::move(uris);
  run.options = target.options;
  run.writers = writers;
  run.commits = b.args.commits;
  run.remove_one = b.args.mix == "remove";
  run.out_prefix = scratch;
  DC_ASSIGN_OR_RETURN(const std::vector<WriterOutput> outputs, RunWriters(run));
  StatusOr<RunStats> stats = ComputeStats(outputs);
  if (!stats.ok()) return stats.status().WithContext(name);
  stats->mode = target.mode;
  stats->raw = "raw " + RawPrimitiveOf(target.mode, !b.args.bucket.empty());
  stats->writers = writers;
  stats->tables = tables;
  const int64_t expected = int64_t{writers} * b.args.commits;
  if (stats->commits != expected) {
    return DataLossError(name + ": the writers reported " + std::to_string(stats->commits) +
                         " commit attempts, " + std::to_string(expected) + " expected");
  }
  DC_ASSIGN_OR_RETURN(log_versions, CheckTables(b.self, target, outputs, *stats, b.args.commits,
                                                b.args.mix == "blind", scratch));
  return stats;
}

// The raw primitive at one writer count: W demo-primitive processes x C
// calls on fresh keys of one root.
StatusOr<RunStats> RunRaw(Bench& b, const RawTarget& target, int writers) {
  const std::string name = "raw-" + target.primitive + "-w" + std::to_string(writers);
  WriterRun run;
  run.self = b.self;
  run.subcommand = "demo-primitive";
  run.extra = {"--primitive", target.primitive};
  run.tables = {target.table_root + "/" + name};
  run.options = target.options;
  run.writers = writers;
  run.commits = b.args.commits;
  run.checkpoint = false;
  run.out_prefix = b.work_dir + "/runs/" + name;
  DC_ASSIGN_OR_RETURN(const std::vector<WriterOutput> outputs, RunWriters(run));
  StatusOr<RunStats> stats = ComputeStats(outputs);
  if (!stats.ok()) return stats.status().WithContext(name);
  stats->mode = "raw " + target.primitive;
  stats->writers = writers;
  stats->tables = 1;
  if (stats->committed != int64_t{writers} * b.args.commits) {
    return DataLossError(name + ": " + std::to_string(stats->committed) + " of " +
                         std::to_string(int64_t{writers} * b.args.commits) + " calls reported");
  }
  return stats;
}

std::string VersionsText(const std::vector<int64_t>& versions) {
  std::string out;
  for (int64_t v : versions) out += (out.empty() ? "" : "+") + std::to_string(v);
  return out;
}

// Every mode at writer count `w`: their tables and the check's summary.
Status RunWriterCount(Bench& b, const ModeSetup& setup, const std::string& baseline, int w) {
  std::vector<RunStats> runs;
  std::string checked;
  for (const ModeTarget& target : setup.targets) {
    std::vector<int64_t> versions;
    StatusOr<RunStats> stats = RunOne(b, target, w, versions);
    if (!stats.ok()) {
      return stats.status().WithContext(target.mode + " at W = " + std::to_string(w));
    }
    runs.push_back(std::move(*stats));
    checked += (checked.empty() ? "" : ", ") + target.mode + " " + VersionsText(versions);
  }
  for (const RawTarget& raw : setup.raw) {
    StatusOr<RunStats> stats = RunRaw(b, raw, w);
    if (!stats.ok()) {
      return stats.status().WithContext("raw " + raw.primitive + " at W = " + std::to_string(w));
    }
    runs.push_back(std::move(*stats));
  }
  PrintTables(runs, baseline);
  std::printf("\nChecked against the logs (versions per table; group commit puts several "
              "appends in one): %s\n",
              checked.c_str());
  std::fflush(stdout);
  if (b.data.is_open()) b.data << DataLines(runs) << std::flush;
  return OkStatus();
}

void PrintHeader(const Bench& b, const ModeSetup& setup, const std::string& baseline,
                 const std::string& s3_root) {
  const BenchArgs& a = b.args;
  std::string writers;
  for (int w : a.writers) writers += (writers.empty() ? "" : ",") + std::to_string(w);
  std::vector<std::string> modes;
  for (const ModeTarget& t : setup.targets) modes.push_back(t.mode);
  std::printf("deltacommit bench: W = %s writer processes x %d commits each (%s), spread over "
              "%d table%s per mode (at most W)\n",
              writers.c_str(), a.commits,
              a.mix == "remove" ? "appends that each remove a random active file"
                                : "blind appends",
              a.tables, a.tables == 1 ? "" : "s");
  std::printf("  modes: %s; ratios to %s\n", Join(modes).c_str(), baseline.c_str());
  std::string raw;
  for (const RawTarget& t : setup.raw) raw += (raw.empty() ? "" : ", ") + t.primitive;
  std::printf("  raw primitives beside them (W processes x %d calls on fresh keys): %s\n",
              a.commits, raw.c_str());
  for (const std::string& why : setup.skipped) std::printf("  skipped %s\n", why.c_str());
  std::printf("  work directory: %s\n", b.work_dir.c_str());
  if (!a.bucket.empty()) std::printf("  S3 tables under %s\n", s3_root.c_str());
  for (const std::string& note : setup.notes) std::printf("  %s\n", note.c_str());
  std::fflush(stdout);
}

StatusOr<std::string> MakeWorkDir(const std::string& dir) {
  std::string path = dir;
  if (path.empty()) {
    char name[] = "/tmp/deltacommit-bench-XXXXXX";
    if (mkdtemp(name) == nullptr) return InternalError("cannot make a work directory in /tmp");
    path = name;
  }
  std::error_code ec;
  std::filesystem::create_directories(path + "/runs", ec);
  if (ec) return InvalidArgumentError("--dir " + path + ": " + ec.message());
  return path;
}

Status RunModes(Bench& b, ModeSetup& setup, const std::string& s3_root) {
  if (setup.targets.empty()) return InvalidArgumentError("no mode to measure (see above)");
  DC_ASSIGN_OR_RETURN(const std::string baseline, Baseline(b.args, setup));
  PrintHeader(b, setup, baseline, s3_root);
  for (int w : b.args.writers) {
    DC_RETURN_IF_ERROR(RunWriterCount(b, setup, baseline, w));
  }
  if (setup.service != nullptr) {
    DC_RETURN_IF_ERROR(setup.service->Stop());
  }
  return OkStatus();
}

int RunBench(BenchArgs& args, const std::string& self) {
  if (Status valid = Validate(args); !valid.ok()) return ReportError(valid);
  std::ofstream data;
  if (!args.data.empty()) {
    data.open(args.data, std::ios::trunc);
    if (!data) return ReportError(InvalidArgumentError("--data " + args.data + ": cannot write"));
    data << DataHeader();
  }
  StatusOr<std::string> work_dir = MakeWorkDir(args.dir);
  if (!work_dir.ok()) return ReportError(work_dir.status());
  Bench b{args, self, *work_dir, std::move(data)};
  setenv("DELTACOMMIT_METER", "1", 1);  // the writers inherit it
  const std::string s3_root = "s3://" + args.bucket + "/" + args.prefix + "/" + NewUuid();
  StatusOr<ModeSetup> setup = SetUpModes({.self = self,
                                          .modes = args.modes,
                                          .bucket = args.bucket,
                                          .s3_root = s3_root,
                                          .work_dir = b.work_dir,
                                          .service_workers = args.service_workers});
  const Status done = setup.ok() ? RunModes(b, *setup, s3_root) : setup.status();
  if (!done.ok() && setup.ok()) {
    for (const std::string& why : setup->skipped) std::cerr << "skipped " << why << "\n";
    // Drained, so that its log ends as after a run; the failure is the news.
    if (setup->service != nullptr) (void)setup->service->Stop();
  }
  // A failure keeps what the writers and the service left, which explains
  // it; a bad option leaves nothing worth reading.
  const bool keep = args.keep || !args.dir.empty() ||
                    (!done.ok() && done.code() != StatusCode::kInvalidArgument);
  if (!keep) {
    std::error_code ignored;
    std::filesystem::remove_all(b.work_dir, ignored);
  } else {
    (done.ok() ? std::cout : std::cerr) << "\nkept the work directory " << b.work_dir << "\n";
  }
  return done.ok() ? kExitOk : ReportError(done);
}

}  // namespace

void RegisterBench(CLI::App& app, int* exit_code, const char* self_path) {
  auto args = std::make_shared<BenchArgs>();
  const std::string self = SelfPath(self_path);
  CLI::App* cmd = app.add_subcommand(
      "bench", "Measure every commit mode side by side: W writer processes x C commits per mode");
  cmd->footer(
      "Modes: local (no servers), s3-conditional, s3-dynamodb, service and coordinated; the S3\n"
      "modes need --bucket, with the S3 endpoint and credentials from the AWS environment\n"
      "(AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, ...), s3-dynamodb DynamoDB too (it creates a\n"
      "lock table dl_bench_<id>), and service and coordinated run through a `deltacommit serve`\n"
      "the bench starts (SQLite state in the work directory) and stops with SIGTERM.\n"
      "Without --modes, the modes that cannot run are skipped and named.");
  cmd->add_option("--writers", args->writers, "Writer counts W, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--commits", args->commits, "Commits per writer (C)")->capture_default_str();
  cmd->add_option("--tables", args->tables,
                  "Tables per mode (K); the W writers are spread over them round-robin")
      ->capture_default_str();
  cmd->add_option("--modes", args->modes,
                  "Modes to measure, comma-separated (default: every one that can run)")
      ->delimiter(',');
  cmd->add_option("--baseline", args->baseline,
                  "Mode the ratios are to (default: s3-dynamodb when measured, else the first)");
  cmd->add_option("--mix", args->mix,
                  "blind: blind appends; remove: each commit also removes a random active file "
                  "(conflicts)")
      ->capture_default_str();
  cmd->add_option("--data", args->data,
                  "Write the figures as TSV to this file (for bench/commit_modes_plot.gp)");
  cmd->add_option("--bucket", args->bucket, "S3 bucket for the S3 modes' tables");
  cmd->add_option("--prefix", args->prefix,
                  "Key prefix of the S3 tables: s3://BUCKET/PREFIX/<run id>/...")
      ->capture_default_str();
  cmd->add_option("--dir", args->dir,
                  "Work directory: local tables, writer output, the service's config, state "
                  "and log (default: a new temp dir, removed after a successful run)");
  cmd->add_flag("--keep", args->keep, "Keep the work directory");
  cmd->add_option("--service-workers", args->service_workers,
                  "[server] workers of the service the bench starts")
      ->capture_default_str();
  cmd->callback([args, exit_code, self] { *exit_code = RunBench(*args, self); });
}

}  // namespace deltacommit::cli
