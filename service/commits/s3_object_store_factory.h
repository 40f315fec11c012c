// S3ObjectStoreFactory: the real ObjectStoreFactory. Each Open builds an
// S3ObjectStore over one shared HttpClient (libcurl: connections are reused
// across requests and tables) that signs only with the request's
// credentials, through a static provider that refuses them once expired.
// Every S3 error reply is reported to the observer by its S3 code.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <memory>

#include "deltacommit/aws/http.h"
#include "deltacommit/aws/retry.h"
#include "deltacommit/clock.h"
#include "service/commits/commit_observer.h"
#include "service/commits/object_store_factory.h"

namespace deltacommit::service {

class S3ObjectStoreFactory : public ObjectStoreFactory {
 public:
  // `http`, `observer` and `clock` must outlive the factory and every store
  // it opened.
  S3ObjectStoreFactory(aws::HttpClient& http, CommitObserver& observer,
                       Clock& clock = SystemClock(), aws::RetryPolicy retry = {});
  ~S3ObjectStoreFactory() override;

  // kInvalidArgument when access.table is not an s3:// URI (ParseS3Uri).
  StatusOr<std::unique_ptr<ObjectStore>> Open(const TableAccess& access) override;

 private:
  class ObservingHttpClient;

  std::unique_ptr<ObservingHttpClient> http_;
  Clock& clock_;
  const aws::RetryPolicy retry_;
};

// The S3 action a request is ("GetObject", "ListObjectsV2", "CopyObject",
// ...), from its method, query and headers; for metrics.
std::string_view S3ActionOf(const aws::HttpRequest& request);

}  // namespace deltacommit::service
