// The CLI as users run it: separate processes committing to one local table
// at once, racing on conflicting operations, and killed mid-commit.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/sanitizer_load.h"
#include "deltacommit/action_json.h"
#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/posix/posix_object_store.h"

namespace deltacommit {
namespace {

using testing::CliResult;
using testing::LoadUnderSanitizers;
using testing::RunCli;
using testing::AddLine;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dc-it-XXXXXX";
    dir_ = mkdtemp(tmpl);
    table_ = dir_ + "/table";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Create(const std::string& schema = "id:long,region:string",
              std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"create", table_, "--schema", schema};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // Every commit file, parsed; fails the test on a gap or unparseable file.
  std::map<Version, std::vector<Action>> ReadAllCommits() {
    PosixObjectStore store(table_);
    ObjectStoreLogStore log(store, "local");
    std::map<Version, std::vector<Action>> out;
    auto listing = log.List(0);
    EXPECT_TRUE(listing.ok());
    for (const ObjectMeta& m : *listing) {
      ParsedLogPath p = ParseLogPath(std::string_view(m.key).substr(kLogDir.size()));
      if (p.type != LogFileType::kCommit) continue;
      auto actions = ReadCommit(log, p.version);
      EXPECT_TRUE(actions.ok()) << m.key << ": " << actions.status().ToString();
      if (actions.ok()) out[p.version] = std::move(actions).value();
    }
    Version expected = 0;
    for (const auto& [v, actions] : out) EXPECT_EQ(v, expected++) << "gap in the log";
    return out;
  }

  // path -> number of commits that added it.
  std::map<std::string, int> AddCounts() {
    std::map<std::string, int> counts;
    for (const auto& [v, actions] : ReadAllCommits()) {
      for (const Action& a : actions) {
        if (auto* add = std::get_if<AddFile>(&a)) counts[add->path]++;
      }
    }
    return counts;
  }

  std::string dir_;
  std::string table_;
};

TEST_F(CliTest, CreateThenSnapshotHistoryAndCheckDescribeTheTable) {
  Create("id:long,region:string", {"--partition-by", "region", "--property",
                                   "delta.appendOnly=true"});
  ASSERT_EQ(RunCli({"commit", table_, "--actions", "-"}, AddLine("region=eu/a.parquet")).exit_code, 0);
  CliResult snap = RunCli({"snapshot", table_, "--json", "--files"});
  ASSERT_EQ(snap.exit_code, 0) << snap.err;
  auto j = nlohmann::json::parse(snap.out);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["numFiles"], 1);
  EXPECT_EQ(j["sizeInBytes"], 100);
  EXPECT_EQ(j["metadata"]["partitionColumns"], nlohmann::json::array({"region"}));
  EXPECT_EQ(j["metadata"]["configuration"]["delta.appendOnly"], "true");
  EXPECT_EQ(j["protocol"]["minWriterVersion"], 2);
  EXPECT_EQ(j["files"][0]["path"], "region=eu/a.parquet");
  EXPECT_TRUE(j["txns"].is_object());
  CliResult hist = RunCli({"history", table_, "--json"});
  ASSERT_EQ(hist.exit_code, 0) << hist.err;
  auto h = nlohmann::json::parse(hist.out);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0]["operation"], "WRITE");
  EXPECT_EQ(h[1]["operation"], "CREATE TABLE");
  EXPECT_EQ(RunCli({"check", table_}).exit_code, 0);
  // The table is append-only: removing data is refused, nothing written.
  CliResult rm = RunCli({"commit", table_, "--actions", "-"},
                        "{\"remove\":{\"path\":\"region=eu/a.parquet\",\"dataChange\":true}}\n");
  EXPECT_EQ(rm.exit_code, 2);
  EXPECT_NE(rm.err.find("append-only"), std::string::npos) << rm.err;
}

TEST_F(CliTest, EightProcessesFiftyBlindAppendsEachLandExactlyOnce) {
  Create();
  constexpr int kWriters = 8, kCommits = LoadUnderSanitizers(50, 12);
  std::vector<std::thread> writers;
  std::vector<int> failures(kWriters, 0);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int c = 0; c < kCommits; ++c) {
        std::string path = "w" + std::to_string(w) + "-c" + std::to_string(c) + ".parquet";
        CliResult r = RunCli({"commit", table_, "--actions", "-", "--max-attempts", "1000"},
                             AddLine(path));
        if (r.exit_code != 0) {
          ++failures[static_cast<size_t>(w)];
          ADD_FAILURE() << r.err;
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  auto commits = ReadAllCommits();
  EXPECT_EQ(commits.size(), static_cast<size_t>(kWriters * kCommits + 1));  // 0..400
  auto counts = AddCounts();
  EXPECT_EQ(counts.size(), static_cast<size_t>(kWriters * kCommits));
  for (const auto& [path, n] : counts) EXPECT_EQ(n, 1) << path;
  EXPECT_EQ(RunCli({"check", table_}).exit_code, 0);
}

TEST_F(CliTest, TwoWritersRemovingTheSameFileExactlyOneWins) {
  Create();
  ASSERT_EQ(RunCli({"commit", table_, "--actions", "-"}, AddLine("shared.parquet")).exit_code, 0);
  const std::string remove =
      "{\"remove\":{\"path\":\"shared.parquet\",\"deletionTimestamp\":5,\"dataChange\":true}}\n";
  CliResult results[2];
  std::thread a([&] {
    results[0] = RunCli({"commit", table_, "--actions", "-", "--read-version", "1", "--json"}, remove);
  });
  std::thread b([&] {
    results[1] = RunCli({"commit", table_, "--actions", "-", "--read-version", "1", "--json"}, remove);
  });
  a.join();
  b.join();
  int winners = 0, conflicts = 0;
  for (const CliResult& r : results) {
    winners += r.exit_code == 0;
    conflicts += r.exit_code == 3;
    if (r.exit_code == 3) {
      auto j = nlohmann::json::parse(r.out);
      EXPECT_EQ(j["result"], "conflict");
      EXPECT_EQ(j["conflict"]["type"], "ConcurrentDeleteRead");
      EXPECT_EQ(j["conflict"]["winningVersion"], 2);
    }
  }
  EXPECT_EQ(winners, 1);
  EXPECT_EQ(conflicts, 1);
  EXPECT_EQ(ReadAllCommits().size(), 3u);
}

TEST_F(CliTest, AppIdMakesACommitIdempotent) {
  Create();
  std::vector<std::string> args{"commit", table_, "--actions", "-", "--app-id", "job", "--app-version", "3"};
  ASSERT_EQ(RunCli(args, AddLine("a.parquet")).exit_code, 0);
  CliResult again = RunCli(args, AddLine("a.parquet"));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already committed"), std::string::npos) << again.out;
  EXPECT_EQ(AddCounts()["a.parquet"], 1);
}

// The benchmarks' counts: with DELTACOMMIT_METER=1 each line carries the
// remote calls of that commit by kind; without it none are counted.
TEST_F(CliTest, DemoWriterReportsLatencyAndMeteredCallsWhenAsked) {
  Create();
  ASSERT_EQ(setenv("DELTACOMMIT_METER", "1", 1), 0);
  CliResult metered = RunCli({"demo-writer", table_, "--commits", "2", "--out", dir_ + "/m.jsonl"});
  unsetenv("DELTACOMMIT_METER");
  ASSERT_EQ(metered.exit_code, 0) << metered.err;
  CliResult plain = RunCli({"demo-writer", table_, "--commits", "1", "--out", dir_ + "/p.jsonl"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  std::ifstream in(dir_ + "/m.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    ++lines;
    EXPECT_GT(j["latency_ms"].get<double>(), 0.0) << line;
    // The snapshot load lists the log; the commit writes its file once.
    EXPECT_EQ(j["calls"]["s3_put"], 1) << line;
    EXPECT_GE(j["calls"]["s3_list"].get<int>(), 1) << line;
    EXPECT_EQ(j["calls"]["dynamodb_write"], 0) << line;
  }
  EXPECT_EQ(lines, 2);
  auto unmetered = nlohmann::json::parse(testing::Slurp(dir_ + "/p.jsonl"));
  EXPECT_FALSE(unmetered.contains("calls")) << unmetered.dump();
  EXPECT_TRUE(unmetered.contains("latency_ms")) << unmetered.dump();
}

// The benchmarks' conflicting mix and their checkpoints, as Delta writers
// write them (every 10 versions by default).
TEST_F(CliTest, DemoWriterRemovesAFilePerCommitAndCheckpointsWhenAsked) {
  Create();
  CliResult adds = RunCli({"demo-writer", table_, "--commits", "3", "--out", dir_ + "/a.jsonl"});
  ASSERT_EQ(adds.exit_code, 0) << adds.err;
  CliResult mix = RunCli({"demo-writer", table_, "--writer", "1", "--commits", "7", "--remove-one",
                          "--checkpoint", "--out", dir_ + "/m.jsonl"});
  ASSERT_EQ(mix.exit_code, 0) << mix.err;
  int removes = 0;
  for (const auto& [v, actions] : ReadAllCommits()) {
    for (const Action& a : actions) removes += std::holds_alternative<RemoveFile>(a) ? 1 : 0;
  }
  EXPECT_EQ(removes, 7);
  EXPECT_TRUE(
      std::filesystem::exists(table_ + "/_delta_log/00000000000000000010.checkpoint.parquet"));
  EXPECT_FALSE(
      std::filesystem::exists(table_ + "/_delta_log/00000000000000000003.checkpoint.parquet"));
}

TEST_F(CliTest, WritersKilledAtRandomMomentsLeaveASoundLog) {
  Create("id:long,writer:integer,batch:long,payload:string");
  std::mt19937 rng(12345);
  constexpr int kWriters = 6;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    pids.push_back(testing::StartCli({"demo-writer", table_, "--writer", std::to_string(w),
                                      "--commits", "40", "--out",
                                      dir_ + "/w" + std::to_string(w) + ".jsonl"}));
    ASSERT_GT(pids.back(), 0);
  }
  // Kill half of them at random moments while all are committing.
  for (int w = 0; w < kWriters; w += 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 300)(rng)));
    kill(pids[static_cast<size_t>(w)], SIGKILL);
  }
  for (pid_t p : pids) waitpid(p, nullptr, 0);
  auto counts = AddCounts();  // every version parses, no gap
  for (const auto& [path, n] : counts) EXPECT_EQ(n, 1) << path;
  // Every commit a writer saw acknowledged is in the log exactly once.
  size_t acknowledged = 0;
  for (int w = 0; w < kWriters; ++w) {
    std::ifstream in(dir_ + "/w" + std::to_string(w) + ".jsonl");
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;  // a line torn by the kill
      ++acknowledged;
      EXPECT_EQ(counts[j["path"].get<std::string>()], 1);
    }
  }
  EXPECT_GT(acknowledged, 0u);
  CliResult check = RunCli({"check", table_});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  // No temp file of an interrupted PutIfAbsent is mistaken for a version.
  for (const auto& entry : std::filesystem::directory_iterator(table_ + "/_delta_log")) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".json")) {
      EXPECT_EQ(name.size(), 25u) << name;
    }
  }
}

TEST_F(CliTest, BadInputGetsAClearErrorAndWritesNothing) {
  Create();
  struct Case {
    std::vector<std::string> args;
    std::string stdin_data;
    int exit_code;
    std::string message;
  } cases[] = {
      {{"commit", table_, "--actions", "-"}, "{\"add\":{\"path\":\"a\"}\n", 2, "line 1"},
      {{"commit", table_, "--actions", "-"}, "{\"futureAction\":{}}\n", 2, "futureAction"},
      {{"commit", table_, "--actions", "-"}, AddLine("../escape.parquet"), 2, "must stay inside the table"},
      {{"commit", table_, "--actions", "-"}, "", 2, "no actions"},
      {{"commit", table_, "--actions", "/nonexistent/file"}, "", 5, "cannot open"},
      {{"commit", table_, "--actions", "-", "--isolation-level", "Bogus"}, AddLine("x"), 2, "Bogus"},
      {{"snapshot", dir_ + "/missing"}, "", 5, "no Delta table"},
      {{"snapshot", table_, "--version", "9"}, "", 5, "version 9 does not exist"},
      {{"snapshot", "gs://bucket/t"}, "", 2, "scheme \"gs\" is not supported"},
      {{"create", table_, "--schema", "id:long"}, "", 1, "already"},
      {{"create", dir_ + "/t2", "--schema", "id:money"}, "", 2, "money"},
      {{"create", dir_ + "/t3", "--schema", "id:long", "--partition-by", "nope"}, "", 2, "nope"},
  };
  for (const Case& c : cases) {
    CliResult r = RunCli(c.args, c.stdin_data);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args[0] << " " << c.message << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "stderr was: " << r.err;
  }
  EXPECT_EQ(ReadAllCommits().size(), 1u);  // still only version 0
}

TEST_F(CliTest, CheckReportsAGapAsUnsound) {
  Create();
  ASSERT_EQ(RunCli({"commit", table_, "--actions", "-"}, AddLine("a")).exit_code, 0);
  ASSERT_EQ(RunCli({"commit", table_, "--actions", "-"}, AddLine("b")).exit_code, 0);
  std::filesystem::remove(table_ + "/" + CommitPath(1));
  CliResult r = RunCli({"check", table_});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.out.find("00000000000000000001.json missing"), std::string::npos) << r.out;
  CliResult snap = RunCli({"snapshot", table_});
  EXPECT_EQ(snap.exit_code, 1);
  EXPECT_NE(snap.err.find("not contiguous"), std::string::npos) << snap.err;
}

}  // namespace
}  // namespace deltacommit
