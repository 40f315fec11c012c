#include "service/process/service_process.h"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "service/api/commit_metrics.h"
#include "service/api/json_log_sink.h"
#include "service/api/service_api.h"
#include "service/commits/commit_service.h"
#include "service/commits/s3_object_store_factory.h"
#include "service/commits/table_store_factory.h"
#include "service/config/auth.h"
#include "service/http/http_server.h"
#include "service/http/run_until_signal.h"
#include "service/process/open_state_store.h"
#include "service/vend/bucket_credential_vendor.h"
#include "service/vend/sts_credential_vendor.h"
#include "service/unity/delta_rest_api.h"
#include "service/unity/uc_commits_api.h"
#include "service/unity/uc_credentials_api.h"
#include "service/unity/uc_rest_api.h"

namespace deltacommit::service {
namespace {

using std::chrono::milliseconds;

// Prints "error: <status>" to stderr, as the CLI prints its errors, and
// returns the code the CLI gives that Status.
ServiceExitCode ReportError(const Status& status) {
  std::cerr << "error: " << status.ToString() << "\n";
  switch (status.code()) {
    case StatusCode::kOk: return ServiceExitCode::kOk;
    case StatusCode::kInvalidArgument: return ServiceExitCode::kBadInput;
    case StatusCode::kNotFound: return ServiceExitCode::kNotFound;
    default: return ServiceExitCode::kError;
  }
}

http::HttpServerOptions ServerOptions(const ServiceConfig& config) {
  const ServerConfig& s = config.server;
  http::HttpServerOptions o;
  o.address = s.listen_host;
  o.port = s.listen_port;
  o.max_connections = static_cast<size_t>(s.max_connections);
  o.io_threads = static_cast<size_t>(s.io_threads);
  o.worker_threads = static_cast<size_t>(s.workers);
  o.max_queued_requests = static_cast<size_t>(s.max_queued_requests);
  o.max_body_bytes = static_cast<uint64_t>(s.max_body_bytes);
  o.request_timeout = milliseconds(s.request_timeout_ms);
  o.idle_timeout = milliseconds(s.idle_timeout_ms);
  o.drain_timeout = milliseconds(s.drain_timeout_ms);
  if (config.tls.enabled()) {
    o.tls = http::TlsFiles{config.tls.certificate, config.tls.private_key};
  }
  return o;
}

CommitServiceOptions CommitOptions(const ServiceConfig& config) {
  CommitServiceOptions o;
  o.limits.max_commit_bytes = config.commits.max_commit_bytes;
  o.limits.max_actions = config.commits.max_actions;
  o.min_credentials_validity_ms = config.commits.min_credentials_validity_ms;
  o.pending_list_limit = config.commits.pending_list_limit;
  o.publisher.threads = config.publish.threads;
  o.publisher.first_retry = milliseconds(config.publish.first_retry_ms);
  o.publisher.max_retry = milliseconds(config.publish.max_retry_ms);
  o.publisher.min_credentials_validity_ms = config.publish.min_credentials_validity_ms;
  o.retention.keep_published = config.state.keep_published_commits;
  o.appends.batch.max_appends = config.appends.max_batch_appends;
  o.appends.batch.max_bytes = config.appends.max_batch_bytes;
  o.appends.queue.max_wait = milliseconds(config.appends.max_batch_wait_ms);
  o.appends.queue.fill = config.appends.max_batch_appends;
  o.appends.queue.max_queued = config.appends.max_queued_appends;
  return o;
}

// Written whole or not at all: a reader never sees half a number.
Status WritePortFile(const std::string& path, uint16_t port) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << port << "\n";
    if (!out.flush()) return UnavailableError("cannot write the port file " + temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    return UnavailableError("cannot rename " + temp + " to " + path);
  }
  return OkStatus();
}

// Everything the running service is made of, in construction order (and
// so destroyed in reverse: the server first, the state store last).
class Service {
 public:
  Service(const ServiceConfig& config, http::JsonLogger& logger,
          std::unique_ptr<OpenedStateStore> state, http::LogLevel level)
      : config_(config),
        logger_(logger),
        state_(std::move(state)),
        commit_metrics_(metrics_),
        s3_stores_(*s3_http_, commit_metrics_),
        stores_(s3_stores_),
        commits_(state_->store(), stores_, WithObservers(CommitOptions(config), level)),
        authenticator_(config.tokens),
        api_({&config_, &authenticator_, &commits_, &state_->store(), &commit_metrics_, &metrics_,
              &logger_}),
        unity_api_(UnityDeps()),
        assume_role_(config.s3, *sts_http_, *service_credentials_),
        vendor_(config.s3, assume_role_),
        unity_commits_({UnityDeps(), &commits_, config.commits.max_unpublished_commits, &logger_,
                        &vendor_}),
        unity_credentials_(UnityDeps(), vendor_, &logger_),
        delta_api_({UnityDeps(), &commits_, config.commits.max_unpublished_commits, &logger_,
                    &vendor_},
                   unity_credentials_) {}

  ServiceExitCode Run(const std::string& port_file) {
    http::Router router;
    if (Status routes = api_.AddRoutes(router); !routes.ok()) return ReportError(routes);
    if (Status routes = unity_api_.AddRoutes(router); !routes.ok()) return ReportError(routes);
    if (Status routes = unity_commits_.AddRoutes(router); !routes.ok()) return ReportError(routes);
    if (Status routes = unity_credentials_.AddRoutes(router); !routes.ok()) {
      return ReportError(routes);
    }
    if (Status routes = delta_api_.AddRoutes(router); !routes.ok()) return ReportError(routes);
    http::HttpServer server(ServerOptions(config_), std::move(router), &metrics_, &logger_);
    api_.SetStoppingProbe([&server] { return server.stopping(); });
    if (Status started = server.Start(); !started.ok()) return ReportError(started);
    // The server logs "listening"; this adds what it serves with.
    logger_.Info("serving", {{"port", server.port()},
                             {"state_store", state_->store().Describe()},
                             {"config", config_.source},
                             {"tokens", config_.tokens.size()},
                             {"local_roots", config_.local.roots}});
    Status port_written = OkStatus();
    int signal = http::RunUntilSignal(server, [&] {
      if (!port_file.empty()) port_written = WritePortFile(port_file, server.port());
      if (!port_written.ok()) std::raise(SIGTERM);
    });
    if (!port_written.ok()) return ReportError(port_written);
    // The server has stopped (in-flight requests answered); what the
    // publisher has not published stays ratified in the state store.
    commits_.publisher().Stop();
    logger_.Info("shut down", {{"signal", signal},
                               {"tables_left_to_publish", commits_.publisher().ScheduledTables()}});
    return ServiceExitCode::kOk;
  }

 private:
  unity::UnityApiDeps UnityDeps() {
    return {&config_, &authenticator_, &state_->catalog(), &SystemClock()};
  }
  CommitServiceOptions WithObservers(CommitServiceOptions options, http::LogLevel level) {
    options.observer = &commit_metrics_;
    options.logger = NewJsonSpdLogger(logger_, "commits", level);
    return options;
  }

  const ServiceConfig& config_;
  http::JsonLogger& logger_;
  std::unique_ptr<OpenedStateStore> state_;
  http::Metrics metrics_;
  CommitMetrics commit_metrics_;
  std::unique_ptr<aws::HttpClient> s3_http_ = aws::NewCurlHttpClient();
  S3ObjectStoreFactory s3_stores_;
  TableStoreFactory stores_;  // S3 and [local] tables
  CommitService commits_;
  Authenticator authenticator_;
  ServiceApi api_;
  // Unity Catalog's names and commits (docs/unity-catalog.md).
  unity::UcRestApi unity_api_;
  // Credential vending (for clients, and for the service's own reads and
  // publishing of UC commits to S3 tables), per bucket: STS AssumeRole
  // signed with the service's own AWS chain (environment, profile), never a
  // client's; or the writer's own credentials passed through.
  std::unique_ptr<aws::HttpClient> sts_http_ = aws::NewCurlHttpClient();
  std::unique_ptr<aws::CredentialsProvider> service_credentials_ =
      aws::DefaultCredentialsChain({});
  StsCredentialVendor assume_role_;
  BucketCredentialVendor vendor_;
  unity::UcCommitsApi unity_commits_;
  unity::UcCredentialsApi unity_credentials_;
  // The Delta REST API (/delta/v1): the same catalog and commits.
  unity::DeltaRestApi delta_api_;
};

}  // namespace

ServiceExitCode RunService(const ServiceOptions& options) {
  // A peer closing its socket must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  StatusOr<ServiceConfig> config = LoadServiceConfig(options.config_path);
  if (!config.ok()) {
    ReportError(config.status());
    return ServiceExitCode::kBadInput;
  }
  http::JsonLogger logger(std::cerr, options.log_level);
  if (config->tokens.empty()) {
    logger.Warn("no [[token]] in the config: every /v1/ request will be refused with 401",
                {{"config", config->source}});
  }
  StatusOr<std::unique_ptr<OpenedStateStore>> state = OpenStateStore(config->state, logger);
  if (!state.ok()) {
    ReportError(state.status());
    return ServiceExitCode::kError;
  }
  Service running(*config, logger, std::move(state).value(), options.log_level);
  return running.Run(options.port_file);
}

}  // namespace deltacommit::service
