// Many appender processes through a real `deltacommit serve` on RGW
// (docs/protocols/group-commit.md): every append lands exactly once, with
// the version the service assigned, no client retry, and group commit
// merges concurrent appends into fewer versions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/sanitizer_load.h"
#include "deltacommit/action_json.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using nlohmann::json;

// Sanitizer builds run a tenth of the load (tests/common/sanitizer_load.h).
constexpr int kWriters = LoadUnderSanitizers(100, 20), kAppends = LoadUnderSanitizers(10, 5);

class ServeAppendersTest : public ServeApiTest {
 protected:
  bool StartInSetUp() const override { return false; }

  void SetUp() override {
    ServeApiTest::SetUp();
    out_dir_ = std::filesystem::temp_directory_path() / ("dc-appenders-" + NewUuid());
    std::filesystem::create_directories(out_dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(out_dir_, ignored);
  }

  // A worker per concurrent appender: each waiting append holds one.
  void StartServeWithWorkers(const std::string& appends = "") {
    std::string config = Config(appends);
    config.replace(config.find("[server]\n"), 9, "[server]\nworkers = 160\n");
    auto started = ServeProcess::Start(config, "info");
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    serve_ = std::move(started).value();
  }

  std::vector<std::string> ServiceFlags() const {
    return {"--log-store", "service", "--service-url", serve_->Url(""), "--service-token",
            writer_token_};
  }
  CliResult Cli(std::vector<std::string> args) const {
    for (const std::string& flag : ServiceFlags()) args.push_back(flag);
    return RunCli(args);
  }

  // Runs `writers` `demo-writer` processes at once, `appends` appends each;
  // returns their outcome lines.
  std::vector<json> RunAppenders(int writers = kWriters, int appends = kAppends) {
    std::vector<std::thread> threads;
    std::vector<CliResult> results(static_cast<size_t>(writers));
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] {
        results[static_cast<size_t>(w)] =
            Cli({"demo-writer", table_, "--writer", std::to_string(w), "--commits",
                 std::to_string(appends), "--rows", "10", "--out", OutFile(w)});
      });
    }
    for (std::thread& t : threads) t.join();
    std::vector<json> lines;
    for (int w = 0; w < writers; ++w) {
      const CliResult& r = results[static_cast<size_t>(w)];
      EXPECT_EQ(r.exit_code, 0) << "writer " << w << ": " << r.err;
      std::ifstream in(OutFile(w));
      for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
    }
    return lines;
  }
  std::string OutFile(int writer) const {
    return (out_dir_ / ("writer-" + std::to_string(writer) + ".jsonl")).string();
  }

  // The version that added each data file, from the log itself.
  std::map<std::string, std::vector<Version>> AddedIn(const std::vector<std::string>& commits) {
    std::map<std::string, std::vector<Version>> added;
    ActionParser parser;
    for (size_t v = 0; v < commits.size(); ++v) {
      auto actions = parser.ParseCommit(Read(commits[v]));
      EXPECT_TRUE(actions.ok()) << commits[v] << ": " << actions.status().ToString();
      if (!actions.ok()) continue;
      for (const Action& a : *actions) {
        if (const auto* add = std::get_if<AddFile>(&a)) {
          added[add->path].push_back(static_cast<Version>(v));
        }
      }
    }
    return added;
  }

  std::filesystem::path out_dir_;
};

TEST_F(ServeAppendersTest, ManyProcessesAppendOnceEachWithoutRetriesInFewerVersions) {
  ASSERT_NO_FATAL_FAILURE(StartServeWithWorkers());
  CliResult created = Cli({"create", table_, "--schema", "id:long"});
  ASSERT_EQ(created.exit_code, 0) << created.err;

  std::vector<json> outcomes = RunAppenders();
  ASSERT_EQ(outcomes.size(), static_cast<size_t>(kWriters * kAppends));
  std::set<Version> versions;
  for (const json& o : outcomes) {
    EXPECT_EQ(o["result"], "committed") << o;
    EXPECT_EQ(o["attempts"], 1) << o;  // no client retry
    EXPECT_EQ(o["rebases"], 0) << o;
    EXPECT_EQ(o.value("assigned", false), true) << o;
    versions.insert(o["version"].get<Version>());
  }

  // The log: versions 0..V contiguous, every file added once, in the
  // version its writer was told.
  const std::vector<std::string> commits = CommitKeys();
  ASSERT_FALSE(commits.empty());
  for (size_t v = 0; v < commits.size(); ++v) EXPECT_EQ(commits[v], CommitPath(static_cast<Version>(v)));
  const Version latest = static_cast<Version>(commits.size()) - 1;
  EXPECT_EQ(*versions.rbegin(), latest);
  std::map<std::string, std::vector<Version>> added = AddedIn(commits);
  EXPECT_EQ(added.size(), outcomes.size());
  for (const json& o : outcomes) {
    const std::vector<Version>& in = added[o["path"].get<std::string>()];
    ASSERT_EQ(in.size(), 1u) << o;
    EXPECT_EQ(in[0], o["version"].get<Version>()) << o;
  }
  // Group commit: with this many appenders at once, versions were shared.
  EXPECT_LT(latest, kWriters * kAppends) << "no append shared a version";
  std::cout << "[ figures  ] " << kWriters * kAppends << " appends by " << kWriters
            << " processes landed in " << latest << " versions\n";

  CliResult check = Cli({"check", table_});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  // The service counts the same: every version after 0 a batch.
  const std::string metrics = Send("GET", "/metrics", "", "").body;
  EXPECT_THAT(metrics, ::testing::HasSubstr("deltacommit_append_batches_total " +
                                            std::to_string(latest) + "\n"));
  EXPECT_THAT(metrics, ::testing::HasSubstr("deltacommit_appends_merged_total " +
                                            std::to_string(kWriters * kAppends) + "\n"));
}

// max_batch_appends = 1: no group commit, still no client retry. (Fewer
// appends: every writer reads the whole, longer log before each append.)
TEST_F(ServeAppendersTest, WithoutGroupCommitEachAppendIsItsOwnVersion) {
  ASSERT_NO_FATAL_FAILURE(StartServeWithWorkers("[appends]\nmax_batch_appends = 1\n"));
  CliResult created = Cli({"create", table_, "--schema", "id:long"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  constexpr int kFewWriters = 16, kFewAppends = 4;
  std::vector<json> outcomes = RunAppenders(kFewWriters, kFewAppends);
  ASSERT_EQ(outcomes.size(), static_cast<size_t>(kFewWriters * kFewAppends));
  for (const json& o : outcomes) {
    EXPECT_EQ(o["attempts"], 1) << o;
    EXPECT_EQ(o["merged"], 1) << o;
  }
  EXPECT_EQ(CommitKeys().size(), static_cast<size_t>(kFewWriters * kFewAppends + 1));
}

}  // namespace
}  // namespace deltacommit::testing
