// Which S3 endpoint the commit service uses for a request: the S3 part of
// docs/protocols/service.md (the order: docs/configuration.md). A request
// may name an endpoint, but only one on the service's allowlist
// ([[s3.allowed_endpoint]]); otherwise any client could make the service
// send its requests, signed with the client's credentials, to any host it
// likes.
//
// Thread-safety: pure functions of the config.
#pragma once

#include <string_view>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/status.h"
#include "service/config/service_config.h"

namespace deltacommit::service {

// The endpoint, region and addressing for a request on `bucket`, in the
// shape S3StoreConfig::service takes:
//   1. `requested_name` non-empty: the [[s3.allowed_endpoint]] of that name;
//      kPermissionDenied naming it (and saying how an operator allows an
//      endpoint) if there is none;
//   2. else the [[s3.bucket]] override for `bucket`;
//   3. else the [s3] default (AWS's endpoint for its region unless set).
// region_source/endpoint_source name the config entry that decided.
// ResolveS3Endpoint returns the whole entry (its name and whether it
// enforces If-None-Match), ResolveEndpoint only where it is.
StatusOr<S3EndpointConfig> ResolveS3Endpoint(const S3Config& config,
                                             std::string_view bucket,
                                             std::string_view requested_name);
StatusOr<aws::AwsServiceConfig> ResolveEndpoint(
    const S3Config& config, std::string_view bucket,
    std::string_view requested_name);

}  // namespace deltacommit::service
