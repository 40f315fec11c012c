// CredentialVendor: where the Unity Catalog API gets the temporary storage
// credentials it hands to engines (credential vending, docs/unity-catalog.md):
// credentials for one table's or path's prefix and one operation, so that an
// engine with only a catalog token can read or write exactly that table.
//
// The service runs BucketCredentialVendor, which follows each bucket's
// vend_credentials: StsCredentialVendor (STS AssumeRole with a session
// policy), or the writer's own temporary credentials passed through. Tests
// of the API's logic use a fake.
//
// Thread-safety: implementations are safe for concurrent use.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/service_wire/sent_credentials.h"
#include "deltacommit/status.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {

// What the credentials may do: READ gets and lists objects under the
// prefix; READ_WRITE also puts and deletes them (and their multipart
// uploads).
enum class VendOperation { kRead, kReadWrite };
std::string_view VendOperationName(VendOperation operation);  // "READ", "READ_WRITE"

struct VendRequest {
  TableUri location;  // normalised; an s3:// location with a key prefix
  VendOperation operation = VendOperation::kRead;
  // Who asks (the token's name): part of the STS session name, so the
  // store's and CloudTrail's logs show which client used a session.
  std::string principal;
  // The writer's own credentials, as the request's headers carried them:
  // used only for a bucket whose credentials pass through.
  service_wire::SentCredentials sent;
};

struct VendedCredentials {
  aws::Credentials credentials;  // temporary: session token and expiration set
  std::string url;               // the location they are scoped to
};

class CredentialVendor {
 public:
  virtual ~CredentialVendor() = default;

  // Credentials for `request`. Errors name the location, operation and what
  // to do:
  //   kFailedPrecondition  vending is not configured for the bucket, or
  //                        it passes credentials through and none were sent
  //   kInvalidArgument     not an s3:// location, or a bucket's root (a
  //                        table's credentials never cover a whole bucket),
  //                        or sent credentials that are incomplete
  //   kUnauthenticated     sent credentials that expired
  //   kInternal            STS refused the service (its own credentials, the
  //                        role or its trust policy): the message says which,
  //                        for the operator; nothing the client can fix
  //   kUnavailable         STS unreachable or throttled (retry later)
  virtual StatusOr<VendedCredentials> Vend(const VendRequest& request) = 0;
};

// "READ credentials for <location>": how messages name a request.
std::string DescribeVendRequest(const VendRequest& request);

// The location rule every vendor applies first: an s3:// location with a
// key prefix (kInvalidArgument otherwise).
Status CheckVendLocation(const VendRequest& request);

}  // namespace deltacommit::service
