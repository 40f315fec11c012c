// One catalog-managed table, two `deltacommit serve` instances sharing one
// DynamoDB state table (dynalite: commits and the catalog), 8 writers
// spread over both, 25 commits each: 2 run our CLI (`deltacommit commit
// uc://...`, a process per commit) and 2 our library, each commit with a
// txn so that a resend is recognised; 4 are drivers shaped as
// delta-kernel-rs's committer (one update-table per staged commit). Then
// the same with instance A killed by SIGKILL while they commit: a writer
// whose request got no answer turns to B (as behind a load balancer) and
// finds out there whether its commit landed. Versions must be contiguous
// from 0, each commit in the log once, every version published.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/cli_runner.h"
#include "common/serve_process.h"
#include "common/test_servers.h"
#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/table.h"
#include "local_files.h"
#include "serve_api_fixture.h"
#include "service/config/auth.h"
#include "service/http/http_test_util.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kToken[] = "uc-ha-admin-token-0123456789abcdef";
constexpr char kName[] = "uc://main.sales.events";
constexpr char kTablePath[] =
    "/api/2.1/unity-catalog/delta/v1/catalogs/main/schemas/sales/tables/events";
constexpr int kCliWriters = 2;      // writers 0, 1
constexpr int kLibraryWriters = 4;  // writers 2, 3 (and the CLI's before them)
constexpr int kDrivers = 4;
constexpr int kCommitsEach = 25;
constexpr int kTotal = (kLibraryWriters + kDrivers) * kCommitsEach;

class ServeUcHaTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    DC_REQUIRE_DYNAMODB();
    ASSERT_EQ(setenv("DELTACOMMIT_CATALOG_TOKEN", kToken, 1), 0);  // the CLI's
    base_ = fs::temp_directory_path() / ("dc-uc-ha-" + NewUuid());
    root_ = base_ / "root";
    fs::create_directories(root_);
    a_ = Start();
    ASSERT_NE(a_, nullptr);
    b_ = Start();  // after A: A made the state table
    ASSERT_NE(b_, nullptr);
    ASSERT_EQ(Call(*a_, "POST", "/api/2.1/unity-catalog/catalogs",
                   json{{"name", "main"}, {"storage_root", "file://" + root_.string()}})
                  .status,
              200);
    ASSERT_EQ(Call(*a_, "POST", "/api/2.1/unity-catalog/schemas",
                   json{{"name", "sales"}, {"catalog_name", "main"}})
                  .status,
              200);
  }

  void TearDown() override {
    a_.reset();
    b_.reset();
    fs::remove_all(base_);
  }

  std::unique_ptr<ServeProcess> Start() {
    auto started = ServeProcess::Start(
        "[server]\nlisten = \"127.0.0.1:0\"\n[state]\nkind = "
        "\"dynamodb\"\ntable = \"" +
        state_table_ + "\"\nendpoint = \"" + Env("AWS_ENDPOINT_URL_DYNAMODB") +
        "\"\nallow_http = true\n[local]\nroots = [\"" + root_.string() +
        "\"]\n[[token]]\nname = \"admin\"\nsha256 = \"" + service::HashToken(kToken) +
        "\"\ntables = [\"file://" + root_.string() +
        "\"]\ncatalogs = [\"*\"]\nactions = [\"manage\", \"commit\", "
        "\"read\"]\n");
    EXPECT_TRUE(started.ok()) << started.status().ToString();
    return started.ok() ? std::move(started).value() : nullptr;
  }

  // One request on its own connection; nullopt when the instance did not
  // answer (killed).
  static std::optional<http::testing::RawResponse> Send(const ServeProcess& to,
                                                        const std::string& method,
                                                        const std::string& path, const json& body) {
    http::testing::RawConnection connection(to.port());
    if (!connection.connected()) return std::nullopt;
    if (!connection.Send(http::testing::RawRequest(method, path,
                                                   "Authorization: Bearer " + std::string(kToken) +
                                                       "\r\nContent-Type: application/json\r\n",
                                                   body.is_null() ? "" : body.dump()))) {
      return std::nullopt;
    }
    return connection.ReadResponse(std::chrono::seconds(30));
  }
  static http::testing::RawResponse Call(const ServeProcess& to, const std::string& method,
                                         const std::string& path, const json& body) {
    std::optional<http::testing::RawResponse> answer = Send(to, method, path, body);
    EXPECT_TRUE(answer.has_value()) << method << " " << path;
    return answer.value_or(http::testing::RawResponse{});
  }

  TableOptions Options(const ServeProcess& to) const {
    TableOptions options;
    options.catalog_url = "http://127.0.0.1:" + std::to_string(to.port());
    options.catalog_token = kToken;
    options.on_warning = [](const std::string&) {};
    return options;
  }

  static AddFile File(const std::string& tag) {
    AddFile add;
    add.path = tag + ".parquet";
    add.size = 10;
    add.modification_time = 1;
    add.data_change = true;
    return add;
  }

  ServeProcess& Live(int preferred) { return preferred == 0 && !a_killed_ ? *a_ : *b_; }

  // Our client: commit `tag` with txn (writer, i) through `preferred`
  // while it answers, else through B; a resend after no answer is the same
  // txn, so it lands once. False on a failure the writer cannot get past.
  bool LibraryCommit(int writer, int i, int preferred, std::string& error) {
    CommitOptions options;
    options.app_transaction = std::make_pair("lib-" + std::to_string(writer), int64_t{i});
    for (int attempt = 0; attempt < 50; ++attempt) {
      const bool on_a = preferred == 0 && !a_killed_;
      StatusOr<Table> table = OpenTable(kName, Options(on_a ? *a_ : *b_));
      if (!table.ok()) {
        if (on_a) continue;  // A died under us: B next
        error = table.status().ToString();
        return false;
      }
      StatusOr<CommitOutcome> outcome =
          table->Commit({File("lib-" + std::to_string(writer) + "-" + std::to_string(i))}, options);
      if (outcome.ok() && outcome->result != CommitResult::kConflict) return true;
      if (!outcome.ok() && (on_a || outcome.status().code() == StatusCode::kUnavailable)) {
        continue;  // the same txn again
      }
      error = outcome.ok() ? "conflict" : outcome.status().ToString();
      return false;
    }
    error = "no commit after 50 attempts";
    return false;
  }

  // Our CLI, one process per commit, the same txn on every resend.
  bool CliCommit(int writer, int i, int preferred, std::string& error) {
    const std::string tag = "cli-" + std::to_string(writer) + "-" + std::to_string(i);
    CliResult last;
    for (int attempt = 0; attempt < 50; ++attempt) {
      ServeProcess& to = Live(preferred);
      last =
          RunCli({"commit", kName, "--catalog-url", "http://127.0.0.1:" + std::to_string(to.port()),
                  "--app-id", "cli-" + std::to_string(writer), "--app-version", std::to_string(i),
                  "--actions", "-"},
                 AddLine(tag + ".parquet") + "\n");
      if (last.exit_code == 0) return true;
    }
    error = "exit " + std::to_string(last.exit_code) + ": " + last.err;
    return false;
  }

  // The driver: load, stage latest + 1, one update-table; on 409 load
  // again; on no answer ask B whether its staged file was ratified. As
  // kernel-rs's UC HTTP client does after a 5xx or no answer, it waits
  // before resending, a step longer each time; after 429 it waits too, as
  // the engine must before its retry. It gives up after a time, not a count
  // of attempts (a loaded machine answers a conflict in milliseconds but
  // publishes in seconds), naming the last answer it had.
  bool DriverCommit(int writer, int i, int preferred, std::string& error) {
    const std::string tag = "kernel-" + std::to_string(writer) + "-" + std::to_string(i);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(4);
    std::string last = "none";
    int attempts = 0;
    for (int waits = 0; std::chrono::steady_clock::now() < deadline; ++attempts) {
      const auto wait = [&](const std::string& why) {
        last = why;
        std::this_thread::sleep_for(std::chrono::milliseconds(20 * std::min(++waits, 10)));
      };
      ServeProcess& to = Live(preferred);
      std::optional<http::testing::RawResponse> loaded = Send(to, "GET", kTablePath, nullptr);
      if (!loaded || loaded->status != 200) {
        wait(loaded ? "load " + std::to_string(loaded->status) + " " + loaded->body
                    : "load: no answer");
        continue;
      }
      const json table = json::parse(loaded->body, nullptr, false);
      const Version v = table.value("latest-table-version", -1) + 1;
      const std::string name = FormatVersion(v) + "." + NewUuid() + ".json";
      const int64_t ict = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      const std::string text =
          json{{"commitInfo",
                {{"inCommitTimestamp", ict}, {"timestamp", ict}, {"txnId", NewUuid()}}}}
              .dump() +
          "\n" +
          json{{"add",
                {{"path", tag + ".parquet"},
                 {"partitionValues", json::object()},
                 {"size", 10},
                 {"modificationTime", ict},
                 {"dataChange", true}}}}
              .dump() +
          "\n";
      WriteFile(location_ / "_delta_log" / "_staged_commits" / name, text);
      const json body = {
          {"requirements", json::array({{{"type", "assert-table-uuid"}, {"uuid", table_id_}}})},
          {"updates", json::array({{{"action", "add-commit"},
                                    {"commit",
                                     {{"version", v},
                                      {"timestamp", ict},
                                      {"file-name", name},
                                      {"file-size", text.size()},
                                      {"file-modification-timestamp", ict}}}}})}};
      std::optional<http::testing::RawResponse> answer = Send(to, "POST", kTablePath, body);
      if (answer && answer->status == 200) return true;
      if (answer && answer->status != 409 && answer->status != 503 && answer->status != 429) {
        error = std::to_string(answer->status) + " " + answer->body;
        return false;
      }
      if (!answer && Landed(v, name)) return true;  // ratified before the instance died
      const std::string what = answer
                                   ? "commit " + std::to_string(answer->status) + " " + answer->body
                                   : "commit: no answer";
      if (answer && answer->status == 409) {
        last = what;
        waits = 0;
      } else {
        wait(what);
      }
    }
    error = "no commit in 4 minutes (" + std::to_string(attempts) + " attempts); the last: " + last;
    return false;
  }

  // Asked of B after A went silent: is `name` version `v`?
  bool Landed(Version v, const std::string& name) {
    std::optional<http::testing::RawResponse> loaded = Send(*b_, "GET", kTablePath, nullptr);
    if (!loaded || loaded->status != 200) return false;
    const json table = json::parse(loaded->body, nullptr, false);
    for (const json& c : table.value("commits", json::array())) {
      if (c["version"] == v) return c["file-name"] == name;
    }
    const fs::path published = location_ / "_delta_log" / (FormatVersion(v) + ".json");
    return fs::exists(published) &&
           ReadFile(published) == ReadFile(location_ / "_delta_log" / "_staged_commits" / name);
  }

  const std::string state_table_ = "dc_uc_ha_" + NewUuid().substr(0, 8);
  fs::path base_, root_, location_;
  std::string table_id_;
  std::unique_ptr<ServeProcess> a_, b_;
  std::atomic<bool> a_killed_{false};
  std::atomic<int> acknowledged_{0};
};

TEST_P(ServeUcHaTest, EightWritersThroughTwoInstancesLandEachCommitOnce) {
  const bool kill = GetParam();
  {
    StatusOr<Table> table = OpenTable(kName, Options(*a_));
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    Metadata m;
    m.id = NewUuid();
    m.schema_string = R"({"type":"struct","fields":[]})";
    StatusOr<CommitOutcome> created = table->Create(m);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    location_ = table->uri();
    const json loaded = json::parse(Call(*a_, "GET", kTablePath, nullptr).body, nullptr, false);
    table_id_ = loaded["metadata"]["table-uuid"];
  }

  std::vector<std::string> errors(kLibraryWriters + kDrivers);
  std::vector<std::thread> writers;
  for (int w = 0; w < kLibraryWriters + kDrivers; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kCommitsEach; ++i) {
        std::string& error = errors[static_cast<size_t>(w)];
        const bool ok = w < kCliWriters       ? CliCommit(w, i, w % 2, error)
                        : w < kLibraryWriters ? LibraryCommit(w, i, w % 2, error)
                                              : DriverCommit(w, i, w % 2, error);
        if (!ok) return;
        ++acknowledged_;
      }
    });
  }
  if (kill) {
    while (acknowledged_ < kTotal / 4) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    a_->Kill();  // writers on A have commits in flight now
    a_killed_ = true;
  }
  for (std::thread& t : writers) t.join();
  for (const std::string& e : errors) {
    const std::string logs = e.empty() ? "" : b_->Logs();
    EXPECT_EQ(e, "") << "B's log ends:\n"
                     << logs.substr(logs.size() - std::min<size_t>(logs.size(), 6000));
  }

  // Through the survivor: versions 0..kTotal, each commit once, all
  // published, the log sound.
  StatusOr<Table> table = OpenTable(kName, Options(*b_));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  StatusOr<LogCheckReport> check = table->Check();
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->sound()) << check->problems.front();
  ASSERT_NE(check->snapshot, nullptr);
  EXPECT_EQ(check->snapshot->version(), kTotal);
  std::set<std::string> paths;
  for (const auto& [key, add] : check->snapshot->active_files()) paths.insert(add.path);
  EXPECT_EQ(paths.size(), static_cast<size_t>(kTotal)) << "each commit once";
  for (int w = 0; w < kLibraryWriters; ++w) {
    const std::string app = (w < kCliWriters ? "cli-" : "lib-") + std::to_string(w);
    EXPECT_EQ(check->snapshot->AppVersion(app), std::optional<int64_t>(kCommitsEach - 1)) << app;
  }
  const fs::path last = location_ / "_delta_log" / (FormatVersion(kTotal) + ".json");
  for (int i = 0; i < 400 && !fs::exists(last); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (Version v = 0; v <= kTotal; ++v) {
    EXPECT_TRUE(fs::exists(location_ / "_delta_log" / (FormatVersion(v) + ".json"))) << v;
  }
  EXPECT_EQ(b_->Terminate(), 0) << b_->Logs();
}

INSTANTIATE_TEST_SUITE_P(Runs, ServeUcHaTest, ::testing::Values(false, true),
                         [](const auto& run) { return run.param ? "OneKilled" : "BothUp"; });

}  // namespace
}  // namespace deltacommit::testing
