#include "service/http/http_server.h"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "service/http/connection.h"
#include "service/http/open_file_limit.h"
#include "service/http/server_state.h"
#include "service/http/tls_context.h"

namespace deltacommit::http {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

// After a failed accept (out of descriptors, most likely), wait this long
// before the next, rather than spin.
constexpr std::chrono::milliseconds kAcceptRetryDelay{100};
// After the drain, how long closing connections get to finish.
constexpr std::chrono::seconds kCloseGrace{5};

}  // namespace

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, Router router, Metrics* metrics,
       JsonLogger* logger)
      : state_(std::make_shared<ServerState>(
            std::move(options), std::move(router), metrics, logger)),
        acceptor_(net::make_strand(ioc_)),
        accept_retry_(acceptor_.get_executor()) {}

  ~Impl() { Stop(); }

  Status Start();
  void Stop();
  uint16_t port() const { return port_.load(); }
  bool stopping() const { return state_->stopping.load(); }

 private:
  Status Listen();
  void Accept();
  void OnAccept(const error_code& ec, tcp::socket socket);
  void CloseAcceptor();
  void Drain();

  // Declared first, destroyed last: connections share it.
  const std::shared_ptr<ServerState> state_;
  std::unique_ptr<net::ssl::context> tls_;  // outlives every connection
  net::io_context ioc_;
  tcp::acceptor acceptor_;          // on its own strand
  net::steady_timer accept_retry_;  // on the acceptor's strand
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_;
  std::vector<std::thread> io_threads_;
  std::atomic<uint16_t> port_{0};

  std::mutex stop_mu_;    // one Start()/Stop() at a time
  bool started_ = false;  // guarded by stop_mu_
  bool stopped_ = false;  // guarded by stop_mu_
};

Status HttpServer::Impl::Start() {
  std::lock_guard<std::mutex> lock(stop_mu_);
  if (started_ || stopped_) {
    return FailedPreconditionError("HttpServer::Start() called twice");
  }
  const HttpServerOptions& options = state_->options;
  if (options.tls.has_value()) {
    DC_ASSIGN_OR_RETURN(tls_, NewTlsContext(*options.tls));
  }
  StatusOr<uint64_t> file_limit = RaiseOpenFileLimit();
  if (!file_limit.ok()) {
    state_->Log(LogLevel::kWarn, "cannot raise the open-file limit",
                {{"error", file_limit.status().message()}});
  } else if (*file_limit < options.max_connections + 64) {
    state_->Log(LogLevel::kWarn,
                "the open-file limit is below max_connections: accepts will "
                "fail before the limit",
                {{"open_file_limit", *file_limit},
                 {"max_connections", options.max_connections}});
  }
  DC_RETURN_IF_ERROR(Listen());
  started_ = true;
  work_.emplace(net::make_work_guard(ioc_));
  size_t threads = options.io_threads == 0 ? 1 : options.io_threads;
  for (size_t i = 0; i < threads; ++i) {
    io_threads_.emplace_back([this] { ioc_.run(); });
  }
  net::post(acceptor_.get_executor(), [this] { Accept(); });
  state_->Log(LogLevel::kInfo, "listening",
              {{"address", options.address},
               {"port", port()},
               {"tls", tls_ != nullptr}});
  return OkStatus();
}

Status HttpServer::Impl::Listen() {
  const HttpServerOptions& options = state_->options;
  error_code ec;
  net::ip::address address = net::ip::make_address(options.address, ec);
  if (ec) {
    return InvalidArgumentError("listen address '" + options.address +
                                "' is not an IPv4 or IPv6 address");
  }
  tcp::endpoint endpoint(address, options.port);
  std::string where = options.address + ":" + std::to_string(options.port);
  if (acceptor_.open(endpoint.protocol(), ec) ||
      acceptor_.set_option(tcp::acceptor::reuse_address(true), ec) ||
      acceptor_.bind(endpoint, ec) ||
      acceptor_.listen(options.listen_backlog, ec)) {
    return UnavailableError("cannot listen on " + where + ": " + ec.message());
  }
  tcp::endpoint bound = acceptor_.local_endpoint(ec);
  if (ec) {
    return UnavailableError("cannot read the bound port of " + where + ": " +
                            ec.message());
  }
  port_.store(bound.port());
  return OkStatus();
}

// Runs on the acceptor's strand; one accept is outstanding at a time.
void HttpServer::Impl::Accept() {
  if (!acceptor_.is_open()) return;
  acceptor_.async_accept(net::make_strand(ioc_),
                         [this](const error_code& ec, tcp::socket socket) {
                           OnAccept(ec, std::move(socket));
                         });
}

void HttpServer::Impl::OnAccept(const error_code& ec, tcp::socket socket) {
  if (!acceptor_.is_open() || ec == net::error::operation_aborted) return;
  if (ec) {
    state_->metrics.ConnectionRejected("accept_error");
    state_->Log(LogLevel::kWarn, "accept failed", {{"error", ec.message()}});
    accept_retry_.expires_after(kAcceptRetryDelay);
    accept_retry_.async_wait([this](const error_code& wait_error) {
      if (!wait_error) Accept();
    });
    return;
  }
  bool reject = state_->connection_count() >= state_->options.max_connections;
  StartConnection(state_, std::move(socket), tls_.get(), reject);
  Accept();
}

void HttpServer::Impl::CloseAcceptor() {
  std::promise<void> closed;
  net::post(acceptor_.get_executor(), [this, &closed] {
    error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
    closed.set_value();
  });
  closed.get_future().wait();
}

// Idle connections close now; busy ones close after their answer; whatever
// is left at the deadline is closed by force.
void HttpServer::Impl::Drain() {
  for (const auto& connection : state_->Connections()) {
    connection->BeginShutdown();
  }
  auto deadline =
      std::chrono::steady_clock::now() + state_->options.drain_timeout;
  if (state_->WaitForNoConnections(deadline)) return;
  state_->Log(LogLevel::kWarn, "drain timeout passed; closing connections",
              {{"connections", state_->connection_count()}});
  for (const auto& connection : state_->Connections()) connection->ForceClose();
}

void HttpServer::Impl::Stop() {
  std::lock_guard<std::mutex> lock(stop_mu_);
  if (stopped_) return;
  stopped_ = true;
  state_->stopping.store(true);
  if (!started_) {
    state_->workers.Stop();
    return;
  }
  state_->Log(LogLevel::kInfo, "stopping",
              {{"connections", state_->connection_count()}});
  CloseAcceptor();
  Drain();
  // Handlers still running finish here; their answers find closed
  // connections.
  state_->workers.Stop();
  state_->WaitForNoConnections(std::chrono::steady_clock::now() + kCloseGrace);
  work_.reset();
  ioc_.stop();
  for (std::thread& thread : io_threads_) thread.join();
  state_->Log(LogLevel::kInfo, "stopped");
}

HttpServer::HttpServer(HttpServerOptions options, Router router,
                       Metrics* metrics, JsonLogger* logger)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(router),
                                   metrics, logger)) {}

HttpServer::~HttpServer() = default;

Status HttpServer::Start() { return impl_->Start(); }
uint16_t HttpServer::port() const { return impl_->port(); }
void HttpServer::Stop() { impl_->Stop(); }
bool HttpServer::stopping() const { return impl_->stopping(); }

}  // namespace deltacommit::http
