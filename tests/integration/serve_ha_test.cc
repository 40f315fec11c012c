// Two `deltacommit serve` instances sharing one DynamoDB state table
// (dynalite) in front of one table on RGW: 8 writers spread over both, and
// one instance killed with SIGKILL while they commit. A writer whose
// request to the dead instance got no answer resends the same commit to
// the survivor (as behind a load balancer): it is recognised if it was
// ratified, and otherwise rebased. Every commit must be in the log once,
// versions contiguous, nothing left unpublished, and the survivor serving.
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "deltacommit/action_json.h"

#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

constexpr int kWriters = 8;
constexpr int kCommitsEach = 8;
constexpr int kKillAfterAcknowledged = 20;

class ServeHaTest : public ServeApiTest {
 protected:
  bool StartInSetUp() const override { return false; }

  void SetUp() override {
    DC_REQUIRE_DYNAMODB();
    ServeApiTest::SetUp();
  }

  std::unique_ptr<ServeProcess> StartInstance() {
    auto started = ServeProcess::Start(ConfigWithDynamoDbState(state_table_));
    EXPECT_TRUE(started.ok()) << started.status().ToString();
    return started.ok() ? std::move(started).value() : nullptr;
  }

  StatusOr<aws::HttpResponse> PostTo(const ServeProcess& instance, const json& body) {
    aws::HttpRequest request;
    request.method = "POST";
    request.url = instance.Url("/v1/commits");
    request.headers = {{"Authorization", "Bearer " + writer_token_},
                       {"Content-Type", "application/json"}};
    request.body = body.dump();
    return http_->Send(request);
  }

  // Commits `actions` through `preferred` while it answers, else through
  // the other instance; resends the same version after an unanswered
  // request or a 503, rebases on 409. The version it landed at, or -1.
  Version CommitWithFailover(const std::string& actions, int preferred) {
    Version guess = 1;  // after the table's creation
    int instance = preferred;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      if (instance == 0 && a_killed_) instance = 1;
      StatusOr<aws::HttpResponse> answer = PostTo(instance == 0 ? *a_ : *b_, Commit(guess, actions));
      if (!answer.ok()) {
        if (instance == 0) ++unanswered_on_a_;
        if (instance == 1) {
          ADD_FAILURE() << "the survivor did not answer: " << answer.status().ToString();
          return -1;
        }
        instance = 1;  // the same commit again, to the survivor
        continue;
      }
      if (answer->status == 200) return json::parse(answer->body)["version"].get<Version>();
      if (answer->status == 409) {
        guess = ErrorOf(*answer)["latest_version"].get<Version>() + 1;
      } else if (answer->status == 503) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      } else {
        ADD_FAILURE() << "status " << answer->status << ": " << answer->body;
        return -1;
      }
    }
    ADD_FAILURE() << "no version after 1000 attempts";
    return -1;
  }

  // Appends `path` (txn writer/seq) through `preferred` while it answers,
  // else the same append to the other instance. Its version, or -1.
  Version AppendWithFailover(const std::string& path, int writer, int seq, int preferred) {
    json body = Commit(0, "{\"add\":{\"path\":\"" + path +
                              "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,"
                              "\"dataChange\":true}}\n{\"txn\":{\"appId\":\"w" +
                              std::to_string(writer) + "\",\"version\":" + std::to_string(seq) +
                              "}}\n");
    body.erase("version");
    body["append"] = true;
    body["read_version"] = 0;
    int instance = preferred;
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (instance == 0 && a_killed_) instance = 1;
      StatusOr<aws::HttpResponse> answer = PostTo(instance == 0 ? *a_ : *b_, body);
      if (!answer.ok()) {
        if (instance == 1) {
          ADD_FAILURE() << "the survivor did not answer: " << answer.status().ToString();
          return -1;
        }
        ++unanswered_on_a_;
        instance = 1;  // the same append again, to the survivor
        continue;
      }
      if (answer->status == 200) return json::parse(answer->body)["version"].get<Version>();
      if (answer->status != 503) {
        ADD_FAILURE() << "status " << answer->status << ": " << answer->body;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "no version after 100 attempts";
    return -1;
  }

  static std::string Tag(int writer, int commit) {
    return "w" + std::to_string(writer) + "-" + std::to_string(commit);
  }

  const std::string state_table_ = "dc_serve_ha_" + NewUuid().substr(0, 8);
  std::unique_ptr<ServeProcess> a_;
  std::unique_ptr<ServeProcess> b_;
  std::atomic<bool> a_killed_{false};
  std::atomic<int> acknowledged_{0};
  std::atomic<int> unanswered_on_a_{0};
};

TEST_F(ServeHaTest, OneOfTwoInstancesKilledMidRunLosesNoCommitAndDoublesNone) {
  a_ = StartInstance();
  ASSERT_NE(a_, nullptr);
  b_ = StartInstance();  // after A: A created the state table
  ASSERT_NE(b_, nullptr);
  // Version 0 creates the table (protocol and metaData); the writers race
  // for the versions after it.
  StatusOr<aws::HttpResponse> created = PostTo(*a_, Commit(0, FirstActions("create")));
  ASSERT_TRUE(created.ok() && created->status == 200) << (created.ok() ? created->body : "");

  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kCommitsEach; ++i) {
        if (CommitWithFailover(Actions(Tag(w, i)), w % 2) < 0) {
          ++failures;
        } else {
          ++acknowledged_;
        }
      }
    });
  }
  while (acknowledged_ < kKillAfterAcknowledged && failures == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  a_->Kill();  // commits of writers on A are in flight now
  a_killed_ = true;
  for (std::thread& t : writers) t.join();
  ASSERT_EQ(failures, 0);
  RecordProperty("requests_unanswered_by_the_killed_instance", unanswered_on_a_.load());

  // Every commit once, versions contiguous from 0.
  std::set<std::string> expected = {FirstActions("create")};
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kCommitsEach; ++i) expected.insert(Actions(Tag(w, i)));
  }
  ExpectLogHoldsEachOnce(expected);

  // The survivor serves on: nothing pending, ready, and it takes the next commit.
  aws::HttpRequest pending;
  pending.method = "GET";
  pending.url = b_->Url(PendingPath(table_, 0));
  pending.headers = {{"Authorization", "Bearer " + writer_token_}};
  StatusOr<aws::HttpResponse> listed = http_->Send(pending);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(json::parse(listed->body)["commits"], json::array()) << listed->body;
  EXPECT_EQ(json::parse(listed->body)["latest_version"], kWriters * kCommitsEach);
  StatusOr<aws::HttpResponse> next =
      PostTo(*b_, Commit(kWriters * kCommitsEach + 1, Actions("after-the-kill")));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->status, 200) << next->body;
  EXPECT_THAT(a_->Logs(), Not(HasSubstr(R"("msg":"shut down")")));  // it really crashed
  EXPECT_EQ(b_->Terminate(), 0) << b_->Logs();
}

// Appenders on both instances, A killed mid-run (batches in flight): every
// append whose reply was lost is resent to B with the same txn; each file is
// in the log once, acknowledged ones in the version they were told.
TEST_F(ServeHaTest, AppendsThroughAnInstanceKilledMidBatchLandOnce) {
  a_ = StartInstance();
  ASSERT_NE(a_, nullptr);
  b_ = StartInstance();
  ASSERT_NE(b_, nullptr);
  const std::string create =
      "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
      "{\"metaData\":{\"id\":\"" + NewUuid() + "\",\"format\":{\"provider\":\"parquet\","
      "\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\","
      "\"partitionColumns\":[],\"configuration\":{}}}\n";
  StatusOr<aws::HttpResponse> created = PostTo(*a_, Commit(0, create));
  ASSERT_TRUE(created.ok() && created->status == 200) << (created.ok() ? created->body : "");
  std::mutex mu;
  std::map<std::string, Version> told;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kCommitsEach; ++i) {
        const std::string path = Tag(w, i) + ".parquet";
        const Version v = AppendWithFailover(path, w, i, w % 2);
        std::lock_guard lock(mu);
        told[path] = v;
        ++acknowledged_;
      }
    });
  }
  while (acknowledged_ < kKillAfterAcknowledged) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  a_->Kill();
  a_killed_ = true;
  for (std::thread& t : writers) t.join();
  RecordProperty("appends_unanswered_by_the_killed_instance", unanswered_on_a_.load());

  const std::vector<std::string> commits = CommitKeys();
  std::map<std::string, std::vector<Version>> added;
  ActionParser parser;
  for (size_t v = 0; v < commits.size(); ++v) {
    EXPECT_EQ(commits[v], CommitPath(static_cast<Version>(v))) << "versions not contiguous";
    auto actions = parser.ParseCommit(Read(commits[v]));
    ASSERT_TRUE(actions.ok()) << commits[v];
    for (const Action& a : *actions) {
      if (const auto* add = std::get_if<AddFile>(&a)) added[add->path].push_back(static_cast<Version>(v));
    }
  }
  ASSERT_EQ(told.size(), static_cast<size_t>(kWriters * kCommitsEach));
  EXPECT_EQ(added.size(), told.size());
  for (const auto& [path, version] : told) {
    ASSERT_EQ(added[path].size(), 1u) << path << " is in the log " << added[path].size() << " times";
    EXPECT_EQ(added[path][0], version) << path;
  }
  EXPECT_THAT(a_->Logs(), Not(HasSubstr(R"("msg":"shut down")")));
  EXPECT_EQ(b_->Terminate(), 0) << b_->Logs();
}

}  // namespace
}  // namespace deltacommit::testing
