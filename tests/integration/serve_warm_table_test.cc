// A long-lived library Table in the service and coordinated modes, through
// a real `deltacommit serve` (local tables under its [local] root): a blind
// append commits on the snapshot the table holds and is one call to the
// service; the service's reply lets the table apply its own append without
// reading it back, and whatever the table then holds equals a fresh load.
// Counted by the metering wrappers on the table's ports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <thread>

#include "common/serve_process.h"
#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/coordinated_log_store.h"
#include "deltacommit/logstore/service_log_store.h"
#include "deltacommit/metering.h"
#include "deltacommit/step_hooks.h"
#include "deltacommit/table.h"
#include "deltacommit/table/table_adapters.h"
#include "http_fault_proxy.h"
#include "service/config/auth.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kToken[] = "warm-table-writer-token-0123456789";

// What a snapshot holds that a writer relies on.
struct Held {
  Version version = -1;
  std::set<std::string> files;
  std::map<std::string, int64_t> txns;
  std::map<std::string, std::optional<int64_t>> txns_updated;  // lastUpdated
  std::optional<int64_t> in_commit_timestamp;
  std::string configuration;
  friend bool operator==(const Held&, const Held&) = default;
};

Held HeldOf(const Snapshot& s) {
  Held h;
  h.version = s.version();
  for (const auto& [key, add] : s.active_files()) h.files.insert(add.path);
  for (const auto& [app, txn] : s.transactions()) {
    h.txns[app] = txn.version;
    h.txns_updated[app] = txn.last_updated;
  }
  h.in_commit_timestamp = s.in_commit_timestamp();
  for (const auto& [k, v] : s.metadata().configuration) h.configuration += k + "=" + v + ";";
  return h;
}

std::ostream& operator<<(std::ostream& os, const Held& h) {
  os << "version " << h.version << ", " << h.files.size() << " files, txns {";
  for (const auto& [app, v] : h.txns) os << app << ":" << v << " ";
  return os << "}, ict " << h.in_commit_timestamp.value_or(-1) << ", " << h.configuration;
}

class ServeWarmTableTest : public ::testing::TestWithParam<CommitMode> {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("dc-warm-table-" + NewUuid());
    fs::create_directories(base_);
    auto serve = ServeProcess::Start(
        "[server]\nlisten = \"127.0.0.1:0\"\n[state]\nkind = \"sqlite\"\npath = \"s.sqlite\"\n"
        "[local]\nroots = [\"" +
        base_.string() +
        "\"]\n"
        "[[token]]\nname = \"writer\"\nsha256 = \"" +
        service::HashToken(kToken) +
        "\"\n"
        "tables = [\"file://" +
        base_.string() + "\"]\nactions = [\"commit\", \"read\"]\n");
    ASSERT_TRUE(serve.ok()) << serve.status().ToString();
    serve_ = std::move(serve).value();
    uri_ = "file://" + (base_ / "events").string();
  }
  void TearDown() override {
    serve_.reset();
    fs::remove_all(base_);
  }

  TableOptions Options(CallMeter* meter = nullptr) const {
    TableOptions o;
    o.mode = GetParam();
    o.service_url = serve_->Url("");
    o.service_token = kToken;
    o.meter = meter;
    o.auto_checkpoint = false;  // a checkpoint's own calls are not the point here
    return o;
  }

  Table Open(CallMeter* meter = nullptr) {
    StatusOr<Table> table = OpenTable(uri_, Options(meter));
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  // Creates the table, with in-commit timestamps when asked.
  void Create(bool in_commit_timestamps) {
    NewTable spec;
    spec.schema = R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,)"
                  R"("metadata":{}}]})";
    if (in_commit_timestamps) spec.configuration["delta.enableInCommitTimestamps"] = "true";
    StatusOr<Metadata> metadata = NewTableMetadata(spec, 1);
    ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
    StatusOr<CommitOutcome> created = Open().Create(*metadata);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  static AddFile File(const std::string& name) {
    AddFile add;
    add.path = name + ".parquet";
    add.size = 10;
    add.modification_time = 1;
    add.data_change = true;
    return add;
  }

  static StatusOr<CommitOutcome> Append(Table& table, const std::string& name, int64_t batch) {
    CommitOptions options;
    options.app_transaction = {"warm-" + name.substr(0, 1), batch};
    return table.Commit({File(name)}, std::move(options));
  }

  // A fresh load of the table, as another process would read it.
  Held Fresh() {
    Table fresh = Open();
    StatusOr<std::shared_ptr<const Snapshot>> loaded = fresh.Update();
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return loaded.ok() ? HeldOf(**loaded) : Held{};
  }

  // What `table` holds at `version`, read without a remote call.
  static Held HeldAt(Table& table, Version version) {
    StatusOr<std::shared_ptr<const Snapshot>> held = table.SnapshotAt(version);
    EXPECT_TRUE(held.ok()) << held.status().ToString();
    return held.ok() ? HeldOf(**held) : Held{};
  }

  int64_t Calls(const CallMeter& meter) const {
    int64_t n = 0;
    for (const auto& [kind, count] : meter.Counts()) n += count;
    return n;
  }

  fs::path base_;
  std::unique_ptr<ServeProcess> serve_;
  std::string uri_;
};

TEST_P(ServeWarmTableTest, AWarmBlindAppendIsOneCallToTheService) {
  for (bool ict : {false, true}) {
    SCOPED_TRACE(ict ? "with in-commit timestamps" : "without in-commit timestamps");
    uri_ = "file://" + (base_ / (ict ? "ict" : "plain")).string();
    Create(ict);
    CallMeter meter;
    Table table = Open(&meter);
    ASSERT_TRUE(table.Update().ok());
    for (int i = 0; i < 5; ++i) {
      const std::map<std::string, int64_t> before = meter.Counts();
      StatusOr<CommitOutcome> outcome = Append(table, "a" + std::to_string(i), i);
      ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
      ASSERT_EQ(outcome->result, CommitResult::kCommitted);
      EXPECT_EQ(outcome->version, i + 1);
      std::map<std::string, int64_t> made = meter.Counts();
      for (auto& [kind, n] : made) n -= before.at(kind);
      EXPECT_EQ(made["service_commit"], 1) << "commit " << i;
      int64_t others = 0;
      for (const auto& [kind, n] : made) others += kind == "service_commit" ? 0 : n;
      EXPECT_EQ(others, 0) << "commit " << i << ": no listing, no read";
    }
    const int64_t calls = Calls(meter);
    const Held held = HeldAt(table, 5);
    EXPECT_EQ(Calls(meter), calls) << "the held snapshot is read without a call";
    const Held fresh = Fresh();
    EXPECT_EQ(held, fresh);
    EXPECT_EQ(held.files.size(), 5u);
    EXPECT_EQ(held.txns.at("warm-a"), 4);
    // A coordinated table always has them (the coordinated-commits rule).
    EXPECT_EQ(held.in_commit_timestamp.has_value(), ict || GetParam() == CommitMode::kCoordinated);
  }
}

TEST_P(ServeWarmTableTest, AnAppendAfterAnotherWritersIsReadBackAndHeldAsTheLogHasIt) {
  Create(true);
  CallMeter meter;
  Table a = Open(&meter);
  Table b = Open();
  ASSERT_TRUE(Append(a, "a0", 0).ok());
  ASSERT_TRUE(Append(b, "b0", 0).ok());  // version 2: a holds 1
  const int64_t reads = meter.Count(CallKind::kS3Get) + meter.Count(CallKind::kServicePending);
  StatusOr<CommitOutcome> outcome = Append(a, "a1", 1);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 3) << "the service put it after b's append";
  // Not alone after the version it read: the table reads back what it missed.
  EXPECT_GE(meter.Count(CallKind::kS3Get) + meter.Count(CallKind::kServicePending) - reads, 1);
  const int64_t calls = Calls(meter);
  const Held held = HeldAt(a, 3);
  EXPECT_EQ(Calls(meter), calls) << "a holds version 3 itself";
  EXPECT_EQ(held, Fresh());
  EXPECT_EQ(held.files.size(), 3u);
}

TEST_P(ServeWarmTableTest, AnAppendOnAHeldSnapshotOlderThanAMetadataChangeIsTriedOnTheLatest) {
  Create(false);
  CallMeter meter;
  Table a = Open(&meter);
  Table b = Open();
  ASSERT_TRUE(Append(a, "a0", 0).ok());
  StatusOr<std::shared_ptr<const Snapshot>> latest = b.Update();
  ASSERT_TRUE(latest.ok());
  Metadata changed = (*latest)->metadata();
  changed.configuration["delta.appendOnly"] = "true";
  StatusOr<CommitOutcome> changing = b.Commit({changed});
  ASSERT_TRUE(changing.ok()) << changing.status().ToString();
  // a still holds version 1, from before the change: the service refuses
  // the append on it, and the table tries again on the latest, once.
  StatusOr<CommitOutcome> outcome = Append(a, "a1", 1);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 3);
  // Held as the log has it, and the next append is one call again.
  const std::map<std::string, int64_t> before = meter.Counts();
  ASSERT_TRUE(Append(a, "a2", 2).ok());
  std::map<std::string, int64_t> made = meter.Counts();
  for (auto& [kind, n] : made) n -= before.at(kind);
  EXPECT_EQ(made["service_commit"], 1);
  EXPECT_EQ(made["s3_list"], 0);
  const Held fresh = Fresh();
  EXPECT_EQ(fresh.version, 4);
  EXPECT_EQ(fresh.files, (std::set<std::string>{"a0.parquet", "a1.parquet", "a2.parquet"}));
  EXPECT_THAT(fresh.configuration, ::testing::HasSubstr("delta.appendOnly=true;"));
}

// Holds the first append to reach the service until a second has been
// answered: the second overtakes it on the way.
class OvertakingHooks : public StepHooks {
 public:
  static constexpr auto kPatience = std::chrono::seconds(30);

  Status AtStep(std::string_view step) override {
    if (step != "service/before-append") return OkStatus();
    std::unique_lock lock(mu_);
    if (arrived_++ == 0) {
      changed_.notify_all();
      if (!changed_.wait_for(lock, kPatience, [&] { return overtaken_; })) {
        return DeadlineExceededError("the second append never overtook the first");
      }
    }
    return OkStatus();
  }
  // False when the first append did not reach the service in time.
  bool AwaitFirst() {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, kPatience, [&] { return arrived_ > 0; });
  }
  void ReleaseFirst() {
    std::lock_guard lock(mu_);
    overtaken_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int arrived_ = 0;
  bool overtaken_ = false;
};

// Two threads of one process append without a txn of their own; the one
// that started first reaches the service last. Both land: each append
// carries the writer appId of its own, so the later one is not taken for
// a resend of the other.
TEST_P(ServeWarmTableTest, ConcurrentAppendsWithoutATxnThatOvertakeEachOtherBothLand) {
  Create(false);
  Table table = Open();
  StatusOr<std::shared_ptr<const Snapshot>> read = table.Update();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  TableAdapters& adapters = table.adapters();
  OvertakingHooks hooks;
  std::unique_ptr<LogStore> log;
  if (GetParam() == CommitMode::kService) {
    log = std::make_unique<ServiceLogStore>(*adapters.store, *adapters.service,
                                            adapters.service_table, &hooks);
  } else {
    log = std::make_unique<CoordinatedLogStore>(*adapters.store, *adapters.service,
                                                adapters.service_table, &hooks);
  }
  auto append = [&](const std::string& name) {
    Transaction txn(*log, *read, {}, SystemClock(), RealSleeper());
    txn.AddAction(File(name));
    return txn.Commit();
  };
  StatusOr<CommitOutcome> first = InternalError("not run");
  std::thread started_first([&] { first = append("first"); });
  if (!hooks.AwaitFirst()) {
    hooks.ReleaseFirst();
    started_first.join();
    FAIL() << "the first append never reached the service: " << first.status().ToString();
  }
  StatusOr<CommitOutcome> second = append("second");
  hooks.ReleaseFirst();
  started_first.join();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(second->result, CommitResult::kCommitted);
  EXPECT_EQ(first->result, CommitResult::kCommitted) << "the overtaken append is not a resend";
  EXPECT_EQ(second->version, 1);
  EXPECT_EQ(first->version, 2);
  // Appends one after another reuse an appId: the table's txns grow with
  // the appends run at once, not with the appends.
  for (const char* name : {"third", "fourth"}) {
    StatusOr<CommitOutcome> next = append(name);
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    EXPECT_EQ(next->result, CommitResult::kCommitted) << name;
  }
  const Held fresh = Fresh();
  EXPECT_EQ(fresh.files, (std::set<std::string>{"first.parquet", "second.parquet", "third.parquet",
                                                "fourth.parquet"}));
  EXPECT_EQ(fresh.txns.size(), 2u) << "an appId each of the two at once, reused after";
}

// Rows appended under the caller's appId, the reply lost after serve
// answered: the client resends the append, serve answers "duplicate" (the
// first attempt landed), and the data files the append wrote stay in the
// table that names them.
TEST_P(ServeWarmTableTest, AnAppendUnderTheCallersAppIdWhoseReplyWasLostKeepsItsFiles) {
  Create(false);
  HttpFaultProxy proxy(serve_->port(),
                       {.lose_first_commit_reply = HttpFaultProxy::LoseReply::kAfterTheAnswer,
                        .rewrite_commit_body = {}});
  ASSERT_NE(proxy.port(), 0) << "the proxy cannot listen";
  TableOptions options = Options();
  options.service_url = proxy.Url();
  StatusOr<Table> table = OpenTable(uri_, options);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const fs::path rows = base_ / "rows.csv";
  std::ofstream(rows) << "id\n1\n2\n3\n";
  AppendInput input;
  input.path = rows.string();
  AppendOptions append;
  append.app_transaction = {"nightly-load", 7};
  StatusOr<AppendResult> appended = table->Append({input}, append);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  ASSERT_TRUE(proxy.reply_lost()) << "the reply was not lost: the test tested nothing";
  ASSERT_GE(proxy.commit_bodies().size(), 2u) << "the client did not resend the append";
  EXPECT_EQ(appended->outcome.version, 1);
  Table fresh = Open();
  StatusOr<QueryResult> counted = fresh.Query("select count(*), sum(id) from t");
  ASSERT_TRUE(counted.ok()) << counted.status().ToString();
  ASSERT_EQ(counted->rows.size(), 1u);
  EXPECT_EQ(counted->rows[0], (std::vector<std::optional<std::string>>{"3", "6"}));
}

INSTANTIATE_TEST_SUITE_P(Modes, ServeWarmTableTest,
                         ::testing::Values(CommitMode::kService, CommitMode::kCoordinated),
                         [](const ::testing::TestParamInfo<CommitMode>& mode) {
                           return mode.param == CommitMode::kService ? "service" : "coordinated";
                         });

}  // namespace
}  // namespace deltacommit::testing
