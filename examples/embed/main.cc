// embed TABLE [MODE]: opens a Delta table through deltacommit's front door,
// creates it if it has no log yet, appends one file with an idempotent txn
// (app "embed", version = the table's latest + 1, so a rerun appends again
// and a retry of the same version would be recognised), reads the snapshot
// back and prints it. MODE is a commit mode name (local, s3-conditional,
// s3-dynamodb, service, coordinated); S3 settings come from the AWS
// environment (AWS_ENDPOINT_URL_S3, AWS_REGION, credentials, ...).
#include <cstdlib>
#include <iostream>
#include <string>

#include "deltacommit/table.h"

namespace {

deltacommit::Metadata EventsTable() {
  deltacommit::Metadata m;
  m.id = "6a5f4b0e-5c1d-4c55-9d3e-1f0e2d3c4b5a";
  m.name = "events";
  m.schema_string =
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
  return m;
}

int Fail(const deltacommit::Status& status) {
  std::cerr << "embed: " << status.ToString() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: embed TABLE [MODE]\n";
    return 2;
  }
  deltacommit::TableOptions options;
  if (argc == 3) {
    options.mode = deltacommit::ParseCommitMode(argv[2]);
    if (!options.mode) {
      std::cerr << "embed: \"" << argv[2] << "\" is not a commit mode\n";
      return 2;
    }
  }
  options.create_dynamodb_table = options.mode == deltacommit::CommitMode::kS3DynamoDb;
  auto table = deltacommit::OpenTable(argv[1], options);
  if (!table.ok()) return Fail(table.status());

  auto latest = table->Snapshot();
  if (latest.status().IsNotFound()) {
    auto created = table->Create(EventsTable());
    if (!created.ok()) return Fail(created.status());
    latest = table->Snapshot();
  }
  if (!latest.ok()) return Fail(latest.status());

  const deltacommit::Version next = (*latest)->version() + 1;
  deltacommit::AddFile add;
  add.path = "part-" + std::to_string(next) + ".parquet";
  add.size = 100;
  add.modification_time = 1;
  add.data_change = true;
  deltacommit::CommitOptions commit;
  commit.app_transaction = {{"embed", next}};
  auto outcome = table->Commit({add}, commit);
  if (!outcome.ok()) return Fail(outcome.status());
  if (outcome->result == deltacommit::CommitResult::kConflict) {
    std::cerr << "embed: conflict: " << outcome->conflict->Describe() << "\n";
    return 3;
  }

  auto snapshot = table->Snapshot();
  if (!snapshot.ok()) return Fail(snapshot.status());
  std::cout << "table " << table->uri() << " (" << deltacommit::CommitModeName(table->mode())
            << "): committed version " << outcome->version << "; snapshot version "
            << (*snapshot)->version() << ", " << (*snapshot)->active_files().size()
            << " file(s), app embed at " << (*snapshot)->AppVersion("embed").value_or(-1) << "\n";
  return 0;
}
