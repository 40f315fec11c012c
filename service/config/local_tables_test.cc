// [local] roots: what the config accepts, and which local tables a service
// with those roots serves (symbolic links included).
#include "service/config/local_tables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

TableUri Local(const std::string& path) {
  StatusOr<TableUri> table = NormalizeTableUri("file://" + path);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? *table : TableUri{};
}

std::string Refusal(const LocalConfig& local, const std::string& path) {
  Status st = CheckLocalTable(local, Local(path));
  EXPECT_EQ(st.code(), StatusCode::kPermissionDenied) << path;
  return st.message();
}

TEST(LocalConfigTest, RootsAreAbsoluteAndNormalised) {
  StatusOr<ServiceConfig> config =
      ParseServiceConfig("[local]\nroots = [\"/srv/tables/\", \"lake\"]\n", "t.toml", "/etc/dc");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->local.roots, (std::vector<std::string>{"/srv/tables", "/etc/dc/lake"}));
  EXPECT_TRUE(ParseServiceConfig("", "t.toml")->local.roots.empty());
}

TEST(LocalConfigTest, BadRootsAreNamed) {
  auto error = [](std::string_view text) {
    StatusOr<ServiceConfig> config = ParseServiceConfig(text, "t.toml");
    EXPECT_FALSE(config.ok()) << text;
    return config.ok() ? std::string() : config.status().message();
  };
  EXPECT_THAT(error("[local]\nroots = [\"/srv/../etc\"]\n"),
              AllOf(HasSubstr("t.toml:2:"), HasSubstr("local.roots"), HasSubstr("\"..\"")));
  EXPECT_THAT(error("[local]\nroots = [\"/\"]\n"), HasSubstr("the file system's root"));
  EXPECT_THAT(error("[local]\nroots = [\"rel\"]\n"), HasSubstr("is not an absolute directory"));
  EXPECT_THAT(error("[local]\nroot = [\"/srv\"]\n"), HasSubstr("root"));
  EXPECT_THAT(error("[local]\nroots = \"/srv\"\n"), HasSubstr("local.roots"));
}

TEST(CheckLocalTableTest, ServesOnlyUnderItsRoots) {
  const LocalConfig none;
  EXPECT_THAT(Refusal(none, "/srv/tables/events"),
              HasSubstr("this service serves no local (file://) tables"));
  const LocalConfig roots{{"/srv/tables", "/data/lake"}};
  EXPECT_TRUE(CheckLocalTable(roots, Local("/srv/tables/events")).ok());
  EXPECT_TRUE(CheckLocalTable(roots, Local("/data/lake/a/b")).ok());
  EXPECT_TRUE(CheckLocalTable(roots, Local("/srv/tables")).ok());
  EXPECT_THAT(Refusal(roots, "/srv/tables-other/events"),
              HasSubstr("file:///srv/tables-other/events is not under any of the service's "
                        "[local] roots"));
  EXPECT_THAT(Refusal(roots, "/srv"), HasSubstr("not under any"));
}

// A link inside a root must not lead the service's writes outside it: not
// as the table directory, nor as its _delta_log.
TEST(CheckLocalTableTest, SymbolicLinksOutOfTheRootAreRefused) {
  const fs::path base = fs::temp_directory_path() / ("dc-local-" + NewUuid());
  const fs::path root = base / "root", outside = base / "outside";
  fs::create_directories(root / "real" / "_delta_log");
  fs::create_directories(outside / "_delta_log");
  fs::create_directories(root / "logged");
  fs::create_symlink(outside, root / "escape");
  fs::create_symlink(outside / "_delta_log", root / "logged" / "_delta_log");
  fs::create_symlink(root / "real", root / "alias");
  const LocalConfig local{{root.string()}};

  EXPECT_TRUE(CheckLocalTable(local, Local((root / "real").string())).ok());
  EXPECT_TRUE(CheckLocalTable(local, Local((root / "new-table").string())).ok())
      << "a table that does not exist yet";
  EXPECT_TRUE(CheckLocalTable(local, Local((root / "alias").string())).ok())
      << "a link that stays inside the root";
  EXPECT_THAT(Refusal(local, (root / "escape").string()),
              AllOf(HasSubstr("(a symbolic link), outside the [local] root"),
                    HasSubstr(outside.string())));
  EXPECT_THAT(Refusal(local, (root / "logged").string()),
              HasSubstr((root / "logged" / "_delta_log").string() + " leads to"));
  fs::remove_all(base);
}

}  // namespace
}  // namespace deltacommit::service
