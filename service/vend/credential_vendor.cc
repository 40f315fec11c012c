#include "service/vend/credential_vendor.h"

namespace deltacommit::service {

std::string_view VendOperationName(VendOperation operation) {
  return operation == VendOperation::kReadWrite ? "READ_WRITE" : "READ";
}

std::string DescribeVendRequest(const VendRequest& request) {
  return std::string(VendOperationName(request.operation)) + " credentials for " +
         request.location.uri;
}

Status CheckVendLocation(const VendRequest& request) {
  const TableUri& location = request.location;
  if (location.is_local() || location.bucket.empty()) {
    return InvalidArgumentError(DescribeVendRequest(request) +
                                ": only s3:// locations have credentials to vend");
  }
  if (location.key_prefix.empty()) {
    return InvalidArgumentError(DescribeVendRequest(request) +
                                ": a location must name a prefix inside its bucket; "
                                "credentials for a whole bucket are never vended");
  }
  return OkStatus();
}

}  // namespace deltacommit::service
