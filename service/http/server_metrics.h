// ServerMetrics: the HTTP server's own metrics, registered in a Metrics
// registry (or nothing at all when there is none):
//   http_requests_total{route,method,status}        counter
//   http_request_duration_seconds{route}            histogram, first byte of
//                                                   the request to the last
//                                                   byte of the response
//   http_open_connections                           gauge
//   http_handlers_in_flight                         gauge
//   http_connections_rejected_total{reason}         counter
// `route` is the matched pattern ("/v1/tables/{table}/commits"), never the
// raw path, and `method` is one of the standard methods or "other", so that
// clients cannot grow the label sets without bound.
//
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <string_view>

#include "service/http/metrics.h"

namespace deltacommit::http {

// The route label of a request that matched no route.
inline constexpr std::string_view kUnmatchedRoute = "unmatched";

class ServerMetrics {
 public:
  // `metrics` may be null (nothing is recorded); else it must outlive this.
  explicit ServerMetrics(Metrics* metrics);

  void RequestDone(std::string_view route, std::string_view method, int status,
                   double seconds);
  void ConnectionOpened();
  void ConnectionClosed();
  // `reason`: "max_connections", "accept_error".
  void ConnectionRejected(std::string_view reason);
  void HandlerStarted();
  void HandlerFinished();

 private:
  Metrics::Family<Counter>* requests_ = nullptr;
  Metrics::Family<Histogram>* duration_ = nullptr;
  Gauge* open_connections_ = nullptr;
  Gauge* handlers_in_flight_ = nullptr;
  Metrics::Family<Counter>* rejected_ = nullptr;
};

}  // namespace deltacommit::http
