// Settings of the s3-dynamodb mode, read under Delta Spark's keys
// (io.delta.storage.S3DynamoDBLogStore.* and spark.io.delta.storage.
// S3DynamoDBLogStore.*, passed as --storage-option) and delta-rs's
// environment (DELTA_DYNAMO_TABLE_NAME, AWS_REGION_DYNAMODB,
// AWS_ENDPOINT_URL_DYNAMODB, AWS_*_DYNAMODB credentials, ...). DynamoDB's
// region and credentials are separate from S3's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/status.h"

namespace deltacommit {

struct DynamoDbSettings {
  std::string table_name = "delta_log";
  aws::AwsServiceConfig service;                // region and endpoint
  std::optional<aws::Credentials> credentials;  // from AWS_*_DYNAMODB, else the chain
  int64_t ttl_seconds = 86400;
  bool provisioned = false;  // else on-demand (PAY_PER_REQUEST)
  int64_t rcu = 5;
  int64_t wcu = 5;
  // Create the table on first use when it is missing (Delta Spark does so
  // always; we only when asked): storage option
  // deltacommit.dynamodb.autoCreate=true, or --create-dynamodb-table.
  bool auto_create = false;
};

// The storage option that turns auto-create on, as users spell it.
inline constexpr const char* kAutoCreateOption = "deltacommit.dynamodb.autoCreate";

// `storage_options` has lower-cased keys. kInvalidArgument naming the key
// for malformed numbers or booleans, unknown billing modes or credential
// providers.
StatusOr<DynamoDbSettings> ResolveDynamoDbSettings(
    const std::map<std::string, std::string>& storage_options);

}  // namespace deltacommit
