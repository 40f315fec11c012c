// docs/bad-inputs.md, row by row: every bad input the CLI and the commit
// service can receive, the exit code or HTTP status it gets, the text its
// error must contain, and that nothing was written. The page is the table;
// this test keeps it true.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <zlib.h>

#include "common/cli_runner.h"
#include "doc_table.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

std::vector<std::vector<std::string>> TableRows(const std::string& section) {
  std::ifstream in(DELTACOMMIT_BAD_INPUTS_DOC);
  EXPECT_TRUE(in.good()) << "cannot read " << DELTACOMMIT_BAD_INPUTS_DOC;
  std::vector<std::vector<std::string>> rows = DocTableRows(DELTACOMMIT_BAD_INPUTS_DOC, section);
  EXPECT_FALSE(rows.empty()) << "no rows under \"## " << section << "\"";
  return rows;
}

// The Stdin column: "\n" is a line break, "\xff" that byte.
std::string Unescape(std::string text) {
  return ReplaceAll(ReplaceAll(text, "\\n", "\n"), "\\xff", "\xff");
}

std::vector<std::string> Words(const std::string& command) {
  std::vector<std::string> words;
  std::istringstream in(command);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

TEST(BadInputCliTest, EveryRowGetsItsExitCodeAndErrorAndWritesNothing) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dc-bad-input-" + NewUuid());
  std::filesystem::create_directories(dir);
  const std::string table = (dir / "table").string();
  ASSERT_EQ(RunCli({"create", table, "--schema", "id:long,day:string", "--partition-by", "day"})
                .exit_code,
            0);
  const auto log_files = [&] {
    size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "table" / "_delta_log")) {
      if (entry.path().extension() == ".json") ++n;
    }
    return n;
  };
  const size_t before = log_files();
  for (const std::vector<std::string>& row : TableRows("The CLI")) {
    ASSERT_EQ(row.size(), 5u) << "a CLI row needs 5 cells: " << row[0];
    SCOPED_TRACE(row[0]);
    const auto fill = [&](const std::string& text) {
      return ReplaceAll(ReplaceAll(text, "$TABLE", table), "$DIR", dir.string());
    };
    CliResult r = RunCli(Words(fill(row[1])), Unescape(row[2]));
    EXPECT_EQ(r.exit_code, std::stoi(row[3])) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(fill(row[4])));
    EXPECT_EQ(log_files(), before) << "something was committed";
  }
  std::filesystem::remove_all(dir);
}

std::string BigEndian32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}
std::string LittleEndian(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// The DV file of the "Deletion vectors" rows: version byte, size, the DV
// (rows 0 and 2, portable RoaringBitmapArray, built from the format texts),
// CRC-32; changed as the row's "DV file" cell says.
std::string DvFile(const std::string& change) {
  std::string dv = LittleEndian(1681511377, 4) + LittleEndian(1, 8) + LittleEndian(0, 4) +
                   LittleEndian(12346, 4) + LittleEndian(1, 4) + LittleEndian(0, 2) +
                   LittleEndian(1, 2) + LittleEndian(16, 4) + LittleEndian(0, 2) +
                   LittleEndian(2, 2);
  if (change == "magic 0") dv.replace(0, 4, std::string(4, '\0'));
  uint32_t crc = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(dv.data()), static_cast<uInt>(dv.size())));
  if (change == "checksum flipped") crc ^= 1;
  const char version = change == "version 2" ? '\x02' : '\x01';
  return std::string(1, version) + BigEndian32(static_cast<uint32_t>(dv.size())) + dv +
         BigEndian32(crc);
}

TEST(BadInputCliTest, EveryBadDeletionVectorFailsTheQueryNamingTheDataFile) {
  // The protocol's example UUID and its Z85 text.
  const std::string uuid_z85 = "^-aqEH.-t@S}K{vb[*k^";
  const std::string dv_key = "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin";
  for (const std::vector<std::string>& row : TableRows("Deletion vectors `query` reads")) {
    ASSERT_EQ(row.size(), 5u) << "a deletion-vector row needs 5 cells: " << row[0];
    SCOPED_TRACE(row[0]);
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("dc-bad-dv-" + NewUuid());
    std::filesystem::create_directories(dir);
    const std::string table = (dir / "table").string();
    ASSERT_EQ(RunCli({"create", table, "--schema", "id:long", "--property",
                      "delta.enableDeletionVectors=true"})
                  .exit_code,
              0);
    std::ofstream(dir / "rows.csv") << "id\n10\n11\n12\n13\n";
    ASSERT_EQ(RunCli({"append", table, (dir / "rows.csv").string()}).exit_code, 0);
    CliResult snapshot = RunCli({"snapshot", table, "--json", "--files"});
    ASSERT_EQ(snapshot.exit_code, 0) << snapshot.err;
    json add = json::parse(snapshot.out)["files"].at(0);
    if (row[2] != "none") std::ofstream(dir / "table" / dv_key, std::ios::binary) << DvFile(row[2]);
    add["deletionVector"] = json::parse(ReplaceAll(row[1], "$UUID", uuid_z85));
    const json remove{{"path", add["path"]}, {"deletionTimestamp", 1}, {"dataChange", true}};
    CliResult commit = RunCli({"commit", table, "--actions", "-"},
                              json{{"remove", remove}}.dump() + "\n" + json{{"add", add}}.dump());
    ASSERT_EQ(commit.exit_code, 0) << commit.err;
    CliResult r = RunCli({"query", table, "SELECT count(*) FROM t"});
    EXPECT_EQ(r.exit_code, std::stoi(row[3])) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(row[4]));
    EXPECT_THAT(r.err, HasSubstr("data file " + add["path"].get<std::string>()));
    EXPECT_EQ(r.out, "");
    std::filesystem::remove_all(dir);
  }
}

TEST(BadInputColumnMappingTest, EveryRowNamesTheFileWrittenWithoutColumnMapping) {
  for (const std::vector<std::string>& row : TableRows("Data files column mapping reads")) {
    ASSERT_EQ(row.size(), 4u) << "a column-mapping row needs 4 cells: " << row[0];
    SCOPED_TRACE(row[0]);
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("dc-bad-cm-" + NewUuid());
    std::filesystem::create_directories(dir);
    const std::string table = (dir / "table").string();
    ASSERT_EQ(RunCli({"create", table, "--schema", "id:long,name:string", "--property",
                      "delta.columnMapping.mode=" + row[1]})
                  .exit_code,
              0);
    // The file as a writer without column mapping makes it: DuckDB's COPY,
    // logical names, no field ids.
    const std::string file = (dir / "table" / "bad.parquet").string();
    CliResult written = RunCli({"query", table,
                                "COPY (SELECT 1::BIGINT AS id, 'a' AS name) TO '" + file +
                                    "' (FORMAT parquet)"});
    ASSERT_EQ(written.exit_code, 0) << written.err;
    const json add{{"path", "bad.parquet"},
                   {"partitionValues", json::object()},
                   {"size", std::filesystem::file_size(file)},
                   {"modificationTime", 1},
                   {"dataChange", true}};
    CliResult commit = RunCli({"commit", table, "--actions", "-"}, json{{"add", add}}.dump());
    ASSERT_EQ(commit.exit_code, 0) << commit.err;
    CliResult r = RunCli({"query", table, "SELECT count(*) FROM t"});
    EXPECT_EQ(r.exit_code, std::stoi(row[2])) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(row[3]));
    EXPECT_EQ(r.out, "");
    std::filesystem::remove_all(dir);
  }
}

class BadInputServiceTest : public ServeApiTest {
 protected:
  std::string TokenFor(const std::string& name) const {
    if (name == "writer") return writer_token_;
    if (name == "other") return other_token_;
    if (name == "unknown") return "not-a-token-" + NewUuid();
    EXPECT_EQ(name, "none") << "tokens: none, unknown, other, writer";
    return "";
  }

  // The request body of a row: the raw text, or a valid commit changed by
  // the merge patch.
  std::string BodyFor(const std::string& change) const {
    std::string filled =
        ReplaceAll(ReplaceAll(change, "$TABLE", table_), "$BIG_BODY", std::string(70'000, 'x'));
    if (filled.starts_with("raw: ")) {
      std::string raw = filled.substr(5);
      if (raw.size() >= 2 && raw.front() == '`' && raw.back() == '`') {
        raw = raw.substr(1, raw.size() - 2);
      }
      return raw;
    }
    json body = Commit(0, FirstActions("bad-input"));
    const json patch = json::parse(filled, nullptr, false);
    EXPECT_FALSE(patch.is_discarded()) << "not a JSON merge patch: " << filled;
    body.merge_patch(patch);
    return body.dump();
  }
};

TEST_F(BadInputServiceTest, EveryRowGetsItsStatusCodeAndErrorAndWritesNothing) {
  for (const std::vector<std::string>& row : TableRows("The commit service (`POST /v1/commits`)")) {
    ASSERT_EQ(row.size(), 6u) << "a service row needs 6 cells: " << row[0];
    SCOPED_TRACE(row[0]);
    aws::HttpResponse answer = Send("POST", "/v1/commits", BodyFor(row[2]), TokenFor(row[1]));
    EXPECT_EQ(answer.status, std::stoi(row[3])) << answer.body;
    EXPECT_EQ(ErrorOf(answer).value("code", ""), row[4]) << answer.body;
    EXPECT_THAT(ErrorOf(answer).value("message", ""), HasSubstr(row[5]));
  }
  EXPECT_THAT(Keys(), ::testing::IsEmpty()) << "a bad request wrote to the table";
}

}  // namespace
}  // namespace deltacommit::testing
