#include "service/vend/session_policy.h"

#include <nlohmann/json.hpp>

namespace deltacommit::service {

std::string IamLiteral(std::string_view key_prefix) {
  // '$' first: the other two's literal forms contain one.
  std::string out;
  for (char c : key_prefix) {
    switch (c) {
      case '$':
        out += "${$}";
        break;
      case '*':
        out += "${*}";
        break;
      case '?':
        out += "${?}";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SessionPolicy(const TableUri& location, VendOperation operation) {
  const std::string prefix = IamLiteral(location.key_prefix);
  const std::string root = "arn:aws:s3:::" + location.bucket + "/" + prefix;
  // Reading may HEAD the root's own key (Hadoop's S3A asks whether a
  // directory is a file); writing never reaches outside "<prefix>/".
  nlohmann::json statements = nlohmann::json::array();
  statements.push_back(
      {{"Effect", "Allow"}, {"Action", {"s3:GetObject"}}, {"Resource", {root, root + "/*"}}});
  if (operation == VendOperation::kReadWrite) {
    statements.push_back({{"Effect", "Allow"},
                          {"Action",
                           {"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                            "s3:ListMultipartUploadParts"}},
                          {"Resource", {root + "/*"}}});
  }
  // Only listings inside the prefix: a listing of the bare prefix would
  // show the keys of every sibling that starts with the same name.
  statements.push_back(
      {{"Effect", "Allow"},
       {"Action", {"s3:ListBucket"}},
       {"Resource", {"arn:aws:s3:::" + location.bucket}},
       {"Condition", {{"StringLike", {{"s3:prefix", {prefix + "/", prefix + "/*"}}}}}}});
  return nlohmann::json{{"Version", "2012-10-17"}, {"Statement", statements}}.dump();
}

}  // namespace deltacommit::service
