// `deltacommit bench`: the commit modes it measures, each as a root for
// fresh tables and the table options its commands pass; their tables,
// created before a run and checked against the writers' reports after it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/stats.h"
#include "deltacommit/status.h"
#include "serve/child.h"

namespace deltacommit::cli {

// Every mode, in the order the report lists them.
inline const std::vector<std::string> kBenchModes = {"local", "s3-conditional", "s3-dynamodb",
                                                     "service", "coordinated"};

struct ModeTarget {
  std::string mode;
  std::string table_root;            // fresh tables go under it
  std::vector<std::string> options;  // --log-store ...: for create, demo-writer, snapshot
};

// A store's own commit primitive on fresh keys (`deltacommit
// demo-primitive`), run beside the modes that commit through it: the floor
// their latency is compared to.
struct RawTarget {
  std::string primitive;             // "link", "s3-put" or "dynamodb-put"
  std::string table_root;            // its keys go under <root>/raw-w<W>
  std::vector<std::string> options;  // table options (dynamodb-put: the lock table's)
};

// The primitive a mode's commit rests on: link (local, and the service
// modes without a bucket), s3-put (s3-conditional, and the service modes on
// S3), dynamodb-put (s3-dynamodb).
std::string RawPrimitiveOf(const std::string& mode, bool on_s3);

struct ModeRequest {
  std::string self;                // this binary
  std::vector<std::string> modes;  // as given by --modes; empty: every mode that can run
  std::string bucket;              // "" when no --bucket
  std::string s3_root;             // s3://bucket/prefix/<run id>
  std::string work_dir;
  int service_workers = 4;
};

struct ModeSetup {
  std::vector<ModeTarget> targets;
  std::vector<RawTarget> raw;  // one per primitive the targets rest on
  std::unique_ptr<ServeChild> service;  // service and coordinated
  std::vector<std::string> skipped;       // "s3-dynamodb: why it is not measured"
  std::vector<std::string> notes;         // what was set up, for the report's header
};

// The modes asked for that can run here. Without a bucket, service and
// coordinated run on local tables (the service serves the work directory's
// service-tables as its [local] root) and, without --modes, s3-conditional
// and s3-dynamodb are skipped (and said so); a mode asked for by name that
// cannot run is an error naming it. Starts `deltacommit serve` for
// service and coordinated (its token in DELTACOMMIT_SERVICE_TOKEN, which
// the writers inherit) and creates a DynamoDB lock table for s3-dynamodb.
StatusOr<ModeSetup> SetUpModes(const ModeRequest& request);

// Creates `count` fresh tables <name>-t<k> under the target's root
// (`deltacommit create`); their URIs. `scratch` prefixes the files that
// keep the commands' output.
StatusOr<std::vector<std::string>> CreateTables(const std::string& self, const ModeTarget& target,
                                                const std::string& name, int count,
                                                const std::string& scratch);

// Checks each table's log (`deltacommit snapshot --json`) against what its
// writers reported: its versions are exactly those of the commits that
// landed (1..V; the service's group commit may put several in one), each
// writer's last landed batch is its app transaction version, and, for blind
// appends, every commit landed and added its file. kDataLoss naming the
// table and the difference. The tables' log versions, in `outputs`' order
// of first appearance.
StatusOr<std::vector<int64_t>> CheckTables(const std::string& self, const ModeTarget& target,
                                           const std::vector<WriterOutput>& outputs,
                                           const RunStats& stats, int commits, bool blind,
                                           const std::string& scratch);

}  // namespace deltacommit::cli
