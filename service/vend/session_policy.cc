#include "service/vend/session_policy.h"

#include <nlohmann/json.hpp>

namespace deltacommit::service {

std::string_view VendOperationName(VendOperation operation) {
  return operation == VendOperation::kReadWrite ? "READ_WRITE" : "READ";
}

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
  const std::string objects = "arn:aws:s3:::" + location.bucket + "/" + prefix;
  nlohmann::json actions = {"s3:GetObject"};
  if (operation == VendOperation::kReadWrite) {
    for (const char* action : {"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                               "s3:ListMultipartUploadParts"}) {
      actions.push_back(action);
    }
  }
  nlohmann::json policy = {
      {"Version", "2012-10-17"},
      {"Statement",
       {
           {{"Effect", "Allow"}, {"Action", actions}, {"Resource", {objects, objects + "/*"}}},
           {{"Effect", "Allow"},
            {"Action", {"s3:ListBucket"}},
            {"Resource", {"arn:aws:s3:::" + location.bucket}},
            {"Condition",
             {{"StringLike", {{"s3:prefix", {prefix, prefix + "/", prefix + "/*"}}}}}}},
       }},
  };
  return policy.dump();
}

}  // namespace deltacommit::service
