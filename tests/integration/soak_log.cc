#include "soak_log.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "deltacommit/log_path.h"

namespace deltacommit::testing {
namespace {

struct LogContent {
  std::map<std::string, int> adds;                     // path -> times
  std::map<std::pair<std::string, int64_t>, int> txns;  // (appId, version) -> times
};

// Every line of `commit` parsed; a torn or corrupt file fails.
void Tally(const std::string& key, const std::string& commit, LogContent& content) {
  std::istringstream lines(commit);
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json action = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(action.is_object()) << key << " has a line that is not JSON: " << line;
    if (action.contains("add")) ++content.adds[action["add"].value("path", "")];
    if (action.contains("txn")) {
      ++content.txns[{action["txn"].value("appId", ""), action["txn"].value("version", -1LL)}];
    }
  }
}

}  // namespace

std::string SoakTag(int writer, int commit) {
  return "soak-w" + std::to_string(writer) + "-c" + std::to_string(commit);
}

void ExpectSoakLog(ObjectStore& store, const std::string& table,
                   const std::map<std::string, int>& expected) {
  const std::string log_dir = table + "/" + std::string(kLogDir);
  StatusOr<std::vector<ObjectMeta>> listed = store.List(log_dir);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  LogContent content;
  Version next = 0;
  for (const ObjectMeta& object : *listed) {
    const ParsedLogPath parsed = ParseLogPath(object.key.substr(log_dir.size()));
    if (parsed.type != LogFileType::kCommit) continue;
    ASSERT_EQ(parsed.version, next) << "versions not contiguous at " << object.key;
    ++next;
    StatusOr<std::string> commit = store.Get(object.key);
    ASSERT_TRUE(commit.ok()) << commit.status().ToString();
    Tally(object.key, *commit, content);
  }
  size_t found = 0;
  for (const auto& [tag, writer] : expected) {
    const auto add = content.adds.find("part-" + tag + ".parquet");
    EXPECT_TRUE(add != content.adds.end() && add->second == 1)
        << tag << " is in the log " << (add == content.adds.end() ? 0 : add->second) << " times";
    const int64_t commit = std::stoll(tag.substr(tag.rfind("-c") + 2));
    const auto txn = content.txns.find({"soak-w" + std::to_string(writer), commit});
    EXPECT_TRUE(txn != content.txns.end() && txn->second == 1) << "the txn of " << tag;
    if (add != content.adds.end()) ++found;
  }
  EXPECT_EQ(found, content.adds.size()) << "the log holds adds nobody was told were committed";
  std::cout << "[ soak     ] " << table << ": " << next << " versions; " << found << " of "
            << expected.size() << " acknowledged commits found\n";
}

}  // namespace deltacommit::testing
