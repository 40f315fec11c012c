#include "service/http/connection.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "deltacommit/log_path.h"
#include "service/http/message_conversion.h"

namespace deltacommit::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = net::ip::tcp;
using SteadyClock = std::chrono::steady_clock;
using boost::system::error_code;

using PlainStream = tcp::socket;
using TlsStream = beast::ssl_stream<tcp::socket>;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

std::string PeerOf(const tcp::socket& socket) {
  error_code ec;
  tcp::endpoint peer = socket.remote_endpoint(ec);
  if (ec) return "unknown";
  std::string address = peer.address().to_string();
  if (peer.address().is_v6()) address = "[" + address + "]";
  return address + ":" + std::to_string(peer.port());
}

bool IsParseError(const error_code& ec) {
  return ec.category() ==
         beast_http::make_error_code(beast_http::error::bad_target).category();
}

// What the server answers on its own (not from a handler).
struct ServerError {
  int status;
  std::string_view code;
  std::string message;
};

template <typename Stream>
class Connection : public ConnectionBase,
                   public std::enable_shared_from_this<Connection<Stream>> {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  template <typename... StreamArgs>
  Connection(std::shared_ptr<ServerState> state, std::string peer,
             StreamArgs&&... stream_args)
      : state_(std::move(state)),
        options_(state_->options),
        stream_(std::forward<StreamArgs>(stream_args)...),
        timer_(stream_.get_executor()),
        peer_(std::move(peer)) {}

  ~Connection() override { state_->Unregister(id_); }

  void Start(uint64_t id, bool reject) {
    id_ = id;
    net::post(stream_.get_executor(),
              [self = this->shared_from_this(), reject] {
                if constexpr (kTls) {
                  self->Handshake(reject);
                } else if (reject) {
                  self->Reject();
                } else {
                  self->WaitForRequest();
                }
              });
  }

  void BeginShutdown() override {
    net::post(stream_.get_executor(), [self = this->shared_from_this()] {
      self->shutdown_requested_ = true;
      if (self->phase_ == Phase::kIdle) self->Close();
    });
  }

  void ForceClose() override {
    net::post(stream_.get_executor(),
              [self = this->shared_from_this()] { self->Close(); });
  }

 private:
  enum class Phase {
    kHandshake,
    kIdle,
    kReading,
    kHandling,
    kWriting,
    kClosing
  };

  tcp::socket& Socket() { return beast::get_lowest_layer(stream_); }

  // --- timers: one per connection; a stale expiry is told apart by the
  // generation it was armed with.
  void Arm(Phase phase, std::chrono::milliseconds timeout) {
    phase_ = phase;
    uint64_t generation = ++timer_generation_;
    timer_.expires_after(timeout);
    timer_.async_wait(
        [self = this->shared_from_this(), generation](error_code ec) {
          if (!ec && generation == self->timer_generation_) self->OnTimeout();
        });
  }

  void Disarm(Phase phase) {
    phase_ = phase;
    ++timer_generation_;
    timer_.cancel();
  }

  void OnTimeout() {
    if (closed_) return;
    if (phase_ == Phase::kReading) {
      // The pending read ends with operation_aborted; OnReadError answers 408.
      timed_out_ = true;
      error_code ignored;
      Socket().cancel(ignored);
      return;
    }
    Close();  // idle, handshake, writing or lingering for too long
  }

  // --- reading
  void Handshake(bool reject) {
    if constexpr (kTls) {
      Arm(Phase::kHandshake, options_.write_timeout);
      stream_.async_handshake(
          net::ssl::stream_base::server,
          [self = this->shared_from_this(), reject](error_code ec) {
            if (self->closed_) return;
            if (ec) {
              self->state_->Log(
                  LogLevel::kDebug, "tls handshake failed",
                  {{"peer", self->peer_}, {"error", ec.message()}});
              return self->Close();
            }
            if (reject) return self->Reject();
            self->WaitForRequest();
          });
    }
  }

  // Waits for the first byte of the next request under the idle timeout;
  // the request timeout starts only once it arrives.
  void WaitForRequest() {
    if (shutdown_requested_ || state_->stopping.load()) return Close();
    if (buffer_.size() > 0) return ReadHeader();  // pipelined
    Arm(Phase::kIdle, options_.idle_timeout);
    stream_.async_read_some(
        buffer_.prepare(4096),
        [self = this->shared_from_this()](error_code ec, size_t n) {
          if (self->closed_) return;
          if (ec) return self->Close();  // client closed, or idle too long
          self->buffer_.commit(n);
          self->ReadHeader();
        });
  }

  void ReadHeader() {
    request_start_ = SteadyClock::now();
    timed_out_ = false;
    Arm(Phase::kReading, options_.request_timeout);
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(options_.max_header_bytes));
    parser_->body_limit(options_.max_body_bytes);
    beast_http::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, size_t) {
          if (self->closed_) return;
          if (ec) return self->OnReadError(ec);
          self->OnHeader();
        });
  }

  // A client that sent "Expect: 100-continue" waits for our go-ahead before
  // the body; it gets it only once the header passed the limits and checks.
  void OnHeader() {
    if (Status checked = CheckRequestHeader(parser_->get(), parser_->chunked());
        !checked.ok()) {
      return RefuseHeader(checked);
    }
    auto expect = parser_->get().find(beast_http::field::expect);
    if (expect == parser_->get().end() || parser_->is_done() ||
        !EqualsIgnoreCase(expect->value(), "100-continue")) {
      return ReadBody();
    }
    net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                     [self = this->shared_from_this()](error_code ec, size_t) {
                       if (self->closed_) return;
                       if (ec) return self->Close();
                       self->ReadBody();
                     });
  }

  // A header that fails CheckRequestHeader: the body is left unread and its
  // framing is in doubt, so whatever follows on this connection could be a
  // smuggled request. Answer (400, or 501 for a coding we do not decode)
  // and close; the rest of the input is drained, never parsed.
  void RefuseHeader(const Status& refusal) {
    const BeastRequest& header = parser_->get();
    request_id_ = RequestIdFor(header);
    method_ = std::string(header.method_string());
    route_ = std::string(kUnmatchedRoute);
    parser_.reset();
    if (refusal.code() == StatusCode::kUnimplemented) {
      return AnswerError({501, "not_implemented", refusal.message()}, true);
    }
    AnswerError({400, "bad_request", refusal.message()}, true);
  }

  void ReadBody() {
    beast_http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, size_t) {
          if (self->closed_) return;
          if (ec) return self->OnReadError(ec);
          self->Disarm(Phase::kHandling);
          self->Dispatch();
        });
  }

  void OnReadError(const error_code& ec) {
    if (timed_out_) {
      return AnswerError(
          {408, "request_timeout",
           "the request was not received within " +
               std::to_string(options_.request_timeout.count()) + " ms"},
          true);
    }
    if (ec == beast_http::error::header_limit) {
      return AnswerError(
          {431, "headers_too_large",
           "the request line and headers exceed " +
               std::to_string(options_.max_header_bytes) + " bytes"},
          true);
    }
    if (ec == beast_http::error::body_limit) {
      return AnswerError(
          {413, "too_large",
           "the request body exceeds the limit of " +
               std::to_string(options_.max_body_bytes) + " bytes"},
          true);
    }
    if (IsParseError(ec) && ec != beast_http::error::end_of_stream &&
        ec != beast_http::error::partial_message) {
      return AnswerError(
          {400, "bad_request", "malformed HTTP request: " + ec.message()},
          true);
    }
    Close();  // the client went away
  }

  // --- handling
  void Dispatch() {
    BeastRequest& message = parser_->get();
    request_id_ = RequestIdFor(message);
    method_ = std::string(message.method_string());
    route_ = std::string(kUnmatchedRoute);
    keep_alive_ = message.keep_alive();
    StatusOr<Request> request = ToRequest(message);
    parser_.reset();
    if (!request.ok()) {
      return AnswerError({400, "bad_request", request.status().message()},
                         false);
    }
    path_ = request->path;
    Router::Match match = state_->router.Find(request->method, request->path);
    switch (match.kind) {
      case Router::MatchKind::kNotFound:
        return AnswerError({404, "not_found", "no route for " + Excerpt(path_)},
                           false);
      case Router::MatchKind::kBadPath:
        return AnswerError({400, "bad_request", match.error}, false);
      case Router::MatchKind::kMethodNotAllowed: {
        Response response =
            ErrorResponse(405, "method_not_allowed",
                          method_ + " is not allowed on " + Excerpt(path_) +
                              "; allowed: " + match.allow);
        response.headers.emplace_back("Allow", match.allow);
        return Answer(std::move(response));
      }
      case Router::MatchKind::kFound:
        break;
    }
    route_ = match.route;
    request->route = match.route;
    request->path_params = std::move(match.params);
    request->peer = peer_;
    request->request_id = request_id_;
    Submit(std::move(*request), match.handler);
  }

  void Submit(Request request, const Handler* handler) {
    auto job = [self = this->shared_from_this(), handler,
                request = std::move(request)] {
      if (self->abandoned_.load()) return;  // closed while queued
      Response response = self->RunHandler(*handler, request);
      net::post(self->stream_.get_executor(),
                [self, response = std::move(response)]() mutable {
                  if (!self->closed_) self->Answer(std::move(response));
                });
    };
    if (!state_->workers.TrySubmit(std::move(job))) {
      Response response =
          ErrorResponse(503, "unavailable",
                        "the server is at its limit of " +
                            std::to_string(options_.max_queued_requests) +
                            " queued requests; retry later");
      response.headers.emplace_back("Retry-After", "1");
      Answer(std::move(response));
    }
  }

  // Runs on a worker thread.
  Response RunHandler(const Handler& handler, const Request& request) {
    state_->metrics.HandlerStarted();
    Response response;
    std::string failure;
    try {
      response = handler(request);
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      failure = "an exception that is not a std::exception";
    }
    state_->metrics.HandlerFinished();
    if (failure.empty()) return response;
    state_->Log(LogLevel::kError, "handler threw",
                {{"request_id", request.request_id},
                 {"route", request.route},
                 {"error", failure}});
    return ErrorResponse(500, "internal",
                         "internal error; request id " + request.request_id);
  }

  // --- writing
  // With `close`, the connection closes after the answer: after a read
  // error the rest of the input cannot be trusted.
  void AnswerError(ServerError error, bool close) {
    if (request_id_.empty()) request_id_ = NewUuid();
    if (close) keep_alive_ = false;
    Answer(ErrorResponse(error.status, error.code, error.message));
  }

  // A connection at max_connections: 503 without reading, then close.
  void Reject() {
    state_->metrics.ConnectionRejected("max_connections");
    request_start_ = SteadyClock::now();
    Response response =
        ErrorResponse(503, "unavailable",
                      "the server is at its limit of " +
                          std::to_string(options_.max_connections) +
                          " connections; retry later");
    response.headers.emplace_back("Retry-After", "1");
    request_id_ = NewUuid();
    keep_alive_ = false;
    Answer(std::move(response));
  }

  void Answer(Response response) {
    if (Status valid = ValidateResponse(response); !valid.ok()) {
      state_->Log(LogLevel::kError, "handler returned an invalid response",
                  {{"request_id", request_id_},
                   {"route", route_},
                   {"error", valid.message()}});
      response = ErrorResponse(500, "internal",
                               "internal error; request id " + request_id_);
    }
    if (shutdown_requested_ || state_->stopping.load()) keep_alive_ = false;
    status_ = response.status;
    response_ = ToBeastResponse(std::move(response), request_id_, keep_alive_);
    Arm(Phase::kWriting, options_.write_timeout);
    beast_http::async_write(
        stream_, response_,
        [self = this->shared_from_this()](error_code ec, size_t) {
          self->OnWritten(ec);
        });
  }

  void OnWritten(const error_code& ec) {
    RecordRequest(ec);
    request_id_.clear();
    path_.clear();
    response_ = {};
    if (closed_) return;
    if (ec) return Close();
    if (!keep_alive_) return CloseGracefully();
    WaitForRequest();
  }

  void RecordRequest(const error_code& write_error) {
    double seconds =
        std::chrono::duration<double>(SteadyClock::now() - request_start_).count();
    state_->metrics.RequestDone(route_, method_, status_, seconds);
    if (!state_->LogEnabled(LogLevel::kInfo)) return;
    nlohmann::json fields = {{"request_id", request_id_},
                             {"method", method_},
                             {"route", route_},
                             {"path", Excerpt(path_)},
                             {"status", status_},
                             {"duration_ms", seconds * 1000.0},
                             {"peer", peer_}};
    if (write_error) fields["error"] = "write failed: " + write_error.message();
    state_->Log(LogLevel::kInfo, "request", fields);
  }

  // --- closing
  // Shuts the write side (TLS: close_notify) and drops what the client
  // still sends until it closes or linger_timeout passes.
  void CloseGracefully() {
    Arm(Phase::kClosing, options_.linger_timeout);
    if constexpr (kTls) {
      stream_.async_shutdown(
          [self = this->shared_from_this()](error_code) { self->Close(); });
    } else {
      error_code ignored;
      Socket().shutdown(tcp::socket::shutdown_send, ignored);
      Drain();
    }
  }

  void Drain() {
    buffer_.clear();
    stream_.async_read_some(
        buffer_.prepare(8192),
        [self = this->shared_from_this()](error_code ec, size_t) {
          if (self->closed_) return;
          if (ec) return self->Close();
          self->Drain();
        });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    abandoned_.store(true);
    Disarm(phase_);
    error_code ignored;
    Socket().shutdown(tcp::socket::shutdown_both, ignored);
    Socket().close(ignored);
  }

  // Log lines and messages quote paths, but never an unbounded amount.
  static std::string Excerpt(std::string_view s) {
    constexpr size_t kMax = 256;
    return s.size() <= kMax ? std::string(s)
                            : std::string(s.substr(0, kMax)) + "...";
  }

  const std::shared_ptr<ServerState> state_;
  const HttpServerOptions& options_;  // owned by state_
  Stream stream_;
  net::steady_timer timer_;
  const std::string peer_;
  uint64_t id_ = 0;

  // Touched only on the strand.
  beast::flat_buffer buffer_;
  std::optional<beast_http::request_parser<beast_http::string_body>> parser_;
  BeastResponse response_;  // alive while it is written
  Phase phase_ = Phase::kHandshake;
  uint64_t timer_generation_ = 0;
  bool timed_out_ = false;
  bool keep_alive_ = true;
  bool shutdown_requested_ = false;
  bool closed_ = false;
  SteadyClock::time_point request_start_;
  std::string request_id_;
  std::string method_;
  std::string route_ = std::string(kUnmatchedRoute);
  std::string path_;
  int status_ = 0;

  // Read by worker threads: a job whose connection closed skips its handler.
  std::atomic<bool> abandoned_{false};
};

}  // namespace

void StartConnection(std::shared_ptr<ServerState> state, tcp::socket socket,
                     net::ssl::context* tls, bool reject) {
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::string peer = PeerOf(socket);
  auto start = [&](auto connection) {
    uint64_t id = state->Register(connection);
    connection->Start(id, reject);
  };
  if (tls != nullptr) {
    start(std::make_shared<Connection<TlsStream>>(state, std::move(peer),
                                                  std::move(socket), *tls));
  } else {
    start(std::make_shared<Connection<PlainStream>>(state, std::move(peer),
                                                    std::move(socket)));
  }
}

}  // namespace deltacommit::http
