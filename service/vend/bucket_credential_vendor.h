// BucketCredentialVendor: the vendor `serve` runs. It follows each bucket's
// vend_credentials ([s3] or its [[s3.bucket]] entry):
//
//   assume_role   a session the StsCredentialVendor vends, scoped to the
//                 location and operation
//   pass_through  the writer's own temporary credentials, sent with the
//                 request (service_wire/sent_credentials.h), handed back and
//                 used unchanged: for stores without STS. They are not
//                 narrowed to the location or operation (the service cannot
//                 narrow another principal's credentials); the store's own
//                 policy for that principal is what bounds them
//   none          kFailedPrecondition, naming the keys to set
//
// Sent credentials are ignored for any other bucket: they never replace a
// session the service vends.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include "deltacommit/clock.h"
#include "service/config/service_config.h"
#include "service/vend/credential_vendor.h"

namespace deltacommit::service {

class BucketCredentialVendor : public CredentialVendor {
 public:
  // `s3` and `assume_role` must outlive this.
  BucketCredentialVendor(const S3Config& s3, CredentialVendor& assume_role,
                         Clock& clock = SystemClock())
      : s3_(s3), assume_role_(assume_role), clock_(clock) {}

  StatusOr<VendedCredentials> Vend(const VendRequest& request) override;

 private:
  StatusOr<VendedCredentials> PassThrough(const VendRequest& request);

  const S3Config& s3_;
  CredentialVendor& assume_role_;
  Clock& clock_;
};

}  // namespace deltacommit::service
