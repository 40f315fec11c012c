#include "service/http/metrics.h"

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/http/server_metrics.h"

namespace deltacommit::http {
namespace {

using ::testing::HasSubstr;

TEST(MetricsTest, RendersCountersGaugesAndHistogramsExactly) {
  Metrics metrics;
  auto& requests = metrics.AddCounter(
      "http_requests_total", "Requests answered.", {"route", "status"});
  auto& open = metrics.AddGauge("open_connections", "Open connections.");
  auto& latency = metrics.AddHistogram("latency_seconds", "Latency.", {"route"},
                                       {0.1, 0.5, 1});
  requests.WithLabels({"/v1/commits", "200"}).Increment();
  requests.WithLabels({"/v1/commits", "200"}).Increment(2);
  requests.WithLabels({"/healthz", "200"}).Increment();
  open.Get().Add(5);
  open.Get().Add(-2);
  auto& commits = latency.WithLabels({"/v1/commits"});
  commits.Observe(0.05);
  commits.Observe(0.1);  // "le" includes the bound
  commits.Observe(0.75);
  commits.Observe(3);

  EXPECT_EQ(metrics.Render(),
            "# HELP http_requests_total Requests answered.\n"
            "# TYPE http_requests_total counter\n"
            "http_requests_total{route=\"/healthz\",status=\"200\"} 1\n"
            "http_requests_total{route=\"/v1/commits\",status=\"200\"} 3\n"
            "# HELP open_connections Open connections.\n"
            "# TYPE open_connections gauge\n"
            "open_connections 3\n"
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{route=\"/v1/commits\",le=\"0.1\"} 2\n"
            "latency_seconds_bucket{route=\"/v1/commits\",le=\"0.5\"} 2\n"
            "latency_seconds_bucket{route=\"/v1/commits\",le=\"1\"} 3\n"
            "latency_seconds_bucket{route=\"/v1/commits\",le=\"+Inf\"} 4\n"
            "latency_seconds_sum{route=\"/v1/commits\"} 3.9\n"
            "latency_seconds_count{route=\"/v1/commits\"} 4\n");
}

TEST(MetricsTest, UnlabeledFamiliesShowZeroBeforeAnyUpdate) {
  Metrics metrics;
  metrics.AddCounter("started_total", "Started.");
  metrics.AddHistogram("wait_seconds", "Wait.", {}, {1});
  metrics.AddCounter("by_code_total", "By code.", {"code"});
  EXPECT_EQ(metrics.Render(),
            "# HELP started_total Started.\n"
            "# TYPE started_total counter\n"
            "started_total 0\n"
            "# HELP wait_seconds Wait.\n"
            "# TYPE wait_seconds histogram\n"
            "wait_seconds_bucket{le=\"1\"} 0\n"
            "wait_seconds_bucket{le=\"+Inf\"} 0\n"
            "wait_seconds_sum 0\n"
            "wait_seconds_count 0\n"
            "# HELP by_code_total By code.\n"
            "# TYPE by_code_total counter\n");
}

TEST(MetricsTest, EscapesLabelValuesAndHelp) {
  Metrics metrics;
  auto& family =
      metrics.AddCounter("x_total", "Line one\nback\\slash", {"path"});
  family.WithLabels({"a\"b\\c\nd"}).Increment();
  EXPECT_EQ(metrics.Render(),
            "# HELP x_total Line one\\nback\\\\slash\n"
            "# TYPE x_total counter\n"
            "x_total{path=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(MetricsTest, ConcurrentUpdatesAreAllCounted) {
  Metrics metrics;
  auto& counter = metrics.AddCounter("n_total", "N.", {"worker"});
  auto& histogram = metrics.AddHistogram("h", "H.", {}, {0.5}).Get();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        counter.WithLabels({"same"}).Increment();
        histogram.Observe(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter.WithLabels({"same"}).value(), 80000u);
  Histogram::Snapshot snapshot = histogram.Read();
  EXPECT_EQ(snapshot.cumulative, (std::vector<uint64_t>{0, 80000}));
  EXPECT_EQ(snapshot.sum, 80000.0);
}

TEST(ServerMetricsTest, RecordsRequestsConnectionsAndHandlers) {
  Metrics metrics;
  ServerMetrics server(&metrics);
  server.ConnectionOpened();
  server.ConnectionOpened();
  server.ConnectionClosed();
  server.HandlerStarted();
  server.RequestDone("/v1/commits", "POST", 200, 0.02);
  server.RequestDone(kUnmatchedRoute, "BREW", 404, 0.001);
  server.ConnectionRejected("max_connections");
  std::string text = metrics.Render();
  EXPECT_THAT(text, HasSubstr("http_requests_total{route=\"/v1/commits\","
                              "method=\"POST\",status=\"200\"} 1\n"));
  // Unknown methods share one label value: clients cannot grow the series.
  EXPECT_THAT(text, HasSubstr("http_requests_total{route=\"unmatched\","
                              "method=\"other\",status=\"404\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("http_request_duration_seconds_bucket{route=\"/"
                              "v1/commits\",le=\"0.025\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("http_open_connections 1\n"));
  EXPECT_THAT(text, HasSubstr("http_handlers_in_flight 1\n"));
  EXPECT_THAT(text, HasSubstr("http_connections_rejected_total{reason=\"max_"
                              "connections\"} 1\n"));
}

TEST(ServerMetricsTest, WithoutRegistryRecordsNothingAndDoesNotCrash) {
  ServerMetrics server(nullptr);
  server.ConnectionOpened();
  server.RequestDone("/x", "GET", 200, 0.1);
  server.HandlerStarted();
  server.HandlerFinished();
  server.ConnectionRejected("accept_error");
}

}  // namespace
}  // namespace deltacommit::http
