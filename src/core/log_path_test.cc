#include "deltacommit/log_path.h"

#include <gtest/gtest.h>

#include "deltacommit/testing/forked_child.h"
#include "deltacommit/testing/golden_dir.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

// Counts heap allocations, so a test can show that rejecting a name allocates
// nothing (ParseLogPath runs on every file of a 10,000+ entry listing).
namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Pairing malloc with free is correct here; GCC's -Wmismatched-new-delete
// cannot see that both halves are replaced together.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  std::abort();  // the project builds no exception paths
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace deltacommit {

// Readable failure messages; gtest finds it by ADL, so it lives beside the
// type.
void PrintTo(const ParsedLogPath& p, std::ostream* os) {
  *os << LogFileTypeName(p.type) << "{version=" << p.version
      << ", end_version=" << p.end_version << ", part=" << p.part
      << ", num_parts=" << p.num_parts << ", uuid=\"" << p.uuid
      << "\", extension=\"" << p.extension << "\"}";
}

namespace {

constexpr std::string_view kUuid = "3a0d65cd-4056-49b8-937b-95f9e3ee90e5";
constexpr std::string_view kUpperUuid = "3A0D65CD-4056-49B8-937B-95F9E3EE90E5";
constexpr std::string_view kV7 = "00000000000000000007";

std::string Cat(std::string_view a, std::string_view b, std::string_view c = "",
                std::string_view d = "") {
  std::string s(a);
  s.append(b).append(c).append(d);
  return s;
}

// Builders return table-root paths; the parser takes `_delta_log/`-relative
// ones.
std::string_view StripLogDir(std::string_view path) {
  EXPECT_TRUE(path.starts_with(kLogDir)) << path;
  path.remove_prefix(kLogDir.size());
  return path;
}

ParsedLogPath Expected(LogFileType type, Version version) {
  ParsedLogPath parsed;
  parsed.type = type;
  parsed.version = version;
  return parsed;
}

// --- FormatVersion and LogFileTypeName ---------------------------------------

TEST(FormatVersionTest, ZeroPadsToTwentyDigits) {
  EXPECT_EQ(FormatVersion(0), "00000000000000000000");
  EXPECT_EQ(FormatVersion(7), "00000000000000000007");
  EXPECT_EQ(FormatVersion(1234567890123), "00000001234567890123");
}

TEST(FormatVersionTest, Int64MaxFillsTwentyDigits) {
  EXPECT_EQ(FormatVersion(std::numeric_limits<Version>::max()),
            "09223372036854775807");
}

TEST(FormatVersionDeathTest,
     NegativeVersionAssertsInDebugAndNeverAliasesALogEntry) {
  EXPECT_DEBUG_DEATH((void)FormatVersion(-1), "version >= 0");
#ifdef NDEBUG
  EXPECT_EQ(FormatVersion(-1), "-0000000000000000001");
  EXPECT_EQ(FormatVersion(std::numeric_limits<Version>::min()),
            "-9223372036854775808");
  EXPECT_EQ(ParseLogPath(FormatVersion(-1) + ".json").type,
            LogFileType::kUnrecognized);
#endif
}

TEST(LogFileTypeNameTest, EveryTypeHasADistinctName) {
  std::set<std::string_view> names;
  for (int i = 0; i <= static_cast<int>(LogFileType::kUnrecognized); ++i) {
    names.insert(LogFileTypeName(static_cast<LogFileType>(i)));
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(LogFileType::kUnrecognized) + 1);
  EXPECT_EQ(LogFileTypeName(LogFileType::kCommit), "Commit");
}

// --- Every accepted form ----------------------------------------------------

TEST(ParseLogPathTest, CommitJsonIsCommitWithItsVersion) {
  EXPECT_EQ(ParseLogPath("00000000000000000007.json"),
            Expected(LogFileType::kCommit, 7));
  EXPECT_EQ(ParseLogPath("00000000000000000000.json"),
            Expected(LogFileType::kCommit, 0));
}

TEST(ParseLogPathTest, LargestInt64VersionIsAccepted) {
  EXPECT_EQ(
      ParseLogPath("09223372036854775807.json"),
      Expected(LogFileType::kCommit, std::numeric_limits<Version>::max()));
}

TEST(ParseLogPathTest, ChecksumCrcIsChecksum) {
  EXPECT_EQ(ParseLogPath("00000000000000000012.crc"),
            Expected(LogFileType::kChecksum, 12));
}

TEST(ParseLogPathTest, CheckpointParquetIsClassicCheckpoint) {
  EXPECT_EQ(ParseLogPath("00000000000000000010.checkpoint.parquet"),
            Expected(LogFileType::kClassicCheckpoint, 10));
}

TEST(ParseLogPathTest, MultiPartCheckpointCarriesPartAndNumParts) {
  ParsedLogPath want = Expected(LogFileType::kMultiPartCheckpoint, 10);
  want.part = 2;
  want.num_parts = 3;
  EXPECT_EQ(
      ParseLogPath(
          "00000000000000000010.checkpoint.0000000002.0000000003.parquet"),
      want);
}

TEST(ParseLogPathTest, MultiPartCheckpointAcceptsLastPartAndLargestCount) {
  ParsedLogPath want = Expected(LogFileType::kMultiPartCheckpoint, 1);
  want.part = std::numeric_limits<int32_t>::max();
  want.num_parts = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(
      ParseLogPath(
          "00000000000000000001.checkpoint.2147483647.2147483647.parquet"),
      want);
}

TEST(ParseLogPathTest, UuidJsonCheckpointIsV2CheckpointWithUuidAndExtension) {
  ParsedLogPath want = Expected(LogFileType::kV2Checkpoint, 10);
  want.uuid = kUuid;
  want.extension = "json";
  EXPECT_EQ(
      ParseLogPath(Cat("00000000000000000010.checkpoint.", kUuid, ".json")),
      want);
}

TEST(ParseLogPathTest,
     UuidParquetCheckpointIsV2CheckpointWithUuidAndExtension) {
  ParsedLogPath want = Expected(LogFileType::kV2Checkpoint, 10);
  want.uuid = kUuid;
  want.extension = "parquet";
  EXPECT_EQ(
      ParseLogPath(Cat("00000000000000000010.checkpoint.", kUuid, ".parquet")),
      want);
}

TEST(ParseLogPathTest, UpperCaseUuidIsAcceptedAndKeptAsWritten) {
  ParsedLogPath want = Expected(LogFileType::kV2Checkpoint, 10);
  want.uuid = kUpperUuid;
  want.extension = "json";
  EXPECT_EQ(ParseLogPath(
                Cat("00000000000000000010.checkpoint.", kUpperUuid, ".json")),
            want);
}

TEST(ParseLogPathTest, CompactedJsonCarriesStartAndEndVersions) {
  ParsedLogPath want = Expected(LogFileType::kCompactedCommit, 4);
  want.end_version = 6;
  EXPECT_EQ(
      ParseLogPath("00000000000000000004.00000000000000000006.compacted.json"),
      want);
}

TEST(ParseLogPathTest, CompactedWithEqualStartAndEndIsAccepted) {
  ParsedLogPath want = Expected(LogFileType::kCompactedCommit, 5);
  want.end_version = 5;
  EXPECT_EQ(
      ParseLogPath("00000000000000000005.00000000000000000005.compacted.json"),
      want);
}

TEST(ParseLogPathTest, StagedCommitCarriesVersionAndUuid) {
  ParsedLogPath want = Expected(LogFileType::kStagedCommit, 1);
  want.uuid = kUuid;
  EXPECT_EQ(ParseLogPath(
                Cat("_staged_commits/00000000000000000001.", kUuid, ".json")),
            want);
}

TEST(ParseLogPathTest, LastCheckpointIsRecognised) {
  EXPECT_EQ(ParseLogPath("_last_checkpoint"),
            Expected(LogFileType::kLastCheckpoint, -1));
}

TEST(ParseLogPathTest, SidecarParquetAndJsonAreSidecarsWithExtension) {
  ParsedLogPath parquet = Expected(LogFileType::kSidecar, -1);
  parquet.extension = "parquet";
  EXPECT_EQ(ParseLogPath(Cat("_sidecars/", kUuid, ".parquet")), parquet);
  EXPECT_EQ(
      ParseLogPath(
          "_sidecars/00000000000000000006.checkpoint.0000000001.0000000002."
          "055a8e56-f5a5-4a19-9b76-b1f2e5d3c7a1.parquet"),
      parquet);
  ParsedLogPath json = Expected(LogFileType::kSidecar, -1);
  json.extension = "json";
  EXPECT_EQ(ParseLogPath("_sidecars/any-unique-name.json"), json);
}

TEST(ParseLogPathTest, DynamoDbTempCommitCarriesVersionAndUuid) {
  ParsedLogPath want = Expected(LogFileType::kTemp, 7);
  want.uuid = kUuid;
  EXPECT_EQ(ParseLogPath(Cat(".tmp/00000000000000000007.json.", kUuid)), want);
}

TEST(ParseLogPathTest, HadoopHiddenTempAndChecksumFilesAreTemp) {
  const ParsedLogPath temp = Expected(LogFileType::kTemp, -1);
  EXPECT_EQ(ParseLogPath(Cat(".00000000000000000007.json.", kUuid, ".tmp")),
            temp);
  EXPECT_EQ(ParseLogPath(".00000000000000000007.json.crc"), temp);
  EXPECT_EQ(ParseLogPath(".00000000000000000007.crc.crc"), temp);
  EXPECT_EQ(ParseLogPath("._last_checkpoint.crc"), temp);
  EXPECT_EQ(ParseLogPath(".x.tmp"), temp);
}

TEST(ParseLogPathTest, HadoopChecksumBesideSidecarOrStagedCommitIsTemp) {
  const ParsedLogPath temp = Expected(LogFileType::kTemp, -1);
  EXPECT_EQ(ParseLogPath(Cat("_sidecars/.", kUuid, ".parquet.crc")), temp);
  EXPECT_EQ(ParseLogPath(Cat("_staged_commits/.00000000000000000001.", kUuid,
                             ".json.crc")),
            temp);
}

// --- Builder -> parser round trips ------------------------------------------

TEST(LogPathRoundTripTest, CommitPathParsesBackToCommit) {
  EXPECT_EQ(CommitPath(7), Cat("_delta_log/", kV7, ".json"));
  for (Version v :
       {Version{0}, Version{7}, std::numeric_limits<Version>::max()}) {
    EXPECT_EQ(ParseLogPath(StripLogDir(CommitPath(v))),
              Expected(LogFileType::kCommit, v));
  }
}

TEST(LogPathRoundTripTest, ChecksumPathParsesBackToChecksum) {
  EXPECT_EQ(ChecksumPath(7), Cat("_delta_log/", kV7, ".crc"));
  EXPECT_EQ(ParseLogPath(StripLogDir(ChecksumPath(42))),
            Expected(LogFileType::kChecksum, 42));
}

TEST(LogPathRoundTripTest, ClassicCheckpointPathParsesBackToClassicCheckpoint) {
  EXPECT_EQ(ClassicCheckpointPath(7),
            Cat("_delta_log/", kV7, ".checkpoint.parquet"));
  EXPECT_EQ(ParseLogPath(StripLogDir(ClassicCheckpointPath(100))),
            Expected(LogFileType::kClassicCheckpoint, 100));
}

TEST(LogPathRoundTripTest, MultiPartCheckpointPathParsesBackWithPartAndCount) {
  EXPECT_EQ(
      MultiPartCheckpointPath(7, 1, 3),
      Cat("_delta_log/", kV7, ".checkpoint.0000000001.0000000003.parquet"));
  for (int32_t part = 1; part <= 3; ++part) {
    ParsedLogPath want = Expected(LogFileType::kMultiPartCheckpoint, 7);
    want.part = part;
    want.num_parts = 3;
    EXPECT_EQ(ParseLogPath(StripLogDir(MultiPartCheckpointPath(7, part, 3))),
              want);
  }
}

TEST(LogPathRoundTripTest, V2CheckpointPathParsesBackWithUuidAndExtension) {
  EXPECT_EQ(V2CheckpointPath(7, kUuid, "json"),
            Cat("_delta_log/", kV7, ".checkpoint.", Cat(kUuid, ".json")));
  for (std::string_view extension : {"json", "parquet"}) {
    ParsedLogPath want = Expected(LogFileType::kV2Checkpoint, 7);
    want.uuid = kUuid;
    want.extension = extension;
    EXPECT_EQ(ParseLogPath(StripLogDir(V2CheckpointPath(7, kUuid, extension))),
              want);
  }
}

TEST(LogPathRoundTripTest, StagedCommitPathParsesBackWithUuid) {
  EXPECT_EQ(StagedCommitPath(7, kUuid),
            Cat("_delta_log/_staged_commits/", kV7, ".", Cat(kUuid, ".json")));
  ParsedLogPath want = Expected(LogFileType::kStagedCommit, 7);
  want.uuid = kUuid;
  EXPECT_EQ(ParseLogPath(StripLogDir(StagedCommitPath(7, kUuid))), want);
}

TEST(LogPathRoundTripTest, LastCheckpointPathParsesBackToLastCheckpoint) {
  EXPECT_EQ(LastCheckpointPath(), "_delta_log/_last_checkpoint");
  EXPECT_EQ(ParseLogPath(StripLogDir(LastCheckpointPath())).type,
            LogFileType::kLastCheckpoint);
}

TEST(LogPathRoundTripTest, TempCommitPathParsesBackToTempWithVersionAndUuid) {
  EXPECT_EQ(TempCommitPath(7, kUuid),
            Cat("_delta_log/.tmp/", kV7, ".json.", kUuid));
  ParsedLogPath want = Expected(LogFileType::kTemp, 7);
  want.uuid = kUuid;
  EXPECT_EQ(ParseLogPath(StripLogDir(TempCommitPath(7, kUuid))), want);
}

// --- Rejections -------------------------------------------------------------

// Names close to accepted ones; each must be kUnrecognized.
std::vector<std::string> RejectedNames() {
  const std::string u(kUuid);
  return {
      "",
      "7.json",
      "0000000000000000007.json",    // 19 digits
      "000000000000000000007.json",  // 21 digits
      "00000000000000000007.JSON",
      "00000000000000000007.json.bak",
      "00000000000000000007.jsonx",
      "00000000000000000007",
      "00000000000000000007.",
      "+0000000000000000007.json",
      "-0000000000000000007.json",
      " 0000000000000000007.json",
      "0000000000000000000a.json",
      "99999999999999999999.json",  // overflows int64
      "09223372036854775808.json",  // INT64_MAX + 1
      "x/00000000000000000007.json",
      "_delta_log/00000000000000000007.json",
      "/00000000000000000007.json",
      "00000000000000000007.crc.bak",
      "00000000000000000007.CRC",
      "00000000000000000007.checkpoint",
      "00000000000000000007.checkpoint.json",
      "00000000000000000007.checkpoint.parquet.crc",
      "00000000000000000007.checkpoint.0000000000.0000000003.parquet",  // part
                                                                        // 0
      "00000000000000000007.checkpoint.0000000004.0000000003.parquet",  // part
                                                                        // > n
      "00000000000000000007.checkpoint.000000001.0000000003.parquet",   // 9
                                                                       // digits
      "00000000000000000007.checkpoint.00000000001.0000000003.parquet",  // 11
      "00000000000000000007.checkpoint.0000000001.0000000003.json",
      "00000000000000000007.checkpoint.2147483648.2147483648.parquet",  // >
                                                                        // int32
      "00000000000000000007.checkpoint.-000000001.0000000003.parquet",
      "00000000000000000007.checkpoint." + u + ".avro",
      "00000000000000000007.checkpoint." + u,
      "00000000000000000007.checkpoint." + u.substr(1) + ".json",  // 35 chars
      "00000000000000000007.checkpoint.3a0d65cd40564-9b8-937b-95f9e3ee90e5."
      "json",
      "00000000000000000007.checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90eg."
      "json",
      "00000000000000000007.checkpoint.{3a0d65cd-4056-49b8-937b-95f9e3ee90e}."
      "json",
      "00000000000000000006.00000000000000000004.compacted.json",  // end <
                                                                   // start
      "00000000000000000004.6.compacted.json",
      "00000000000000000004.00000000000000000006.compacted.parquet",
      "00000000000000000004.00000000000000000006.json",
      "_last_checkpoint.json",
      "_last_checkpoint.tmp",
      "_LAST_CHECKPOINT",
      "last_checkpoint",
      "_staged_commits/00000000000000000001.json",
      "_staged_commits/1." + u + ".json",
      "_staged_commits/00000000000000000001." + u + ".parquet",
      "_staged_commits/00000000000000000001.not-a-uuid.json",
      "_staged_commits/x/00000000000000000001." + u + ".json",
      "_staged_commits/",
      "_sidecars/",
      "_sidecars/.parquet",
      "_sidecars/x.avro",
      "_sidecars/.hidden.parquet",
      "_sidecars/sub/x.parquet",
      "_other/x.parquet",
      ".tmp/",
      ".tmp/00000000000000000007.json",
      ".tmp/00000000000000000007.json." + u + ".bak",
      ".tmp/7.json." + u,
      ".tmp/00000000000000000007.crc." + u,
      ".tmp",
      "..tmp",
      "..crc",
      ".00000000000000000007.json",
      "00000000000000000007.json.tmp",
      "00000000000000000007.json.crc",
  };
}

TEST(ParseLogPathTest, MalformedNamesAreUnrecognized) {
  const std::vector<std::string> rejected = RejectedNames();
  ASSERT_GE(rejected.size(), 25u);
  std::vector<std::string> accepted;
  for (const std::string& name : rejected) {
    const ParsedLogPath parsed = ParseLogPath(name);
    if (parsed.type != LogFileType::kUnrecognized) {
      accepted.push_back("\"" + name + "\" -> " +
                         std::string(LogFileTypeName(parsed.type)));
    } else if (parsed != ParsedLogPath{}) {
      accepted.push_back("\"" + name + "\" -> kUnrecognized with fields set");
    }
  }
  EXPECT_TRUE(accepted.empty()) << "accepted names that must be rejected:\n"
                                << ::testing::PrintToString(accepted);
}

TEST(ParseLogPathTest, RejectingANameAllocatesNothing) {
  const std::vector<std::string> rejected = RejectedNames();
  const long before = g_allocations.load();
  for (const std::string& name : rejected) (void)ParseLogPath(name);
  EXPECT_EQ(g_allocations.load() - before, 0) << "rejecting a name allocated";

  // Control: an accepted staged commit copies its 36-char UUID out, so the
  // counter must move; otherwise the zero above proves nothing.
  const std::string staged =
      Cat("_staged_commits/", kV7, ".", Cat(kUuid, ".json"));
  const long before_accept = g_allocations.load();
  EXPECT_EQ(ParseLogPath(staged).type, LogFileType::kStagedCommit);
  EXPECT_GT(g_allocations.load() - before_accept, 0);
}

// --- Golden tables ----------------------------------------------------------

namespace fs = std::filesystem;

fs::path GoldenRoot() {
  return GoldenTablesDir().value_or("/nonexistent-golden-tables");
}

// Every file under every `_delta_log/` of the corpus, as `_delta_log/`-relative
// paths (generic, '/'-separated).
std::vector<std::string> GoldenLogFiles(const fs::path& root) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_directory() || entry.path().filename() != "_delta_log")
      continue;
    for (const auto& file : fs::recursive_directory_iterator(entry.path())) {
      if (!file.is_regular_file()) continue;
      files.push_back(
          file.path().lexically_relative(entry.path()).generic_string());
    }
  }
  return files;
}

TEST(GoldenLogPathTest, EveryFileInEveryGoldenDeltaLogIsRecognised) {
  const fs::path root = GoldenRoot();
  if (!fs::is_directory(root)) GTEST_SKIP() << "golden tables absent: " << root;
  const std::vector<std::string> files = GoldenLogFiles(root);
  ASSERT_FALSE(files.empty()) << "no _delta_log files under " << root;

  std::map<LogFileType, int> counts;
  std::vector<std::string> unrecognized;
  for (const std::string& file : files) {
    const LogFileType type = ParseLogPath(file).type;
    ++counts[type];
    if (type == LogFileType::kUnrecognized) unrecognized.push_back(file);
  }
  EXPECT_TRUE(unrecognized.empty())
      << "unrecognised golden log files under " << root << ":\n"
      << ::testing::PrintToString(unrecognized);
  // The corpus has each of these; a zero means the walk or the parser broke.
  for (LogFileType type :
       {LogFileType::kCommit, LogFileType::kClassicCheckpoint,
        LogFileType::kMultiPartCheckpoint, LogFileType::kV2Checkpoint,
        LogFileType::kChecksum, LogFileType::kLastCheckpoint,
        LogFileType::kSidecar, LogFileType::kTemp}) {
    EXPECT_GT(counts[type], 0) << LogFileTypeName(type);
  }
}

// log-store-listFrom holds LogStore listing fixtures named "1", "2", "3": not
// log entries, so none may be taken for one.
TEST(GoldenLogPathTest, LogStoreListFromFixtureNamesAreUnrecognized) {
  const fs::path dir = GoldenRoot() / "log-store-listFrom";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "golden folder absent: " << dir;
  int seen = 0;
  for (const auto& file : fs::recursive_directory_iterator(dir)) {
    if (!file.is_regular_file()) continue;
    ++seen;
    const std::string name =
        file.path().lexically_relative(dir).generic_string();
    EXPECT_EQ(ParseLogPath(name).type, LogFileType::kUnrecognized) << name;
  }
  EXPECT_GT(seen, 0) << "no files in " << dir;
}

// --- NewUuid ----------------------------------------------------------------

// Checks `uuid` through the parser's own UUID rule, plus the v4 bits.
void ExpectV4Uuid(const std::string& uuid) {
  ParsedLogPath parsed =
      ParseLogPath(Cat("_staged_commits/", kV7, ".", uuid + ".json"));
  EXPECT_EQ(parsed.type, LogFileType::kStagedCommit) << uuid;
  ASSERT_EQ(uuid.size(), 36u);
  EXPECT_EQ(uuid[14], '4') << uuid;  // version
  EXPECT_NE(std::string_view("89ab").find(uuid[19]), std::string_view::npos)
      << uuid;
  for (char c : uuid) EXPECT_FALSE(c >= 'A' && c <= 'F') << uuid;  // lower case
}

TEST(NewUuidTest, ThousandValuesAreDistinctLowerCaseVersion4Uuids) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string uuid = NewUuid();
    ExpectV4Uuid(uuid);
    seen.insert(std::move(uuid));
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(NewUuidTest, ConcurrentThreadsProduceDistinctUuids) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 250;
  std::vector<std::vector<std::string>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&results, t] {
      for (int i = 0; i < kPerThread; ++i)
        results[static_cast<size_t>(t)].push_back(NewUuid());
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::string> seen;
  for (const auto& batch : results) seen.insert(batch.begin(), batch.end());
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kPerThread));
}

// A forked child draws UUIDs of its own, not those its parent (or a
// sibling) draws next: they name staged commits, temp files and writer
// appIds.
TEST(NewUuidTest, ForkedChildrenDrawUuidsOfTheirOwn) {
  (void)NewUuid();  // the parent's engine is seeded before the forks
  const std::optional<std::string> child = testing::OutputOfForkedChild([] { return NewUuid(); });
  const std::optional<std::string> sibling = testing::OutputOfForkedChild([] { return NewUuid(); });
  ASSERT_TRUE(child.has_value() && sibling.has_value());
  ExpectV4Uuid(*child);
  EXPECT_NE(*child, *sibling);
  const std::string parents_next = NewUuid();
  EXPECT_NE(parents_next, *child);
  EXPECT_NE(parents_next, *sibling);
}

}  // namespace
}  // namespace deltacommit
