// The commit service's state against the commits a table has taken, with
// retention (StateRetention: keep 1,000 published records, forget every 100
// versions, the service's defaults) and without it, side by side in one run:
// two tables take commits in turn, each commit ratified, marked published
// and told to the retention as the service does. At each checkpoint it
// prints the records each table keeps, the SQLite pages in use (each variant
// has its own file), the median ratify latency over the last window, and
// their ratios. On SQLite in a temporary directory, and on DynamoDB when the
// test servers' dynalite is up (source /tmp/servers.env; one new DynamoDB
// table holds both variants' items, so only record counts are shown for it;
// the test server is thrown away with its tables).
//
//   state_retention_bench [--commits N,N,...] [--dynamodb-commits N,N,...]
//                         [--keep K] [--every E] [--window W]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/dynamodb_test_client.h"
#include "common/test_servers.h"
#include "deltacommit/log_path.h"
#include "service/commits/state_retention.h"
#include "service/state/dynamodb_state_store.h"
#include "service/state/sqlite_db.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service {
namespace {

struct Options {
  std::vector<Version> commits = {1'000, 10'000, 100'000};
  std::vector<Version> dynamodb_commits = {1'000, 10'000};
  int64_t keep = 1'000;
  int64_t every = 100;
  int window = 500;  // ratifies per latency median
};

void Check(const Status& st, const char* what) {
  if (st.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
  std::exit(1);
}

// One table taking commits, with or without retention.
class Variant {
 public:
  Variant(StateStore& store, std::string table, RetentionOptions retention)
      : store_(store), table_(std::move(table)), retention_(store, retention, nullptr) {}

  void Commit(Version v) {
    CommitRecord record{
        table_, v,     StagedCommitPath(v, NewUuid()),          std::string(64, 'e'), 2048, v,
        v,      false, {{"writer-" + std::to_string(v % 8), v}}};
    const auto start = std::chrono::steady_clock::now();
    Check(store_.Ratify(record, nullptr), "ratify");
    latencies_.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    Check(store_.MarkPublishedThrough(table_, v), "mark published");
    retention_.Published(table_, v);
  }

  // Median ratify latency of the last `window` commits (µs).
  double RecentMedian(int window) {
    std::vector<double> recent(
        latencies_.end() - std::min<ptrdiff_t>(window, static_cast<ptrdiff_t>(latencies_.size())),
        latencies_.end());
    std::sort(recent.begin(), recent.end());
    return recent.empty() ? 0 : recent[recent.size() / 2];
  }

  size_t Records() {
    retention_.WaitIdle(std::chrono::minutes(10));
    auto records = store_.ListFrom(table_, 0, 1'000'000'000);
    Check(records.status(), "list records");
    return records->size();
  }

 private:
  StateStore& store_;
  const std::string table_;
  StateRetention retention_;
  std::vector<double> latencies_;
};

// The bytes of the SQLite pages in use (WAL included, free pages not): what
// the state occupies, however SQLite sized its files.
int64_t LiveBytes(const std::string& path) {
  auto db = SqliteDb::Open(path, 10'000);
  Check(db.status(), "open SQLite to measure it");
  auto number = [&](const char* pragma) {
    auto text = (*db)->QueryText(pragma);
    Check(text.status(), pragma);
    return std::atoll(text->c_str());
  };
  return (number("PRAGMA page_count") - number("PRAGMA freelist_count")) *
         number("PRAGMA page_size");
}

void Header(const char* store) {
  std::printf(
      "\n%s\n| commits | records kept: retained | kept: all | all / retained |%s "
      "ratify p50 retained | ratify p50 all | all / retained |\n"
      "|---:|---:|---:|---:|%s---:|---:|---:|\n",
      store, std::strcmp(store, "sqlite") == 0 ? " pages in use: retained | in use: all |" : "",
      std::strcmp(store, "sqlite") == 0 ? "---:|---:|" : "");
}

void Run(Variant& retained, Variant& all, const std::vector<Version>& checkpoints, const Options& o,
         const std::string* retained_file, const std::string* all_file) {
  Version v = 0;
  for (Version checkpoint : checkpoints) {
    for (; v < checkpoint; ++v) {  // in turn, so the machine's noise hits both
      retained.Commit(v);
      all.Commit(v);
    }
    const double p50_retained = retained.RecentMedian(o.window);
    const double p50_all = all.RecentMedian(o.window);
    const size_t kept_retained = retained.Records();
    const size_t kept_all = all.Records();
    std::printf("| %lld | %zu | %zu | %.1f |", static_cast<long long>(checkpoint), kept_retained,
                kept_all, static_cast<double>(kept_all) / static_cast<double>(kept_retained));
    if (retained_file != nullptr) {
      std::printf(" %.2f MB | %.2f MB |", static_cast<double>(LiveBytes(*retained_file)) / 1e6,
                  static_cast<double>(LiveBytes(*all_file)) / 1e6);
    }
    std::printf(" %.0f us | %.0f us | %.2f |\n", p50_retained, p50_all, p50_all / p50_retained);
    std::fflush(stdout);
  }
}

std::vector<Version> ParseList(const char* text) {
  std::vector<Version> out;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    const long long n = std::strtoll(p, &end, 10);
    if (end == p || n < 1 || (!out.empty() && n <= out.back()) || (*end && *end != ',')) {
      std::fprintf(stderr, "commit counts: ascending positive numbers, comma-separated\n");
      std::exit(2);
    }
    out.push_back(n);
    p = *end ? end + 1 : end;
  }
  return out;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (has_value && !std::strcmp(argv[i], "--commits"))
      o.commits = ParseList(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--dynamodb-commits")) {
      o.dynamodb_commits = ParseList(argv[++i]);
    } else if (has_value && !std::strcmp(argv[i], "--keep"))
      o.keep = std::atoll(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--every"))
      o.every = std::atoll(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--window"))
      o.window = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "unknown or incomplete option %s\n", argv[i]);
      std::exit(2);
    }
  }
  if (o.keep < 0 || o.every < 1 || o.window < 1) {
    std::fprintf(stderr, "need --keep >= 0, --every >= 1, --window >= 1\n");
    std::exit(2);
  }
  return o;
}

}  // namespace
}  // namespace deltacommit::service

int main(int argc, char** argv) {
  using namespace deltacommit;
  using namespace deltacommit::service;
  const Options o = Parse(argc, argv);
  std::printf(
      "state per table against commits taken: retained (keep %lld, forget every %lld) "
      "and all records; ratify p50 over the last %d commits\n",
      static_cast<long long>(o.keep), static_cast<long long>(o.every), o.window);
  const RetentionOptions retained{o.keep, o.every};
  const RetentionOptions all{-1, o.every};
  {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("state-retention-bench-" + NewUuid());
    std::filesystem::create_directories(dir);
    const std::string retained_file = (dir / "retained.sqlite").string();
    const std::string all_file = (dir / "all.sqlite").string();
    auto retained_store = SqliteStateStore::Open({retained_file});
    auto all_store = SqliteStateStore::Open({all_file});
    Check(retained_store.status(), "open SQLite");
    Check(all_store.status(), "open SQLite");
    {
      Variant a(**retained_store, "s3://bench/retained", retained);
      Variant b(**all_store, "s3://bench/all", all);
      Header("sqlite");
      Run(a, b, o.commits, o, &retained_file, &all_file);
    }
    retained_store->reset();
    all_store->reset();
    std::filesystem::remove_all(dir);
  }
  if (auto why = testing::DynamoDbUnavailable()) {
    std::printf("\ndynamodb skipped: %s\n", why->c_str());
    return 0;
  }
  testing::DynamoDbTestClient dynamodb;
  const std::string table = "dc_bench_state_" + NewUuid();
  Check(CreateServiceStateTable(*dynamodb.client, table,
                                dynamodb::DeltaLogTableBilling::PayPerRequest()),
        "create the DynamoDB state table");
  DynamoDbStateStore store(*dynamodb.client, table);
  {
    Variant a(store, "s3://bench/retained", retained);
    Variant b(store, "s3://bench/all", all);
    Header("dynamodb");
    Run(a, b, o.dynamodb_commits, o, nullptr, nullptr);
  }
  return 0;
}
