// The session policy that narrows a vended role session to one location
// and operation (AWS IAM policy grammar, which Ceph RGW enforces too).
//
//   READ        s3:GetObject on <bucket>/<prefix> and <bucket>/<prefix>/*,
//               s3:ListBucket on the bucket where s3:prefix is <prefix>/
//               or <prefix>/* (never the bare prefix, whose listing shows
//               siblings' keys)
//   READ_WRITE  also s3:PutObject, s3:DeleteObject, s3:AbortMultipartUpload
//               and s3:ListMultipartUploadParts on <bucket>/<prefix>/* only
//
// A key prefix is written with IAM's literal forms of '*', '?' and '$'
// (${*}, ${?}, ${$}), so that a prefix never matches more than it names.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "service/config/table_uri.h"
#include "service/vend/credential_vendor.h"

namespace deltacommit::service {

// The policy document (compact JSON) for `location` (an s3:// table URI
// with a non-empty key prefix) and `operation`.
std::string SessionPolicy(const TableUri& location, VendOperation operation);

// `key_prefix` with IAM's wildcard and variable characters made literal.
std::string IamLiteral(std::string_view key_prefix);

}  // namespace deltacommit::service
