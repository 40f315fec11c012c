#include "doctor/iam_policy.h"

namespace deltacommit::cli {
namespace {

using Json = nlohmann::ordered_json;

Json Statement(const char* sid, Json actions, const std::string& resource) {
  return Json{{"Sid", sid}, {"Effect", "Allow"}, {"Action", std::move(actions)},
              {"Resource", resource}};
}

// The S3 statements: list, read and write `_delta_log/` of the table.
void AddS3(const PolicyInputs& in, Json& statements) {
  const std::string partition = ArnPartition(in.s3_region);
  const std::string log = (in.key_prefix.empty() ? "" : in.key_prefix + "/") + "_delta_log/";
  const std::string objects = "arn:" + partition + ":s3:::" + in.bucket + "/";
  Json list = Statement("ListDeltaLog", "s3:ListBucket", "arn:" + partition + ":s3:::" + in.bucket);
  list["Condition"] = Json{{"StringLike", Json{{"s3:prefix", Json::array({log + "*"})}}}};
  statements.push_back(std::move(list));
  statements.push_back(Statement("ReadAndWriteDeltaLog", Json::array({"s3:GetObject", "s3:PutObject"}),
                                 objects + log + "*"));
  if (in.mode == CommitMode::kS3Conditional) {
    statements.push_back(
        Statement("DeleteConditionalPutProbe", "s3:DeleteObject", objects + log + ".tmp/*"));
  }
  if (UsesCommitService(in.mode)) {
    // Staged commits that can never be ratified (refused, orphaned): the
    // writer and the service delete them with the writer's credentials.
    statements.push_back(Statement("DeleteUnratifiedStagedCommits", "s3:DeleteObject",
                                   objects + log + "_staged_commits/*"));
  }
}

// The commit service takes only temporary credentials: long-term keys get a
// session first. GetSessionToken has no resource to scope to.
void AddSessionForTheService(Json& statements) {
  statements.push_back(Statement("SessionForTheCommitService", "sts:GetSessionToken", "*"));
}

void AddDynamoDb(const PolicyInputs& in, Json& statements) {
  const std::string table = "arn:" + ArnPartition(in.dynamodb_region) + ":dynamodb:" +
                            in.dynamodb_region + ":*:table/" + in.dynamodb_table;
  statements.push_back(Statement("DeltaLogLockTable",
                                 Json::array({"dynamodb:DescribeTable", "dynamodb:GetItem",
                                              "dynamodb:PutItem", "dynamodb:Query"}),
                                 table));
  if (in.dynamodb_auto_create) {
    statements.push_back(Statement("CreateLockTableOnFirstUse",
                                   Json::array({"dynamodb:CreateTable",
                                                "dynamodb:DescribeTimeToLive",
                                                "dynamodb:UpdateTimeToLive"}),
                                   table));
  }
}

}  // namespace

std::string ArnPartition(const std::string& region) {
  if (region.starts_with("cn-")) return "aws-cn";
  if (region.starts_with("us-gov-")) return "aws-us-gov";
  return "aws";
}

StatusOr<nlohmann::ordered_json> LeastPrivilegePolicy(const PolicyInputs& in) {
  const bool service = UsesCommitService(in.mode);
  if (in.mode == CommitMode::kLocal) {
    return InvalidArgumentError("no IAM policy for log store \"" + std::string(CommitModeName(in.mode)) +
                                "\": only tables on S3 use AWS");
  }
  Json statements = Json::array();
  AddS3(in, statements);
  if (in.mode == CommitMode::kS3DynamoDb) AddDynamoDb(in, statements);
  if (service) AddSessionForTheService(statements);
  return Json{{"Version", "2012-10-17"}, {"Statement", std::move(statements)}};
}

}  // namespace deltacommit::cli
