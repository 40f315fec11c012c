// The commit service under load: a real `deltacommit serve` (SQLite state,
// the test servers' RGW), N concurrent committers and M idle keep-alive
// connections held from phase b to the end. Phases, run one after
// the other in one process so their ratios are comparable:
//   a. service, committers spread over tables, no idle connections
//   b. the same with the idle connections open              -> ratio (a)
//   c. the same committers straight to S3 (If-None-Match)   -> ratio (b)
//   d. service, every committer on one hot table
//   e. straight to S3, one hot table                        -> ratio (b)
//   f. service appends (server-assigned versions, group commit), hot table
//   g. the same on a second service with max_batch_appends = 1 (no group
//      commit)                                              -> ratios (c)
// then every idle connection must still be open and answer. After each phase
// each table's log is checked (versions contiguous, every acknowledged commit
// exactly once, at its version) and deleted. Exit 1 on any refusal, error or
// log problem. See docs/benchmarks.md.
//
//   service_load_bench [--committers N] [--tables T] [--idle M] [--seconds S]
//                      [--workers W] [--phases abcde] [--state-path FILE]
//                      [--log-level L] [--keep]
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/test_servers.h"
#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"
#include "service/config/auth.h"
#include "service_load/idle_connections.h"
#include "service_load/phase_runner.h"
#include "service_load/serve_setup.h"

namespace deltacommit::bench {
namespace {

struct Options {
  int committers = 40;
  int tables = 0;  // 0: one per 10 committers
  int idle = 200;
  double seconds = 5;
  int workers = 0;  // 0: committers + 16
  std::string log_level = "info";
  std::string state_path = "state.sqlite";
  std::string phases = "abcdefg";
  bool keep = false;
};

int* IntFlag(Options& o, const std::string& flag) {
  if (flag == "--committers") return &o.committers;
  if (flag == "--tables") return &o.tables;
  if (flag == "--idle") return &o.idle;
  if (flag == "--workers") return &o.workers;
  return nullptr;
}

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--keep") {
      o.keep = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    if (flag == "--seconds") {
      o.seconds = std::atof(value);
    } else if (flag == "--log-level") {
      o.log_level = value;
    } else if (flag == "--state-path") {
      o.state_path = value;
    } else if (flag == "--phases") {
      o.phases = value;
    } else if (int* field = IntFlag(o, flag)) {
      *field = std::atoi(value);
    } else {
      return false;
    }
  }
  if (o.tables == 0) o.tables = std::max(1, o.committers / 10);
  if (o.workers == 0) o.workers = o.committers + 16;
  return o.committers > 0 && o.tables > 0 && o.tables <= o.committers &&
         o.idle >= 0 && o.seconds > 0 && o.workers > 0;
}

constexpr char kUsage[] =
    "usage: service_load_bench [--committers N (40)] [--tables T (N/10)]\n"
    "         [--idle M (200)] [--seconds S per phase (5)] [--workers W "
    "(N+16)]\n"
    "         [--phases abcdefg] [--state-path FILE] [--log-level L (info)] "
    "[--keep]\n"
    "phases: a service, b service with the idle connections, c direct to S3,\n"
    "        d service on one hot table, e direct to S3 on one hot table,\n"
    "        f service appends on one hot table, g the same without group "
    "commit\n"
    "needs the test servers' environment: source /tmp/servers.env or\n"
    "eval \"$(scripts/test-servers up)\"\n";

void PrintSettings(const Options& o, const ServeSettings& s, uint16_t port) {
  std::printf(
      "deltacommit serve on 127.0.0.1:%u: workers %d, io_threads 2, "
      "max_connections %d, idle_timeout 1 h, SQLite state at %s, log "
      "level %s; S3: %s\n",
      port, s.workers, s.max_connections, s.state_path.c_str(),
      s.log_level.c_str(), EnvOr("AWS_ENDPOINT_URL_S3").c_str());
  std::printf(
      "%d committers on %d tables (%d each), or all on one hot table; "
      "%d idle keep-alive connections; %.0f s per phase; %u cores\n",
      o.committers, o.tables, o.committers / o.tables, o.idle, o.seconds,
      std::thread::hardware_concurrency());
}

bool ReportIdle(const char* when, int wanted, const ConnectionTally& tally) {
  std::printf(
      "idle connections %s: %d of %d open and answering 200 on the "
      "same connection\n",
      when, tally.ok, wanted);
  for (const auto& [what, count] : tally.failures) {
    std::printf("  !!!!! %d x %s\n", count, what.c_str());
  }
  return tally.ok == wanted;
}

// Phase g: appends to a second service whose batches hold one append.
void RunWithoutGroupCommit(const Options& o, PhaseRunner& runner,
                           std::map<char, PhaseSummary>& p) {
  ServeSettings settings = runner.settings;
  settings.extra = "[appends]\nmax_batch_appends = 1\n";
  settings.state_path = "state-g.sqlite";
  auto serve = testing::ServeProcess::Start(ServeConfig(settings), o.log_level);
  if (!serve.ok()) {
    std::printf("!!!!! cannot start the second deltacommit serve: %s\n",
                serve.status().ToString().c_str());
    runner.ok = false;
    return;
  }
  const ServiceTarget first = runner.target;
  runner.target.commits_url = (*serve)->Url("/v1/commits");
  p['g'] = runner.Run("service appends, no group commit, hot table", "g", 1, Method::kAppend);
  runner.target = first;
  std::printf("\nthe second service (phase g):\n");
  const int64_t rejected = ReportServiceSide(**serve);
  runner.ok = (*serve)->Terminate() == 0 && rejected == 0 && runner.ok;
}

// Runs the phases --phases names, in order; the idle connections are opened
// after phase a and held to the end, when each must still answer.
std::map<char, PhaseSummary> RunPhases(const Options& o, PhaseRunner& runner,
                                       IdleConnections& connections,
                                       uint16_t port, bool& idle_ok) {
  std::map<char, PhaseSummary> p;
  auto run = [&](char phase, const std::string& name, int tables, Method method) {
    if (o.phases.find(phase) == std::string::npos) return;
    p[phase] = runner.Run(name, std::string(1, phase), tables, method);
  };
  const std::string idle = "+" + std::to_string(o.idle) + " idle";
  run('a', "service, no idle", o.tables, Method::kService);
  idle_ok =
      ReportIdle("opened", o.idle, connections.Open(port, o.idle, "/healthz"));
  run('b', "service, " + idle, o.tables, Method::kService);
  run('c', "direct to S3", o.tables, Method::kDirect);
  run('d', "service, hot table, " + idle, 1, Method::kService);
  run('e', "direct to S3, hot table", 1, Method::kDirect);
  run('f', "service appends, hot table, " + idle, 1, Method::kAppend);
  if (o.phases.find('g') != std::string::npos) RunWithoutGroupCommit(o, runner, p);
  idle_ok =
      ReportIdle("after the run", o.idle, connections.Check("/healthz")) &&
      idle_ok;
  return p;
}

void PrintRatios(const Options& o, const std::map<char, PhaseSummary>& p) {
  std::printf("\nratios (a / b), measured side by side in this run:\n");
  auto ratio = [&](const std::string& label, char a, char b) {
    if (p.contains(a) && p.contains(b)) PrintRatio(label, p.at(a), p.at(b));
  };
  const std::string tables = std::to_string(o.tables) + " tables";
  ratio("(a) service with " + std::to_string(o.idle) + " idle / without", 'b',
        'a');
  ratio("(b) service / direct to S3, " + tables, 'b', 'c');
  ratio("(b) service / direct to S3, hot table", 'd', 'e');
  ratio("    service, hot table / " + tables, 'd', 'b');
  ratio("(c) appends / versioned commits through the service, hot table", 'f', 'd');
  ratio("(c) appends / direct to S3 (client retries), hot table", 'f', 'e');
  ratio("(c) appends with group commit / without, hot table", 'f', 'g');
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (auto why = testing::S3Unavailable()) {
    std::fprintf(stderr, "%s\n%s", why->c_str(), kUsage);
    return 2;
  }
  // Ours: the idle connections, and per committer a connection to the
  // service, one to S3 and a thread's worth of slack.
  const int files = o.idle + 3 * o.committers + 256;
  if (!EnsureOpenFileLimit(static_cast<uint64_t>(files))) return 2;
  const std::string token = "bench-" + NewUuid();
  const ServeSettings settings{
      .workers = o.workers,
      .max_connections = o.idle + 2 * o.committers + 256,
      .log_level = o.log_level,
      .state_path = o.state_path,
      .table_prefix = "s3://" + EnvOr("DELTACOMMIT_TEST_BUCKET") +
                      "/bench/service-load-" + NewUuid(),
      .token_sha256 = service::HashToken(token),
      .extra = {}};
  auto serve = testing::ServeProcess::Start(ServeConfig(settings), o.log_level);
  if (!serve.ok()) {
    std::fprintf(stderr, "cannot start deltacommit serve: %s\n",
                 serve.status().ToString().c_str());
    return 2;
  }
  PrintSettings(o, settings, (*serve)->port());

  const std::string servers_dir = EnvOr("DELTACOMMIT_TEST_SERVERS_DIR");
  const CpuMeter cpu((*serve)->pid(),
                     servers_dir.empty() ? "" : servers_dir + "/s3/");
  PhaseRunner runner;
  runner.committers = o.committers;
  runner.seconds = o.seconds;
  runner.keep = o.keep;
  runner.prefix = settings.table_prefix;
  runner.target = {
      (*serve)->Url("/v1/commits"), token,
      {EnvOr("AWS_ACCESS_KEY_ID"), EnvOr("AWS_SECRET_ACCESS_KEY"), "",
       aws::internal::FormatUtc(SystemClock().NowMillis() + 3'600'000)}};
  runner.cpu = &cpu;
  runner.settings = settings;
  IdleConnections connections;
  bool idle_ok = true;
  const auto phases =
      RunPhases(o, runner, connections, (*serve)->port(), idle_ok);
  PrintPhases(runner.phases);
  PrintRatios(o, phases);
  const int64_t rejected = ReportServiceSide(**serve);
  const int exit_code = (*serve)->Terminate();
  std::printf("deltacommit serve exited with %d after SIGTERM\n", exit_code);
  const bool ok = runner.ok && idle_ok && rejected == 0 && exit_code == 0;
  std::printf("\nRESULT: %s\n",
              ok ? "OK: no refusals, no errors, every log intact, every idle "
                   "connection held"
                 : "!!!!! FAILED: see the !!!!! lines above !!!!!");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace deltacommit::bench

int main(int argc, char** argv) { return deltacommit::bench::Main(argc, argv); }
