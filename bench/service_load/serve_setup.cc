#include "service_load/serve_setup.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "deltacommit/aws/http.h"

namespace deltacommit::bench {
namespace {

bool StartsWith(const std::string& line, std::string_view prefix) {
  return line.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string EnvOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string ServeConfig(const ServeSettings& s) {
  const std::string rgw = EnvOr("AWS_ENDPOINT_URL_S3");
  std::ostringstream c;
  c << "[server]\nlisten = \"127.0.0.1:0\"\nio_threads = 2\n"
    << "workers = " << s.workers << "\nmax_connections = " << s.max_connections
    << "\n"
    // Longer than any run: a kept connection idles from the first phase
    // to the last, and a request may wait behind a hot table's lock.
    << "request_timeout_ms = 120000\nidle_timeout_ms = "
       "3600000\ndrain_timeout_ms = 10000\n"
    << "[state]\nkind = \"sqlite\"\npath = \"" << s.state_path << "\"\n"
    << "[s3]\nendpoint = \"" << rgw << "\"\nregion = \""
    << EnvOr("AWS_REGION", "us-east-1")
    << "\"\nallow_http = " << (StartsWith(rgw, "http://") ? "true" : "false")
    << "\nenforces_if_none_match = true\n"
    << "[[token]]\nname = \"bench\"\nsha256 = \"" << s.token_sha256
    << "\"\ntables = [\"" << s.table_prefix
    << "\"]\nactions = [\"commit\", \"read\"]\n"
    << s.extra;
  return c.str();
}

bool EnsureOpenFileLimit(uint64_t needed) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return true;  // nothing to go on
  const auto was = static_cast<unsigned long long>(limit.rlim_cur);
  if (limit.rlim_cur < needed && limit.rlim_max >= needed) {
    limit.rlim_cur = needed;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) getrlimit(RLIMIT_NOFILE, &limit);
  }
  const auto now = static_cast<unsigned long long>(limit.rlim_cur);
  const auto hard = static_cast<unsigned long long>(limit.rlim_max);
  const auto want = static_cast<unsigned long long>(needed);
  if (now >= needed) {
    std::printf(
        "open-file limit (ulimit -n): %llu%s, hard %llu; this run needs about "
        "%llu\n",
        now,
        now != was ? (" (raised from " + std::to_string(was) + ")").c_str()
                   : "",
        hard, want);
    return true;
  }
  std::fprintf(
      stderr,
      "the open-file limit (ulimit -n) is %llu, hard limit %llu: this run "
      "needs about %llu (the idle connections, 3 per committer, and some "
      "to spare), and so does the service it starts. Raise it (`ulimit -n "
      "%llu`, as root or within the hard limit) or run with fewer "
      "--idle/--committers.\n",
      now, hard, want, want);
  return false;
}

int64_t ReportServiceSide(testing::ServeProcess& serve) {
  int64_t rejected = 0;
  aws::HttpRequest request;
  request.url = serve.Url("/metrics");
  StatusOr<aws::HttpResponse> metrics = aws::NewCurlHttpClient()->Send(request);
  std::printf("\nthe service's own counts (/metrics):\n");
  if (!metrics.ok() || metrics->status != 200) {
    std::printf("  !!!!! GET /metrics failed: %s\n",
                metrics.ok() ? std::to_string(metrics->status).c_str()
                             : metrics.status().ToString().c_str());
  } else {
    std::istringstream lines(metrics->body);
    for (std::string line; std::getline(lines, line);) {
      if (StartsWith(line, "http_connections_rejected_total")) {
        rejected += std::atoll(line.substr(line.rfind(' ') + 1).c_str());
      }
      if (StartsWith(line, "http_connections_rejected_total") ||
          StartsWith(line, "http_open_connections") ||
          StartsWith(line, "deltacommit_commits_total") ||
          StartsWith(line, "deltacommit_s3_errors_total") ||
          StartsWith(line, "deltacommit_state_store_errors_total")) {
        std::printf("  %s\n", line.c_str());
      }
    }
    if (rejected == 0) std::printf("  (no connection rejected)\n");
  }
  // By message and error code: a 409 is logged as a warning, once per
  // conflict, and is expected here in numbers.
  std::map<std::string, int64_t> warnings;
  std::istringstream log(serve.Logs());
  for (std::string line; std::getline(log, line);) {
    const nlohmann::json entry = nlohmann::json::parse(line, nullptr, false);
    if (!entry.is_object()) continue;
    const std::string level = entry.value("level", "");
    if (level != "warn" && level != "error") continue;
    const std::string code = entry.value("code", "");
    ++warnings[level + " \"" + entry.value("msg", "?") + "\"" +
               (code.empty() ? "" : " " + code)];
  }
  std::printf("warnings and errors in the service's log:%s\n",
              warnings.empty() ? " none" : "");
  for (const auto& [what, count] : warnings) {
    std::printf("  %lld x %s\n", static_cast<long long>(count), what.c_str());
  }
  return rejected;
}

}  // namespace deltacommit::bench
