#include "service/commits/s3_object_store_factory.h"

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/errors.h"
#include "deltacommit/core/ascii.h"
#include "deltacommit/s3/s3_object_store.h"

namespace deltacommit::service {

// Reports S3 error replies and transport failures, then passes them on.
class S3ObjectStoreFactory::ObservingHttpClient : public aws::HttpClient {
 public:
  ObservingHttpClient(aws::HttpClient& base, CommitObserver& observer)
      : base_(base), observer_(observer) {}

  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest& request) override {
    StatusOr<aws::HttpResponse> response = base_.Send(request);
    if (!response.ok()) {
      observer_.OnS3Error(S3ActionOf(request), "TransportError", 0);
    } else if (response->status >= 300) {
      const aws::AwsError error = aws::ParseXmlError(*response);
      observer_.OnS3Error(S3ActionOf(request), error.code, error.http_status);
    }
    return response;
  }

 private:
  aws::HttpClient& base_;
  CommitObserver& observer_;
};

namespace {

// Owns the credentials provider its S3ObjectStore signs with. The provider
// is a base so that it is built before the store that refers to it.
struct ProviderHolder {
  std::unique_ptr<aws::CredentialsProvider> provider;
};

class RequestS3ObjectStore : private ProviderHolder, public S3ObjectStore {
 public:
  RequestS3ObjectStore(std::unique_ptr<aws::CredentialsProvider> credentials,
                       S3StoreConfig config, aws::HttpClient& http, Clock& clock)
      : ProviderHolder{std::move(credentials)},
        S3ObjectStore(std::move(config), http, *provider, clock) {}
};

}  // namespace

S3ObjectStoreFactory::S3ObjectStoreFactory(aws::HttpClient& http, CommitObserver& observer,
                                           Clock& clock, aws::RetryPolicy retry)
    : http_(std::make_unique<ObservingHttpClient>(http, observer)),
      clock_(clock),
      retry_(retry) {}

S3ObjectStoreFactory::~S3ObjectStoreFactory() = default;

StatusOr<std::unique_ptr<ObjectStore>> S3ObjectStoreFactory::Open(const TableAccess& access) {
  DC_ASSIGN_OR_RETURN(aws::S3Location location, aws::ParseS3Uri(access.table));
  S3StoreConfig config;
  config.bucket = std::move(location.bucket);
  config.key_prefix = std::move(location.key_prefix);
  config.service = access.endpoint.service;
  config.retry = retry_;
  aws::Credentials credentials = access.credentials;
  if (credentials.source.empty()) credentials.source = "the request";
  std::unique_ptr<ObjectStore> store = std::make_unique<RequestS3ObjectStore>(
      aws::StaticCredentialsProvider(std::move(credentials), clock_), std::move(config), *http_,
      clock_);
  return store;
}

std::string_view S3ActionOf(const aws::HttpRequest& request) {
  const std::string_view url = request.url;
  const bool has_query = url.find('?') != std::string_view::npos;
  if (request.method == "GET") {
    return has_query && url.find("list-type=2") != std::string_view::npos ? "ListObjectsV2"
                                                                          : "GetObject";
  }
  if (request.method == "HEAD") return "HeadObject";
  if (request.method == "DELETE") return "DeleteObject";
  if (request.method == "PUT") {
    for (const auto& [name, value] : request.headers) {
      if (EqualsIgnoreCase(name, "x-amz-copy-source")) return "CopyObject";
    }
    return "PutObject";
  }
  return "Other";
}

}  // namespace deltacommit::service
