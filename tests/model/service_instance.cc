#include "model/service_instance.h"

#include <spdlog/logger.h>

#include "model/model_ports.h"
#include "service/commits/testing/commit_requests.h"
#include "service/http/url_codec.h"

namespace deltacommit::model {
namespace {

constexpr char kToken[] = "model-writer-token-0123456789";

std::string Config() {
  return R"([s3]
endpoint = "https://s3.model.invalid"
[[token]]
name = "model"
sha256 = ")" + service::HashToken(kToken) +
         R"("
tables = ["s3://bucket"]
actions = ["commit", "read"]
)";
}

// A logger with no sinks: the model's many injected failures need no log.
std::shared_ptr<spdlog::logger> QuietLogger() {
  return std::make_shared<spdlog::logger>("model-service");
}

// Header names as the HTTP server hands them to handlers: lower case.
std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<ServiceShared>> ServiceShared::Make(service::StateStore& state,
                                                             service::ObjectStoreFactory& stores,
                                                             StepHooks& hooks, FakeClock& clock) {
  auto shared = std::make_unique<ServiceShared>();
  DC_ASSIGN_OR_RETURN(shared->config, service::ParseServiceConfig(Config(), "model.toml"));
  shared->authenticator = std::make_unique<service::Authenticator>(shared->config.tokens);
  shared->state = &state;
  shared->stores = &stores;
  shared->hooks = &hooks;
  shared->clock = &clock;
  shared->commit_metrics = std::make_unique<service::CommitMetrics>(shared->metrics);
  return shared;
}

StatusOr<aws::HttpResponse> LoopbackHttpClient::Send(const aws::HttpRequest& request) {
  const std::string point = "http/" + request.method;
  Scheduler* scheduler = Scheduler::Current();
  if (scheduler == nullptr) return UnavailableError("model: " + point + " outside any actor");
  const Fault fault = scheduler->Yield(point, /*mutates=*/request.method == "POST");
  if (fault == Fault::kCrash || fault == Fault::kFail) return FaultStatus(fault, point);
  if (fault == Fault::kLoseRequest) {
    return UnknownOutcomeError("model: " + point + " timed out (it never arrived)");
  }
  std::string_view target = request.url;
  if (!target.starts_with(kServiceUrl)) {
    return InvalidArgumentError("model: request to " + request.url + ", not " + kServiceUrl);
  }
  target.remove_prefix(std::string_view(kServiceUrl).size());
  http::Request in;
  in.method = request.method;
  in.target = std::string(target);
  const http::SplitTarget split = http::SplitRequestTarget(target);
  in.path = std::string(split.path);
  DC_ASSIGN_OR_RETURN(in.query, http::ParseQuery(split.query));
  for (const auto& [name, value] : request.headers) {
    in.headers.emplace_back(Lower(name), value);
  }
  in.body = request.body;
  in.peer = "127.0.0.1:1";
  in.request_id = "model";
  http::Router::Match match = router_.Find(in.method, in.path);
  http::Response out = http::ErrorResponse(404, "not_found", "no route for " + in.path);
  if (match.kind == http::Router::MatchKind::kFound) {
    in.route = match.route;
    in.path_params = match.params;
    out = (*match.handler)(in);
  }
  // The instance died while handling it: no answer comes back.
  if (scheduler->CurrentDead()) return FaultStatus(Fault::kCrash, point);
  if (fault == Fault::kLoseReply) {
    return UnknownOutcomeError("model: the reply to " + point + " " + in.path + " was lost");
  }
  aws::HttpResponse response;
  response.status = out.status;
  for (const auto& [name, value] : out.headers) {
    response.headers.emplace_back(Lower(name), value);
  }
  response.body = std::move(out.body);
  return response;
}

ServiceInstance::ServiceInstance(ServiceShared& shared) : sleeper_(shared.clock) {
  service::CommitServiceOptions options;
  options.hooks = shared.hooks;
  options.clock = shared.clock;
  options.observer = shared.commit_metrics.get();
  options.logger = QuietLogger();
  // The background publisher's calls fail (it is no actor); it must not
  // retry them in a tight loop meanwhile.
  options.publisher.threads = 1;
  options.publisher.first_retry = std::chrono::hours(1);
  service_ = std::make_unique<service::CommitService>(*shared.state, *shared.stores, options);
  api_ = std::make_unique<service::ServiceApi>(service::ServiceApiDeps{
      &shared.config, shared.authenticator.get(), service_.get(), shared.state,
      shared.commit_metrics.get(), &shared.metrics, &shared.logger});
  api_->AddRoutes(router_).IgnoreError();  // fixed routes: cannot clash
  http_ = std::make_unique<LoopbackHttpClient>(router_);
  credentials_ = aws::StaticCredentialsProvider(
      service::testing::TestCredentials(*shared.clock), *shared.clock);
  service_client::CommitServiceOptions client_options;
  client_options.url = kServiceUrl;
  client_options.token = kToken;
  client_ = std::make_unique<service_client::HttpCommitServiceClient>(
      client_options, *http_, *credentials_, *shared.clock, sleeper_);
}

}  // namespace deltacommit::model
