// docs/bad-inputs.md, "Local tables of the commit service": every probe of a
// real `deltacommit serve` with a [local] root and tenants whose prefixes
// share a stem (symbolic links into each other's tables, staged commits that
// are links or FIFOs, URIs with '?', '#' or spaces, commits the library
// refuses), each row's status, code and text, and that after it every file
// under the root and outside it is what it was.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/serve_process.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/log_path.h"
#include "doc_table.h"
#include "service/config/auth.h"
#include "service/http/http_test_util.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

constexpr char kUuid[] = "0a1b2c3d-0000-0000-0000-000000000000";
const std::map<std::string, std::string>& Tokens() {
  static const auto* tokens = new std::map<std::string, std::string>{
      {"A", "tenant-a-token-0123456789abcdef"},
      {"B", "tenant-b-token-0123456789abcdef"},
      {"reader", "reader-token-0123456789abcdef"}};
  return *tokens;
}

std::string VersionZero() {
  return "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"CREATE TABLE\"}}\n"
         "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
         "{\"metaData\":{\"id\":\"" + NewUuid() +
         "\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
         "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[],"
         "\"configuration\":{}}}\n";
}

// Every entry under `dir`, never following a link: a link's target, a
// FIFO's kind, a file's bytes.
std::map<std::string, std::string> Tree(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = fs::relative(entry.path(), dir).string();
    const fs::file_status st = entry.symlink_status();
    if (fs::is_symlink(st)) {
      out[name] = "link -> " + fs::read_symlink(entry.path()).string();
    } else if (fs::is_regular_file(st)) {
      std::ifstream file(entry.path(), std::ios::binary);
      out[name] = std::string(std::istreambuf_iterator<char>(file), {});
    } else {
      out[name] = fs::is_directory(st) ? "dir" : "other";
    }
  }
  return out;
}

class ServeLocalAttacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("dc-local-attacks-" + NewUuid());
    root_ = base_ / "root";
    out_ = base_ / "outside";
    fs::create_directories(root_);
    std::string config =
        "[server]\nlisten = \"127.0.0.1:0\"\n[state]\nkind = \"sqlite\"\npath = \"s.sqlite\"\n"
        "[local]\nroots = [\"" + root_.string() + "\"]\n";
    const std::map<std::string, std::pair<std::string, std::string>> grants = {
        {"A", {"a", "\"commit\", \"read\""}},
        {"B", {"ab", "\"commit\", \"read\""}},
        {"reader", {"", "\"read\""}}};
    for (const auto& [name, grant] : grants) {
      config += "[[token]]\nname = \"" + name + "\"\nsha256 = \"" +
                service::HashToken(Tokens().at(name)) + "\"\ntables = [\"file://" +
                (grant.first.empty() ? root_ : root_ / grant.first).string() +
                "\"]\nactions = [" + grant.second + "]\n";
    }
    auto serve = ServeProcess::Start(config);
    ASSERT_TRUE(serve.ok()) << serve.status().ToString();
    serve_ = std::move(serve).value();
  }
  void TearDown() override {
    serve_.reset();
    fs::remove_all(base_);
  }

  // The state every row starts from.
  void Reset() {
    fs::remove_all(root_);
    fs::remove_all(out_);
    for (const fs::path& table : {root_ / "a" / "t0", root_ / "ab" / "t1"}) {
      fs::create_directories(table / "_delta_log" / "_staged_commits");
      std::ofstream(table / CommitPath(0)) << VersionZero();
    }
    fs::create_directories(out_);
    std::ofstream(out_ / "secret.json") << "{\"commitInfo\":{\"operation\":\"SECRET\"}}\n";
  }

  std::string Fill(const std::string& text) const {
    return ReplaceAll(ReplaceAll(ReplaceAll(text, "$UUID", kUuid), "$OUT", out_.string()), "$R",
                   root_.string());
  }

  void RunSetup(const std::string& setup) {
    std::stringstream commands(Fill(setup));
    for (std::string command; std::getline(commands, command, ';');) {
      std::istringstream words(command);
      std::vector<std::string> w;
      for (std::string word; words >> word;) w.push_back(word);
      if (w.empty()) continue;
      ASSERT_TRUE((w.size() == 4 && w[0] == "ln" && w[1] == "-s") ||
                  (w.size() == 2 && (w[0] == "mkfifo" || w[0] == "mkdir")))
          << "setup: unknown command \"" << command << "\"";
      if (w[0] == "ln") fs::create_symlink(w[2], root_ / w[3]);
      if (w[0] == "mkdir") fs::create_directories(root_ / w[1]);
      if (w[0] == "mkfifo") {
        ASSERT_EQ(::mkfifo((root_ / w[1]).c_str(), 0644), 0) << w[1];
      }
    }
  }

  aws::HttpResponse Post(const std::string& token, const json& body) {
    aws::HttpRequest request;
    request.method = "POST";
    request.url = serve_->Url("/v1/commits");
    request.headers = {{"Authorization", "Bearer " + Tokens().at(token)},
                       {"Content-Type", "application/json"}};
    request.body = body.dump();
    StatusOr<aws::HttpResponse> response = http_->Send(request);
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    return response.ok() ? *response : aws::HttpResponse{};
  }

  fs::path base_, root_, out_;
  std::unique_ptr<ServeProcess> serve_;
  std::unique_ptr<aws::HttpClient> http_ = aws::NewCurlHttpClient();
};

TEST_F(ServeLocalAttacksTest, EveryRowIsRefusedAndWritesNothingAnywhere) {
  const auto rows =
      DocTableRows(DELTACOMMIT_BAD_INPUTS_DOC, "Local tables of the commit service (`file://`)");
  ASSERT_GE(rows.size(), 20u) << "the section's rows in " << DELTACOMMIT_BAD_INPUTS_DOC;
  for (const std::vector<std::string>& row : rows) {
    ASSERT_EQ(row.size(), 9u) << "a row needs 9 cells: " << row[0];
    SCOPED_TRACE(row[0]);
    Reset();
    RunSetup(row[1]);
    const auto before_root = Tree(root_), before_out = Tree(out_);
    json body = {{"table", Fill(row[3])}, {"version", std::stoi(row[4])}};
    const std::string actions = Fill(row[5]);
    if (actions.starts_with("staged:")) {
      body["staged_file"] = std::string(kLogDir) + actions.substr(7);
    } else {
      body["actions"] = ReplaceAll(actions, "\\n", "\n") + "\n";
    }
    aws::HttpResponse answer = Post(row[2], body);
    EXPECT_EQ(answer.status, std::stoi(row[6])) << answer.body;
    json error = json::parse(answer.body, nullptr, false);
    error = error.is_object() && error.contains("error") ? error["error"] : json::object();
    EXPECT_EQ(error.value("code", ""), row[7]) << answer.body;
    EXPECT_THAT(error.value("message", ""), HasSubstr(Fill(row[8])));
    // A staged file's content never reaches the caller: not even whether
    // it parses.
    EXPECT_THAT(error.value("message", ""), Not(HasSubstr("malformed")));
    EXPECT_EQ(Tree(root_), before_root) << "written under the root";
    EXPECT_EQ(Tree(out_), before_out) << "written outside the root";
  }
}

TEST_F(ServeLocalAttacksTest, EveryFramingRowIsAnsweredOnceAndTheSmuggledCommitNeverRuns) {
  const auto rows =
      DocTableRows(DELTACOMMIT_BAD_INPUTS_DOC, "HTTP framing of the commit service (raw bytes)");
  ASSERT_GE(rows.size(), 9u) << "the section's rows in " << DELTACOMMIT_BAD_INPUTS_DOC;
  Reset();
  const json smuggled_commit = {{"table", "file://" + (root_ / "a" / "smuggled").string()},
                                {"version", 0},
                                {"actions", VersionZero()}};
  const std::string smuggled_body = smuggled_commit.dump();
  const std::string smuggled = "POST /v1/commits HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                               Tokens().at("A") +
                               "\r\nContent-Type: application/json\r\nContent-Length: " +
                               std::to_string(smuggled_body.size()) + "\r\n\r\n" + smuggled_body;
  for (const std::vector<std::string>& row : rows) {
    ASSERT_EQ(row.size(), 5u) << "a row needs 5 cells: " << row[0];
    SCOPED_TRACE(row[0]);
    const std::string request =
        "POST /v1/commits HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + Tokens().at("A") +
        "\r\nContent-Type: application/json\r\n" + ReplaceAll(row[1], "\\n", "\r\n") +
        "\r\n\r\n" + smuggled;
    http::testing::RawConnection connection(serve_->port());
    ASSERT_TRUE(connection.connected());
    ASSERT_TRUE(connection.Send(request));
    std::optional<http::testing::RawResponse> answer = connection.ReadResponse();
    ASSERT_TRUE(answer.has_value()) << "no answer";
    EXPECT_EQ(answer->status, std::stoi(row[2])) << answer->body;
    EXPECT_EQ(answer->Header("connection"), "close");
    json error = json::parse(answer->body, nullptr, false);
    error = error.is_object() && error.contains("error") ? error["error"] : json::object();
    EXPECT_EQ(error.value("code", ""), row[3]) << answer->body;
    EXPECT_THAT(error.value("message", ""), HasSubstr(row[4]));
    EXPECT_THAT(answer->body, Not(HasSubstr(Tokens().at("A")))) << "a header value quoted";
    EXPECT_FALSE(connection.ReadResponse(std::chrono::milliseconds(300)).has_value())
        << "a second answer on the connection";
    EXPECT_TRUE(connection.WaitForClose());
    EXPECT_FALSE(fs::exists(root_ / "a" / "smuggled")) << "the smuggled commit ran";
  }
}

// The tables a refused request touched are still whole to their owners: a
// link did not make the service keep a second record or lock for them.
TEST_F(ServeLocalAttacksTest, ARefusedAliasLeavesTheTableToItsOwner) {
  Reset();
  RunSetup("ln -s $R/ab/t1 a/evil");
  const std::string add =
      "{\"add\":{\"path\":\"x.parquet\",\"partitionValues\":{},\"size\":1,"
      "\"modificationTime\":1,\"dataChange\":true}}\n";
  for (int i = 0; i < 2; ++i) {
    aws::HttpResponse alias =
        Post("A", {{"table", "file://" + (root_ / "a" / "evil").string()},
                   {"version", 1},
                   {"actions", add}});
    EXPECT_EQ(alias.status, 403) << alias.body;
  }
  aws::HttpResponse owner = Post(
      "B", {{"table", "file://" + (root_ / "ab" / "t1").string()}, {"version", 1}, {"actions", add}});
  EXPECT_EQ(owner.status, 200) << owner.body;
  EXPECT_TRUE(fs::exists(root_ / "ab" / "t1" / CommitPath(1)));
  EXPECT_TRUE(fs::is_empty(root_ / "ab" / "t1" / "_delta_log" / "_staged_commits"))
      << "no staged file left behind";
}

}  // namespace
}  // namespace deltacommit::testing
