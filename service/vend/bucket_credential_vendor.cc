#include "service/vend/bucket_credential_vendor.h"

#include <utility>

#include "service/config/s3_endpoints.h"

namespace deltacommit::service {

StatusOr<VendedCredentials> BucketCredentialVendor::Vend(const VendRequest& request) {
  DC_RETURN_IF_ERROR(CheckVendLocation(request));
  DC_ASSIGN_OR_RETURN(S3EndpointConfig endpoint,
                      ResolveS3Endpoint(s3_, request.location.bucket, {}));
  switch (endpoint.vend.source) {
    case VendConfig::Source::kAssumeRole:
      return assume_role_.Vend(request);
    case VendConfig::Source::kPassThrough:
      return PassThrough(request);
    case VendConfig::Source::kNone:
      break;
  }
  return FailedPreconditionError(
      DescribeVendRequest(request) + ": this service vends no credentials for bucket " +
      request.location.bucket +
      "; its operator can set vend_credentials = \"assume_role\" (with vend_role_arn) or "
      "\"pass_through\" in [s3] or in the bucket's [[s3.bucket]] entry");
}

StatusOr<VendedCredentials> BucketCredentialVendor::PassThrough(const VendRequest& request) {
  StatusOr<aws::Credentials> own = service_wire::ParseSentCredentials(
      request.sent, clock_.NowMillis(),
      "the writer's own temporary credentials, passed through by the catalog for " +
          request.location.uri);
  if (own.ok()) return VendedCredentials{*std::move(own), request.location.uri};
  std::string what = DescribeVendRequest(request) + ": bucket " + request.location.bucket +
                     " passes each writer's own temporary credentials through "
                     "(vend_credentials = \"pass_through\")";
  if (own.status().code() == StatusCode::kFailedPrecondition) {
    what += ", and " + own.status().message() +
            "; send them (deltacommit: --catalog-send-credentials), or ask the operator to vend "
            "credentials by STS (vend_credentials = \"assume_role\")";
    return FailedPreconditionError(what);
  }
  return own.status().WithContext(what);
}

}  // namespace deltacommit::service
