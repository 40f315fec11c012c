// `deltacommit doctor TABLE`: checks, live, every permission the table's
// commit mode needs, then prints the least-privilege IAM policy for it.
#include <iostream>
#include <memory>

#include "commands.h"
#include "deltacommit/s3/s3_object_store.h"
#include "doctor/doctor.h"
#include "doctor/iam_policy.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

using Json = nlohmann::ordered_json;

struct DoctorArgs {
  std::string table;
  TableFlags options;
  bool json = false;
  bool policy_only = false;
};

// The policy of an S3 table; nullopt for a local one.
std::optional<Json> PolicyOf(const TableAdapters& t) {
  const auto* s3 = dynamic_cast<const S3ObjectStore*>(t.store.get());
  if (s3 == nullptr) return std::nullopt;
  PolicyInputs in;
  in.mode = t.mode;
  in.bucket = s3->config().bucket;
  in.key_prefix = s3->config().key_prefix;
  in.s3_region = s3->config().service.region;
  in.dynamodb_region = t.dynamodb_settings.service.region;
  in.dynamodb_table = t.dynamodb_settings.table_name;
  in.dynamodb_auto_create = t.dynamodb_settings.auto_create;
  StatusOr<Json> policy = LeastPrivilegePolicy(in);
  if (!policy.ok()) return std::nullopt;  // only for modes without IAM
  return std::move(policy).value();
}

void PrintText(const TableAdapters& t, const DoctorReport& report, const std::optional<Json>& policy) {
  std::cout << "deltacommit doctor " << t.uri << " (" << CommitModeName(t.mode) << ")\n";
  int failed = 0, warned = 0;
  for (const DoctorCheck& c : report.checks()) {
    std::string verdict = VerdictName(c.verdict), name = c.name;
    verdict.resize(6, ' ');
    name.resize(std::max<size_t>(name.size(), 28), ' ');
    std::cout << verdict << name << c.detail << "\n";
    failed += c.verdict == Verdict::kFail;
    warned += c.verdict == Verdict::kWarn;
  }
  const size_t n = report.checks().size();
  if (failed > 0) {
    std::cout << failed << " of " << n << " checks FAILED";
  } else {
    std::cout << "all " << n << " checks passed";
  }
  std::cout << " (" << warned << " warning" << (warned == 1 ? "" : "s") << ")\n";
  if (policy) {
    std::cout << "\nLeast-privilege IAM policy for " << CommitModeName(t.mode) << " on " << t.uri << ":\n"
              << policy->dump(2) << "\n";
  }
}

Json ReportJson(const TableAdapters& t, const DoctorReport& report, const std::optional<Json>& policy) {
  Json checks = Json::array();
  for (const DoctorCheck& c : report.checks()) {
    checks.push_back({{"check", c.name}, {"status", VerdictName(c.verdict)}, {"detail", c.detail}});
  }
  Json out = {{"table", t.uri}, {"mode", CommitModeName(t.mode)}, {"ok", !report.failed()}, {"checks", checks}};
  out["policy"] = policy ? *policy : Json(nullptr);
  return out;
}

int RunDoctor(const DoctorArgs& args) {
  TableFlags options = args.options;
  options.skip_setup = true;  // check the table as it is; never create anything
  StatusOr<Table> opened = OpenCliTable(args.table, options);
  if (!opened.ok()) return ReportError(opened.status());
  TableAdapters* table = &opened->adapters();
  std::optional<Json> policy = PolicyOf(*table);
  if (args.policy_only) {
    if (!policy) {
      return ReportError(InvalidArgumentError("--policy-only: " + table->uri +
                                              " is a local table, which needs no IAM policy"));
    }
    std::cout << policy->dump(2) << "\n";
    return kExitOk;
  }
  DoctorReport report;
  if (table->is_local()) {
    CheckLocalTable(*table, report);  // the writer's own files, in every mode
    CheckCommitService(*table, options, std::nullopt, report);  // service, coordinated
  } else {
    std::optional<Version> listed_latest = CheckS3Table(*table, report);
    if (table->mode == CommitMode::kS3DynamoDb) CheckDynamoDbTable(*table, report);
    CheckCommitService(*table, options, listed_latest, report);  // service, coordinated
  }
  CheckTableCoordinator(*table, report);
  if (args.json) {
    std::cout << ReportJson(*table, report, policy).dump() << "\n";
  } else {
    PrintText(*table, report, policy);
  }
  return report.failed() ? kExitError : kExitOk;
}

}  // namespace

void RegisterDoctor(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "Check, live, the credentials, endpoints and permissions the table's commit mode needs "
      "(exit 0 when none fails), then print the least-privilege IAM policy");
  cmd->add_option("table", args->table, "Table location")->required();
  AddTableOptions(cmd, &args->options);
  cmd->add_flag("--json", args->json, "Print the checks and the policy as one JSON object");
  cmd->add_flag("--policy-only", args->policy_only,
                "Print only the IAM policy (no checks, no requests)");
  cmd->callback([args, exit_code] { *exit_code = RunDoctor(*args); });
}

}  // namespace deltacommit::cli
