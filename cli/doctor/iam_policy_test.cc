// The least-privilege IAM policy: exact documents for each mode, tables at
// the bucket root and under nested prefixes, auto-create, ARN partitions.
// Each policy is printed and parsed back, as a user would paste it.
#include "doctor/iam_policy.h"

#include <gtest/gtest.h>

namespace deltacommit::cli {
namespace {

using Json = nlohmann::json;

PolicyInputs Inputs(CommitMode mode, std::string bucket, std::string prefix) {
  PolicyInputs in;
  in.mode = mode;
  in.bucket = std::move(bucket);
  in.key_prefix = std::move(prefix);
  in.s3_region = "eu-west-1";
  in.dynamodb_region = "eu-west-1";
  in.dynamodb_table = "delta_log";
  return in;
}

// The policy as printed, parsed back.
Json Printed(const PolicyInputs& in) {
  StatusOr<nlohmann::ordered_json> policy = LeastPrivilegePolicy(in);
  EXPECT_TRUE(policy.ok()) << policy.status().ToString();
  if (!policy.ok()) return nullptr;
  Json parsed = Json::parse(policy->dump(2), nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(parsed.is_discarded());
  return parsed;
}

TEST(IamPolicyTest, S3ConditionalListsReadsWritesTheLogAndDeletesOnlyProbes) {
  EXPECT_EQ(Printed(Inputs(CommitMode::kS3Conditional, "lake", "sales/orders")), Json::parse(R"({
    "Version": "2012-10-17",
    "Statement": [
      {"Sid": "ListDeltaLog", "Effect": "Allow", "Action": "s3:ListBucket",
       "Resource": "arn:aws:s3:::lake",
       "Condition": {"StringLike": {"s3:prefix": ["sales/orders/_delta_log/*"]}}},
      {"Sid": "ReadAndWriteDeltaLog", "Effect": "Allow",
       "Action": ["s3:GetObject", "s3:PutObject"],
       "Resource": "arn:aws:s3:::lake/sales/orders/_delta_log/*"},
      {"Sid": "DeleteConditionalPutProbe", "Effect": "Allow", "Action": "s3:DeleteObject",
       "Resource": "arn:aws:s3:::lake/sales/orders/_delta_log/.tmp/*"}
    ]})"));
}

TEST(IamPolicyTest, S3DynamoDbAddsTheLockTableAndNoDelete) {
  EXPECT_EQ(Printed(Inputs(CommitMode::kS3DynamoDb, "lake", "t")), Json::parse(R"({
    "Version": "2012-10-17",
    "Statement": [
      {"Sid": "ListDeltaLog", "Effect": "Allow", "Action": "s3:ListBucket",
       "Resource": "arn:aws:s3:::lake",
       "Condition": {"StringLike": {"s3:prefix": ["t/_delta_log/*"]}}},
      {"Sid": "ReadAndWriteDeltaLog", "Effect": "Allow",
       "Action": ["s3:GetObject", "s3:PutObject"],
       "Resource": "arn:aws:s3:::lake/t/_delta_log/*"},
      {"Sid": "DeltaLogLockTable", "Effect": "Allow",
       "Action": ["dynamodb:DescribeTable", "dynamodb:GetItem", "dynamodb:PutItem",
                  "dynamodb:Query"],
       "Resource": "arn:aws:dynamodb:eu-west-1:*:table/delta_log"}
    ]})"));
}

TEST(IamPolicyTest, AutoCreateAddsCreateTableAndTheTimeToLiveCalls) {
  PolicyInputs in = Inputs(CommitMode::kS3DynamoDb, "lake", "t");
  in.dynamodb_auto_create = true;
  in.dynamodb_region = "us-east-2";
  in.dynamodb_table = "locks";
  Json statements = Printed(in)["Statement"];
  ASSERT_EQ(statements.size(), 4u);
  EXPECT_EQ(statements[3], Json::parse(R"(
      {"Sid": "CreateLockTableOnFirstUse", "Effect": "Allow",
       "Action": ["dynamodb:CreateTable", "dynamodb:DescribeTimeToLive",
                  "dynamodb:UpdateTimeToLive"],
       "Resource": "arn:aws:dynamodb:us-east-2:*:table/locks"})"));
  EXPECT_EQ(statements[2]["Resource"], "arn:aws:dynamodb:us-east-2:*:table/locks");
}

TEST(IamPolicyTest, CommitServiceModesDeleteUnratifiedStagedCommitsAndGetSessions) {
  const Json expected = Json::parse(R"({
    "Version": "2012-10-17",
    "Statement": [
      {"Sid": "ListDeltaLog", "Effect": "Allow", "Action": "s3:ListBucket",
       "Resource": "arn:aws:s3:::lake",
       "Condition": {"StringLike": {"s3:prefix": ["t/_delta_log/*"]}}},
      {"Sid": "ReadAndWriteDeltaLog", "Effect": "Allow",
       "Action": ["s3:GetObject", "s3:PutObject"],
       "Resource": "arn:aws:s3:::lake/t/_delta_log/*"},
      {"Sid": "DeleteUnratifiedStagedCommits", "Effect": "Allow", "Action": "s3:DeleteObject",
       "Resource": "arn:aws:s3:::lake/t/_delta_log/_staged_commits/*"},
      {"Sid": "SessionForTheCommitService", "Effect": "Allow",
       "Action": "sts:GetSessionToken", "Resource": "*"}
    ]})");
  EXPECT_EQ(Printed(Inputs(CommitMode::kService, "lake", "t")), expected);
  EXPECT_EQ(Printed(Inputs(CommitMode::kCoordinated, "lake", "t")), expected);
}

TEST(IamPolicyTest, TableAtTheBucketRootScopesToItsDeltaLog) {
  Json statements = Printed(Inputs(CommitMode::kS3Conditional, "lake", ""))["Statement"];
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[0]["Condition"]["StringLike"]["s3:prefix"], Json::array({"_delta_log/*"}));
  EXPECT_EQ(statements[1]["Resource"], "arn:aws:s3:::lake/_delta_log/*");
  EXPECT_EQ(statements[2]["Resource"], "arn:aws:s3:::lake/_delta_log/.tmp/*");
}

TEST(IamPolicyTest, NestedPrefixIsKeptWhole) {
  Json statements = Printed(Inputs(CommitMode::kS3DynamoDb, "my.bucket", "a/b/c/d"))["Statement"];
  EXPECT_EQ(statements[0]["Resource"], "arn:aws:s3:::my.bucket");
  EXPECT_EQ(statements[0]["Condition"]["StringLike"]["s3:prefix"],
            Json::array({"a/b/c/d/_delta_log/*"}));
  EXPECT_EQ(statements[1]["Resource"], "arn:aws:s3:::my.bucket/a/b/c/d/_delta_log/*");
}

TEST(IamPolicyTest, ChinaAndGovCloudRegionsUseTheirPartition) {
  PolicyInputs in = Inputs(CommitMode::kS3DynamoDb, "lake", "t");
  in.s3_region = "cn-north-1";
  in.dynamodb_region = "us-gov-west-1";
  Json statements = Printed(in)["Statement"];
  EXPECT_EQ(statements[0]["Resource"], "arn:aws-cn:s3:::lake");
  EXPECT_EQ(statements[2]["Resource"], "arn:aws-us-gov:dynamodb:us-gov-west-1:*:table/delta_log");
}

TEST(IamPolicyTest, LocalTablesHaveNoPolicy) {
  StatusOr<nlohmann::ordered_json> policy = LeastPrivilegePolicy(Inputs(CommitMode::kLocal, "", ""));
  EXPECT_EQ(policy.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(policy.status().message().find("\"local\""), std::string::npos);
}

}  // namespace
}  // namespace deltacommit::cli
