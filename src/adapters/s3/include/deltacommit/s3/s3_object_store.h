// S3ObjectStore: the ObjectStore port on S3 and S3-compatible stores (AWS,
// Ceph RGW, MinIO, R2), rooted at s3://bucket/prefix. Every request is
// signed with SigV4 by credentials from a provider (asked per request, so
// refreshed temporary credentials are picked up), retried with full-jitter
// backoff when that is safe (idempotent requests; writes only when the store
// refused them before applying), and mapped into Status with the S3 error
// code, request id and what to do.
//
// PutIfAbsent is PUT with If-None-Match: * (412 -> kAlreadyExists; a lost
// reply -> kUnknownOutcome, never retried blindly). Whether the store really
// enforces it is checked by S3ConditionalLogStore, not here.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <memory>
#include <initializer_list>
#include <string>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/errors.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/retry.h"
#include "deltacommit/clock.h"
#include "deltacommit/object_store.h"

namespace deltacommit {

struct S3StoreConfig {
  std::string bucket;
  std::string key_prefix;  // the table root in the bucket; no leading/trailing '/'
  aws::AwsServiceConfig service;  // endpoint, region, addressing
  aws::RetryPolicy retry;
};

class S3ObjectStore : public ObjectStore {
 public:
  // `http`, `credentials`, `clock` and `sleeper` must outlive the store.
  S3ObjectStore(S3StoreConfig config, aws::HttpClient& http,
                aws::CredentialsProvider& credentials, Clock& clock = SystemClock(),
                Sleeper& sleeper = RealSleeper());

  std::string Describe() const override;
  StatusOr<std::string> Get(std::string_view key,
                            std::optional<ByteRange> range = std::nullopt) override;
  StatusOr<ObjectMeta> Head(std::string_view key) override;
  StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                         std::string_view start_after = {}) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status Copy(std::string_view src, std::string_view dst, bool if_absent) override;
  Status Delete(std::string_view key) override;

  const S3StoreConfig& config() const { return config_; }

 private:
  // One S3 call: what it is, for signing, retrying and error messages.
  struct Call {
    const char* action;  // "GetObject", ...
    std::string method;
    std::string object_key;  // full key in the bucket ("" for bucket calls)
    std::string query;       // already encoded, without '?'
    aws::HttpHeaders headers;
    std::string body;
    bool idempotent = true;
    std::string resource;  // for messages when not object_key (List: the prefix)
  };

  std::string FullKey(std::string_view key) const;
  std::string Url(const std::string& object_key, const std::string& query) const;
  // What signed a call, for error messages: they show its source and
  // redacted key id, and its values are removed from the server's text.
  struct Signer {
    aws::Credentials credentials;
  };
  // Sends `call` (signed per attempt, retried as allowed). Transport errors
  // and credential errors come back as Status; any HTTP reply as a response.
  StatusOr<aws::HttpResponse> Send(const Call& call, Signer* signer);
  // The Status for an error reply to `call`.
  Status ErrorFor(const Call& call, const aws::HttpResponse& response,
                  const Signer& signer) const;
  // Send + ErrorFor for replies outside `ok_statuses`.
  StatusOr<aws::HttpResponse> Exchange(const Call& call, std::initializer_list<long> ok_statuses);
  StatusOr<std::vector<ObjectMeta>> ListPage(const std::string& full_prefix,
                                             const std::string& start_after,
                                             std::string* continuation);

  S3StoreConfig config_;
  aws::HttpClient& http_;
  aws::CredentialsProvider& credentials_;
  Clock& clock_;
  Sleeper& sleeper_;
};

}  // namespace deltacommit
