// The call sequences of the Unity Catalog clients other engines ship,
// replayed against a real `deltacommit serve` by small drivers written from
// the clients' source (docs/unity-catalog.md "Client sequences"):
//   - delta-kernel-rs's UCCommitter (crates delta-kernel-unity-catalog and
//     unity-catalog-delta-rest-client): config handshake; create as staging
//     table, version 0 written by the client, create; each commit one
//     update-table (assert-table-uuid, add-commit, and
//     set-latest-backfilled-version once it has published), never resent;
//     publishing copies staged commits to <v>.json with no call, the server
//     hears of it with the next commit; a 409 is an error, the engine reads
//     the table again and tries the next version.
//   - Delta Spark's UCCommitCoordinatorClient over UCDeltaTokenBasedRestClient:
//     the same update-table, resent after a transient failure (a lost reply
//     included), then backfill of every commit the catalog lists up to its
//     own, through load table.
// After each sequence the table is checked through our own client
// (uc://, versions contiguous, each commit once, the log sound), and the
// catalog's answer as kernel-rs checks it (commits contiguous, the last one
// the latest version).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "delta_rest_fixture.h"
#include "deltacommit/table.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class UcClientSequenceTest : public ServeDeltaRestTest {
 protected:
  fs::path LogDir() const { return path_ / "_delta_log"; }

  static int64_t NowMillis() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // Writes a staged commit for `v` adding `file`, as the clients do
  // (create-if-absent, a fresh UUID), and returns the add-commit's commit
  // object with the file's size and modification time as a HEAD gives them.
  json StageCommit(Version v, const std::string& file) {
    const std::string name = FormatVersion(v) + "." + NewUuid() + ".json";
    const int64_t ict = NowMillis();
    const std::string text = json{{"commitInfo",
                                   {{"inCommitTimestamp", ict},
                                    {"timestamp", ict},
                                    {"operation", "WRITE"},
                                    {"txnId", NewUuid()}}}}
                                 .dump() +
                             "\n" +
                             json{{"add",
                                   {{"path", file},
                                    {"partitionValues", json::object()},
                                    {"size", 10},
                                    {"modificationTime", ict},
                                    {"dataChange", true}}}}
                                 .dump() +
                             "\n";
    const fs::path staged = LogDir() / "_staged_commits" / name;
    WriteFile(staged, text);
    const auto mtime =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::file_clock::to_sys(fs::last_write_time(staged)).time_since_epoch())
            .count();
    return {{"version", v},
            {"timestamp", ict},
            {"file-name", name},
            {"file-size", fs::file_size(staged)},
            {"file-modification-timestamp", mtime}};
  }

  // One update-table with add-commit, as UCCommitter and
  // UCDeltaTokenBasedRestClient send it.
  json CommitBody(const json& commit, std::optional<Version> backfilled) const {
    json updates = json::array({{{"action", "add-commit"}, {"commit", commit}}});
    if (backfilled) {
      updates.push_back(
          {{"action", "set-latest-backfilled-version"}, {"latest-published-version", *backfilled}});
    }
    return {{"requirements", json::array({{{"type", "assert-table-uuid"}, {"uuid", table_id_}}})},
            {"updates", updates}};
  }

  // The highest v with 0..v all published as <v>.json (the clients' listing).
  Version MaxPublished() const {
    Version v = -1;
    while (fs::exists(LogDir() / (FormatVersion(v + 1) + ".json"))) ++v;
    return v;
  }

  // Copies every commit the catalog lists up to `through`, in order, to
  // <v>.json, create-if-absent (kernel-rs's publish, Spark's backfill).
  void Publish(Version through) {
    const json loaded = Body(Call("GET", kTable, nullptr));
    std::vector<json> commits(loaded["commits"].begin(), loaded["commits"].end());
    std::sort(commits.begin(), commits.end(),
              [](const json& a, const json& b) { return a["version"] < b["version"]; });
    for (const json& c : commits) {
      const Version v = c["version"];
      if (v > through) break;
      const fs::path target = LogDir() / (FormatVersion(v) + ".json");
      std::error_code ec;
      fs::create_hard_link(LogDir() / "_staged_commits" / c["file-name"].get<std::string>(), target,
                           ec);
      ASSERT_TRUE(!ec || ec == std::errc::file_exists) << ec.message();
    }
  }

  // The catalog's answer as kernel-rs's snapshot builder checks it, then the
  // table through our own client.
  void ExpectTable(Version latest, size_t files) {
    const json loaded = Body(Call("GET", kTable, nullptr));
    ASSERT_EQ(loaded.value("latest-table-version", -2), latest) << loaded.dump();
    for (const char* field : {"etag", "table-type", "table-uuid", "location", "created-time",
                              "updated-time", "columns", "properties"}) {
      EXPECT_TRUE(loaded["metadata"].contains(field)) << field;
    }
    std::vector<Version> versions;
    for (const json& c : loaded["commits"]) versions.push_back(c["version"]);
    std::sort(versions.begin(), versions.end());
    for (size_t i = 1; i < versions.size(); ++i) {
      EXPECT_EQ(versions[i], versions[i - 1] + 1);
    }
    if (!versions.empty()) {
      EXPECT_EQ(versions.back(), latest);
    }

    TableOptions options;
    options.catalog_url = "http://127.0.0.1:" + std::to_string(serve_->port());
    options.catalog_token = kToken;
    StatusOr<Table> table = OpenTable("uc://main.sales.orders", options);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    StatusOr<LogCheckReport> check = table->Check();
    ASSERT_TRUE(check.ok()) << check.status().ToString();
    EXPECT_TRUE(check->sound()) << check->problems.front();
    ASSERT_NE(check->snapshot, nullptr);
    EXPECT_EQ(check->snapshot->version(), latest);
    EXPECT_EQ(check->snapshot->active_files().size(), files) << "each commit once";
  }

  // Sends `body` and closes the connection without reading the answer: a
  // reply lost on the way back.
  void SendAndLoseTheReply(const json& body) {
    http::testing::RawConnection connection(serve_->port());
    ASSERT_TRUE(connection.connected());
    ASSERT_TRUE(connection.Send(http::testing::RawRequest(
        "POST", std::string(kUc) + kTable,
        "Authorization: Bearer " + std::string(kToken) + "\r\nContent-Type: application/json\r\n",
        body.dump())));
  }

  // True once the catalog lists `file_name` as version `v`.
  bool Ratified(Version v, const std::string& file_name) {
    return http::testing::Eventually([&] {
      const json loaded = Body(Call("GET", kTable, nullptr));
      for (const json& c : loaded["commits"]) {
        if (c["version"] == v && c["file-name"] == file_name) return true;
      }
      return fs::exists(LogDir() / (FormatVersion(v) + ".json")) &&
             ReadFile(LogDir() / (FormatVersion(v) + ".json")) ==
                 ReadFile(LogDir() / "_staged_commits" / file_name);
    });
  }
};

TEST_F(UcClientSequenceTest, KernelRsCommitterCreatesCommitsPublishesAndRecovers) {
  // The connector's handshake, then create.
  ASSERT_EQ(Call("GET", "/delta/v1/config?catalog=main&protocol-versions=1.0", nullptr).status,
            200);
  const json created = CreateManagedTable();
  ASSERT_TRUE(created.contains("metadata")) << "create answers in load-table shape";
  {
    const json loaded = Body(Call("GET", kTable, nullptr));
    EXPECT_EQ(loaded.value("latest-table-version", -2), 0);
    EXPECT_TRUE(loaded.value("commits", json::array()).empty());
  }
  ASSERT_EQ(Call("GET", std::string(kTable) + "/credentials?operation=READ_WRITE", nullptr).status,
            200);

  // Commits 1 and 2, each reporting what it published (version 0 first).
  for (Version v = 1; v <= 2; ++v) {
    const json commit = StageCommit(v, "k" + std::to_string(v) + ".parquet");
    http::testing::RawResponse answer = Call("POST", kTable, CommitBody(commit, MaxPublished()));
    ASSERT_EQ(answer.status, 200) << answer.body;
    Publish(v);
  }
  ExpectTable(2, 2);

  // Two writers read version 2 and stage version 3: one wins, the other
  // gets 409 (an error to kernel-rs: it never resends), reads the table
  // again and commits at 4. Its refused staged file stays behind, unread.
  const json theirs = StageCommit(3, "theirs.parquet");
  const json ours = StageCommit(3, "ours.parquet");
  ASSERT_EQ(Call("POST", kTable, CommitBody(theirs, MaxPublished())).status, 200);
  ExpectError(Call("POST", kTable, CommitBody(ours, MaxPublished())), 409,
              "CommitVersionConflictException", "");
  EXPECT_EQ(Body(Call("GET", kTable, nullptr))["latest-table-version"], 3);
  const json retried = StageCommit(4, "ours.parquet");
  ASSERT_EQ(Call("POST", kTable, CommitBody(retried, MaxPublished())).status, 200);
  ExpectTable(4, 4);

  // A reply lost after the catalog ratified: kernel-rs reports an error;
  // loading the table shows the commit is there, so it is not made again.
  const json lost = StageCommit(5, "lost-reply.parquet");
  SendAndLoseTheReply(CommitBody(lost, MaxPublished()));
  ASSERT_TRUE(Ratified(5, lost["file-name"]));
  Publish(5);
  for (Version v = 1; v <= 5; ++v) EXPECT_TRUE(Published(v)) << v;
  EXPECT_THAT(ReadFile(LogDir() / (FormatVersion(3) + ".json")),
              ::testing::HasSubstr("theirs.parquet"));
  ExpectTable(5, 5);
}

TEST_F(UcClientSequenceTest, DeltaSparkCoordinatorResendsAndBackfills) {
  CreateManagedTable();
  // Commit 1; its reply is lost, so UCCommitCoordinatorClient resends the
  // same request after a transient error: the catalog answers 200 (a
  // replay), and version 1 is one commit.
  const json first = StageCommit(1, "s1.parquet");
  const json body = CommitBody(first, MaxPublished());
  SendAndLoseTheReply(body);
  http::testing::RawResponse resent = Call("POST", kTable, body);
  ASSERT_EQ(resent.status, 200) << resent.body;
  EXPECT_EQ(Body(resent)["latest-table-version"], 1);
  // Backfill: getCommits through load table, each copied create-if-absent;
  // the catalog's own publisher may have been first (same bytes).
  Publish(1);
  ExpectTable(1, 1);

  // A resend after the commit was published (and the catalog forgot it)
  // is still the same commit, compared with the published file.
  http::testing::RawResponse late = Call("POST", kTable, body);
  EXPECT_EQ(late.status, 200) << late.body;

  // Commits 2..4 through the coordinator, each reporting the last version
  // it found backfilled, then backfilling up to itself.
  for (Version v = 2; v <= 4; ++v) {
    const json commit = StageCommit(v, "s" + std::to_string(v) + ".parquet");
    ASSERT_EQ(Call("POST", kTable, CommitBody(commit, MaxPublished())).status, 200);
    Publish(v);
  }
  ExpectTable(4, 4);
}

// Our own client and a kernel-rs-shaped driver on one table at once: every
// commit lands once, in order.
TEST_F(UcClientSequenceTest, OurClientAndAKernelRsDriverShareATable) {
  CreateManagedTable();
  TableOptions options;
  options.catalog_url = "http://127.0.0.1:" + std::to_string(serve_->port());
  options.catalog_token = kToken;
  constexpr int kEach = 6;
  std::string ours_error;
  std::thread ours([&] {
    StatusOr<Table> table = OpenTable("uc://main.sales.orders", options);
    if (!table.ok()) {
      ours_error = table.status().ToString();
      return;
    }
    for (int i = 0; i < kEach; ++i) {
      AddFile add;
      add.path = "ours-" + std::to_string(i) + ".parquet";
      add.size = 10;
      add.modification_time = 1;
      add.data_change = true;
      StatusOr<CommitOutcome> outcome = table->Commit({add});
      if (!outcome.ok() || outcome->result != CommitResult::kCommitted) {
        ours_error = outcome.ok() ? "not committed" : outcome.status().ToString();
        return;
      }
    }
  });
  // The driver: read the latest version, stage latest + 1, commit; on 409
  // read again.
  int landed = 0;
  for (int attempt = 0; landed < kEach && attempt < 200; ++attempt) {
    const Version latest = Body(Call("GET", kTable, nullptr)).value("latest-table-version", -1);
    const json commit = StageCommit(latest + 1, "kernel-" + std::to_string(landed) + ".parquet");
    http::testing::RawResponse answer = Call("POST", kTable, CommitBody(commit, std::nullopt));
    if (answer.status == 200) {
      ++landed;
    } else {
      ASSERT_EQ(answer.status, 409) << answer.body;
    }
  }
  ours.join();
  EXPECT_EQ(ours_error, "");
  EXPECT_EQ(landed, kEach);
  ExpectTable(2 * kEach, 2 * kEach);
}

}  // namespace
}  // namespace deltacommit::testing
