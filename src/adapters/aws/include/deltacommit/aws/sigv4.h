// AWS Signature Version 4 (header signing), per AWS's published algorithm
// and checked against its test suite vectors.
//
// Thread-safety: safe from any thread. SignRequest takes its signing keys
// from SigningKeyCache::Shared() (signing_key_cache.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"

namespace deltacommit::aws {

struct SigningParams {
  std::string region;   // "us-east-1"
  std::string service;  // "s3", "dynamodb"
  int64_t now_ms = 0;   // signing time, epoch ms
  // S3: send x-amz-content-sha256 with the payload hash, or the literal
  // "UNSIGNED-PAYLOAD" when unsigned_payload is true. Other services: the
  // header is not added (the hash is still part of the canonical request).
  bool unsigned_payload = false;
};

// Adds host (if absent), x-amz-date, x-amz-security-token (when the
// credentials have a session token), x-amz-content-sha256 (s3 only) and
// Authorization to `request`. Signs every header present in the request
// except Authorization. Signing again (a retry) replaces the headers it set
// and drops a stale x-amz-security-token.
// REQUIRES: request.url is absolute ("https://host[:port]/path?query") and
// already percent-encoded for the wire; for s3 the path must be encoded with
// UriEncode(key, /*encode_slash=*/false), which is what S3 signs.
void SignRequest(HttpRequest& request, const Credentials& credentials,
                 const SigningParams& params);

// How the canonical URI comes from the URL's (already encoded) path.
//   kS3: the path exactly as sent, never normalised ("a//b" is a real key).
//   kNormalizeAndEncode: every other service; "." / ".." and empty segments
//     are removed, then each segment is percent-encoded again.
// SignRequest picks kS3 exactly when params.service == "s3".
enum class UriPathStyle { kS3, kNormalizeAndEncode };

// The pieces, exposed for the test-suite vectors. The Authorization header,
// if present, is never part of the canonical request.
std::string CanonicalRequest(const HttpRequest& request, std::string_view payload_hash,
                             UriPathStyle path_style);
std::string StringToSign(std::string_view canonical_request, std::string_view amz_date,
                         std::string_view scope);
std::string Sha256Hex(std::string_view data);
// The raw signing key of `secret` for a day ("YYYYMMDD"), region and
// service, derived afresh (SignRequest uses the shared cache of them).
std::string DeriveSigningKey(std::string_view secret, std::string_view date8,
                             std::string_view region, std::string_view service);

// RFC 3986 percent-encoding as SigV4 wants it (unreserved kept; '/' kept
// when encode_slash is false).
std::string UriEncode(std::string_view s, bool encode_slash);

}  // namespace deltacommit::aws
