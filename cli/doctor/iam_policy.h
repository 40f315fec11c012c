// The least-privilege IAM policy for committing to one table in one mode,
// computed from the table URI and the DynamoDB settings. `doctor` prints it.
//
// Only what deltacommit touches is granted: it reads, lists and writes
// nothing outside `_delta_log/` (writers of data files need their own
// grants). s3:DeleteObject only where the mode deletes (s3-conditional
// removes its If-None-Match probe under `_delta_log/.tmp/`; service and
// coordinated, staged commits that can never be ratified); DynamoDB
// CreateTable and the TTL calls only when auto-create is on;
// sts:GetSessionToken for service and coordinated (the commit service takes
// only temporary credentials; not needed when the writer's are temporary).
// The service's own grants (its state store) are in its config, not here.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "deltacommit/commit_mode.h"
#include "deltacommit/status.h"

namespace deltacommit::cli {

struct PolicyInputs {
  CommitMode mode = CommitMode::kS3Conditional;
  std::string bucket;
  std::string key_prefix;  // the table root in the bucket; "" at the bucket root
  std::string s3_region;   // picks the ARN partition (aws, aws-cn, aws-us-gov)
  // s3-dynamodb only.
  std::string dynamodb_region;
  std::string dynamodb_table;
  bool dynamodb_auto_create = false;
};

// The policy document ({"Version": "2012-10-17", "Statement": [...]}).
// kInvalidArgument for a mode without IAM (local) or an unknown one.
StatusOr<nlohmann::ordered_json> LeastPrivilegePolicy(const PolicyInputs& inputs);

// "aws", "aws-cn" or "aws-us-gov" for `region`.
std::string ArnPartition(const std::string& region);

}  // namespace deltacommit::cli
