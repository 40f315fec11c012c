// docs/bad-inputs.md, row by row: every bad input the CLI and the commit
// service can receive, the exit code or HTTP status it gets, the text its
// error must contain, and that nothing was written. The page is the table;
// this test keeps it true.
#include <filesystem>
#include <fstream>
#include <sstream>

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
