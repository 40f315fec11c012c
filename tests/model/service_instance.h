// A commit service instance and the writer-side client that talks to it,
// in one process with no sockets, for the model checker's `service` and
// `coordinated` modes: the real HttpCommitServiceClient sends through a
// LoopbackHttpClient straight into the real ServiceApi handlers
// (service/api, those of `deltacommit serve`), which call a real
// CommitService. So the writer's client side (retries, lost replies, error
// mapping), the API layer and the commit logic all run as in production;
// only the socket is left out.
//
// Each actor that commits has an instance of its own, sharing the state
// store and S3 with the others, as `serve` instances do in HA: the send and
// the answer of each request are yield points ("http/..."): a crash there
// kills the writer and its instance together; a lost reply (the request
// was handled) is kUnknownOutcome to the client; a fail is "not sent".
//
// Thread-safety: one instance per actor.
#pragma once

#include <memory>
#include <string>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/service_client/http_commit_service_client.h"
#include "deltacommit/testing/fake_clock.h"
#include "service/api/service_api.h"
#include "service/commits/commit_service.h"
#include "service/config/auth.h"
#include "service/config/service_config.h"
#include "service/http/json_logger.h"
#include "service/http/metrics.h"
#include "service/http/router.h"

namespace deltacommit::model {

inline constexpr char kServiceUrl[] = "http://model-service.invalid";

// What every instance shares: configuration, tokens, state, stores.
struct ServiceShared {
  // `state`, `stores`, `hooks`, `clock` must outlive this. Fails on a bad
  // built-in configuration only.
  static StatusOr<std::unique_ptr<ServiceShared>> Make(service::StateStore& state,
                                                       service::ObjectStoreFactory& stores,
                                                       StepHooks& hooks, FakeClock& clock);
  service::ServiceConfig config;
  std::unique_ptr<service::Authenticator> authenticator;
  service::StateStore* state = nullptr;
  service::ObjectStoreFactory* stores = nullptr;
  StepHooks* hooks = nullptr;
  FakeClock* clock = nullptr;
  http::Metrics metrics;
  std::unique_ptr<service::CommitMetrics> commit_metrics;
  http::JsonLogger logger{[](std::string_view) {}};
};

class LoopbackHttpClient : public aws::HttpClient {
 public:
  explicit LoopbackHttpClient(const http::Router& router) : router_(router) {}
  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest& request) override;

 private:
  const http::Router& router_;
};

class ServiceInstance {
 public:
  explicit ServiceInstance(ServiceShared& shared);
  CommitServiceClient& client() { return *client_; }

 private:
  std::unique_ptr<service::CommitService> service_;
  std::unique_ptr<service::ServiceApi> api_;
  http::Router router_;
  std::unique_ptr<LoopbackHttpClient> http_;
  std::unique_ptr<aws::CredentialsProvider> credentials_;
  RecordingSleeper sleeper_;
  std::unique_ptr<service_client::HttpCommitServiceClient> client_;
};

}  // namespace deltacommit::model
