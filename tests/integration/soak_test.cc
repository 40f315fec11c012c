// The soak (issue 8): writer processes on four tables on RGW, one per commit
// mode (s3-conditional, s3-dynamodb on dynalite, service and coordinated
// through two `deltacommit serve` instances sharing DynamoDB state), while
// a chaos thread kills random writer processes and serve instance A with
// SIGKILL at random moments (A is restarted on a new port each time).
//
// Each writer commits a sequence of blind appends, each with its own txn
// (app soak-w<w>, version c), and resends a commit whose process died or
// failed until the CLI says committed or already-committed: that is the
// acknowledgement. At the end every table must hold versions contiguous
// from 0, every acknowledged add and txn exactly once, no torn file, every
// DynamoDB entry complete, nothing left unpublished, and `check` passes.
//
// CI runs it for 60 s (DELTACOMMIT_SOAK_SECONDS, DELTACOMMIT_SOAK_WRITERS,
// DELTACOMMIT_SOAK_SEED); scripts/soak.sh runs the 10-minute version.
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "common/cli_runner.h"
#include "serve_api_fixture.h"
#include "soak_chaos.h"
#include "soak_log.h"

namespace deltacommit::testing {
namespace {

using nlohmann::json;

int EnvInt(const char* name, int fallback) {
  const std::string value = Env(name);
  return value.empty() ? fallback : std::atoi(value.c_str());
}

// DELTACOMMIT_SOAK_SEED, else a fresh one (printed, to rerun the same chaos).
uint64_t Seed() {
  const std::string value = Env("DELTACOMMIT_SOAK_SEED");
  return value.empty() ? std::random_device{}() : std::stoull(value);
}

// The modes, one table each, in writer order (writer w writes table w % 4).
const std::vector<std::string> kModes = {"s3-conditional", "s3-dynamodb", "service",
                                         "coordinated"};

class SoakTest : public ServeApiTest {
 protected:
  bool StartInSetUp() const override { return false; }

  void SetUp() override {
    DC_REQUIRE_DYNAMODB();
    ServeApiTest::SetUp();
    work_dir_ = std::filesystem::temp_directory_path() / ("dc-soak-" + NewUuid());
    std::filesystem::create_directories(work_dir_);
    ::setenv("DELTACOMMIT_SERVICE_TOKEN", writer_token_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("DELTACOMMIT_SERVICE_TOKEN");
    std::filesystem::remove_all(work_dir_);
  }

  std::string TableUri(const std::string& mode) const { return table_ + "/" + mode; }

  // The options that put a command on `mode`'s log store.
  std::vector<std::string> ModeOptions(const std::string& mode, const std::string& url) const {
    std::vector<std::string> options = {"--log-store", mode};
    if (mode == "s3-dynamodb") {
      options.insert(options.end(),
                     {"--storage-option",
                      "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=" + lock_table_});
    }
    if (mode == "service" || mode == "coordinated") {
      options.insert(options.end(), {"--service-url", url});
    }
    return options;
  }

  CliResult Cli(std::vector<std::string> args, const std::string& mode) {
    const std::vector<std::string> options = ModeOptions(mode, chaos_->ServiceUrl(0));
    args.insert(args.end(), options.begin(), options.end());
    return RunCli(args);
  }

  // Commits writer w's c-th append until acknowledged. False when it never was.
  bool CommitUntilAcknowledged(int w, int c, SoakCounters& counters) {
    const std::string mode = kModes[static_cast<size_t>(w) % kModes.size()];
    const std::string actions = (work_dir_ / ("w" + std::to_string(w) + ".json")).string();
    std::ofstream(actions) << AddAction(SoakTag(w, c));
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::vector<std::string> args = {"commit", TableUri(mode), "--actions", actions,
                                       "--app-id", "soak-w" + std::to_string(w),
                                       "--app-version", std::to_string(c), "--max-attempts",
                                       "1000"};
      const std::vector<std::string> options = ModeOptions(mode, chaos_->ServiceUrl(w + attempt));
      args.insert(args.end(), options.begin(), options.end());
      const int status = chaos_->RunKillable(args);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
      if (WIFSIGNALED(status)) {
        ++counters.writers_killed;
      } else {
        ++counters.failed_attempts;  // e.g. its serve instance was killed under it
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    ADD_FAILURE() << "writer " << w << " commit " << c << " never acknowledged";
    return false;
  }

  // Waits (up to a minute) until serve has published every ratified commit
  // of `mode`'s table: the log is then complete in the store.
  void WaitUntilPublished(const std::string& mode) {
    aws::HttpRequest pending;
    pending.method = "GET";
    pending.headers = {{"Authorization", "Bearer " + writer_token_}};
    for (int i = 0; i < 600; ++i) {
      pending.url = chaos_->ServiceUrl(1) + PendingPath(TableUri(mode), 0);
      StatusOr<aws::HttpResponse> listed = http_->Send(pending);
      if (listed.ok() && listed->status == 200 &&
          json::parse(listed->body, nullptr, false).value("commits", json::array()).empty()) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << mode << ": commits still unpublished after a minute";
  }

  std::filesystem::path work_dir_;
  const std::string lock_table_ = "dc_soak_locks_" + NewUuid().substr(0, 8);
  const std::string state_table_ = "dc_soak_state_" + NewUuid().substr(0, 8);
  std::unique_ptr<SoakChaos> chaos_;
};

TEST_F(SoakTest, WritersAndAServeInstanceKilledAtRandomLoseNothingAndDoubleNothing) {
  const int seconds = EnvInt("DELTACOMMIT_SOAK_SECONDS", 60);
  const int writers = EnvInt("DELTACOMMIT_SOAK_WRITERS", 32);
  const uint64_t seed = Seed();
  std::cout << "[ soak     ] " << writers << " writers, " << seconds << " s, seed " << seed
            << " (DELTACOMMIT_SOAK_SEED)\n";
  ASSERT_GE(writers, static_cast<int>(kModes.size()));
  chaos_ = std::make_unique<SoakChaos>(ConfigWithDynamoDbState(state_table_), seed);
  ASSERT_TRUE(chaos_->StartInstances()) << "the serve instances did not start";

  ASSERT_EQ(RunCli({"dynamodb", "create-table", "--table-name", lock_table_}).exit_code, 0);
  for (const std::string& mode : kModes) {
    CliResult created = Cli({"create", TableUri(mode), "--schema", "id:long"}, mode);
    ASSERT_EQ(created.exit_code, 0) << mode << ": " << created.err;
  }

  SoakCounters counters;
  std::vector<int> acknowledged(static_cast<size_t>(writers), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  chaos_->Begin(deadline);
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      // The last commit started before the deadline is still resent until acknowledged.
      for (int c = 0; std::chrono::steady_clock::now() < deadline; ++c) {
        if (!CommitUntilAcknowledged(w, c, counters)) return;
        ++acknowledged[static_cast<size_t>(w)];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  chaos_->End();

  int total = 0;
  for (int n : acknowledged) total += n;
  std::cout << "[ soak     ] " << total << " commits acknowledged; " << counters.writers_killed
            << " writer processes killed; " << counters.failed_attempts
            << " attempts failed; serve instance A killed " << chaos_->instance_kills()
            << " times\n";
  EXPECT_GT(chaos_->instance_kills(), 0) << "the run was too short to kill the serve instance";
  EXPECT_GT(counters.writers_killed.load(), 0) << "no writer process was killed";

  for (size_t m = 0; m < kModes.size(); ++m) {
    SCOPED_TRACE(kModes[m]);
    std::map<std::string, int> expected;  // tag -> writer
    for (int w = static_cast<int>(m); w < writers; w += static_cast<int>(kModes.size())) {
      for (int c = 0; c < acknowledged[static_cast<size_t>(w)]; ++c) expected[SoakTag(w, c)] = w;
    }
    if (kModes[m] == "coordinated") WaitUntilPublished(kModes[m]);
    ExpectSoakLog(*s3_.store, kModes[m], expected);
    CliResult check = Cli({"check", TableUri(kModes[m])}, kModes[m]);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }
  CliResult status = RunCli({"dynamodb", "status", TableUri("s3-dynamodb"), "--json",
                             "--storage-option",
                             "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=" + lock_table_});
  EXPECT_EQ(status.exit_code, 0) << status.out << status.err;
  json report = json::parse(status.out, nullptr, false);
  EXPECT_EQ(report.value("healthy", false), true) << status.out;
  EXPECT_EQ(report.value("incompleteEntries", json::array()), json::array()) << status.out;
}

}  // namespace
}  // namespace deltacommit::testing
