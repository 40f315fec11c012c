#include "service/http/server_metrics.h"

#include <array>
#include <string>

namespace deltacommit::http {
namespace {

std::string MethodLabel(std::string_view method) {
  static constexpr std::array<std::string_view, 7> kMethods = {
      "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"};
  for (std::string_view known : kMethods) {
    if (method == known) return std::string(known);
  }
  return "other";
}

}  // namespace

ServerMetrics::ServerMetrics(Metrics* metrics) {
  if (metrics == nullptr) return;
  requests_ =
      &metrics->AddCounter("http_requests_total", "HTTP requests answered.",
                           {"route", "method", "status"});
  duration_ = &metrics->AddHistogram(
      "http_request_duration_seconds",
      "Time from a request's first byte to its response's last byte.",
      {"route"}, {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
  open_connections_ =
      &metrics->AddGauge("http_open_connections", "Open HTTP connections.")
           .Get();
  handlers_in_flight_ = &metrics
                             ->AddGauge("http_handlers_in_flight",
                                        "Request handlers running now.")
                             .Get();
  rejected_ = &metrics->AddCounter(
      "http_connections_rejected_total",
      "Connections closed without serving them, by reason.", {"reason"});
}

void ServerMetrics::RequestDone(std::string_view route, std::string_view method,
                                int status, double seconds) {
  if (requests_ == nullptr) return;
  requests_
      ->WithLabels(
          {std::string(route), MethodLabel(method), std::to_string(status)})
      .Increment();
  duration_->WithLabels({std::string(route)}).Observe(seconds);
}

void ServerMetrics::ConnectionOpened() {
  if (open_connections_ != nullptr) open_connections_->Add(1);
}

void ServerMetrics::ConnectionClosed() {
  if (open_connections_ != nullptr) open_connections_->Add(-1);
}

void ServerMetrics::ConnectionRejected(std::string_view reason) {
  if (rejected_ != nullptr)
    rejected_->WithLabels({std::string(reason)}).Increment();
}

void ServerMetrics::HandlerStarted() {
  if (handlers_in_flight_ != nullptr) handlers_in_flight_->Add(1);
}

void ServerMetrics::HandlerFinished() {
  if (handlers_in_flight_ != nullptr) handlers_in_flight_->Add(-1);
}

}  // namespace deltacommit::http
