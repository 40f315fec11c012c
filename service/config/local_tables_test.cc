// [local] roots: what the config accepts, and which local tables a service
// with those roots serves (symbolic links included).
#include "service/config/local_tables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "deltacommit/log_path.h"
#include "deltacommit/posix/beneath.h"

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

// A table must have one name: roots that overlap, spelt so or once their
// symbolic links are resolved, are refused.
TEST(LocalConfigTest, OverlappingRootsAreRefused) {
  const fs::path base = fs::temp_directory_path() / ("dc-local-" + NewUuid());
  fs::create_directories(base / "data" / "x");
  fs::create_symlink(base / "data" / "x", base / "alias");
  auto parse = [&](const std::string& a, const std::string& b) {
    return ParseServiceConfig("[local]\nroots = [\"" + a + "\", \"" + b + "\"]\n", "t.toml");
  };
  StatusOr<ServiceConfig> aliased = parse((base / "alias").string(), (base / "data").string());
  ASSERT_FALSE(aliased.ok());
  EXPECT_THAT(aliased.status().message(),
              AllOf(HasSubstr("overlap"), HasSubstr((base / "data" / "x").string()),
                    HasSubstr("two names")));
  EXPECT_FALSE(parse("/srv/a", "/srv/a/b").ok()) << "nested roots";
  EXPECT_TRUE(parse("/srv/a", "/srv/ab").ok()) << "a shared prefix is no overlap";
  fs::remove_all(base);
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

// No symbolic link below a root is followed: not as the table directory,
// nor as its _delta_log or _staged_commits, nor one that stays inside the
// root (a second spelling of a table would be a second table to the
// service, with its own state and lock). The root's own path may have one.
TEST(CheckLocalTableTest, SymbolicLinksBelowTheRootAreRefused) {
  const fs::path base = fs::temp_directory_path() / ("dc-local-" + NewUuid());
  const fs::path root = base / "root", outside = base / "outside";
  fs::create_directories(root / "real" / "_delta_log");
  fs::create_directories(outside / "_delta_log");
  fs::create_directories(root / "logged");
  fs::create_directories(root / "staged" / "_delta_log");
  fs::create_directories(root / "a");
  fs::create_symlink(outside, root / "escape");
  fs::create_symlink(outside / "_delta_log", root / "logged" / "_delta_log");
  fs::create_symlink(outside, root / "staged" / "_delta_log" / "_staged_commits");
  fs::create_symlink(root / "real", root / "alias");
  fs::create_symlink(root / "real", root / "a" / "evil");
  fs::create_symlink(root, base / "root-link");
  const LocalConfig local{{root.string()}};

  EXPECT_TRUE(CheckLocalTable(local, Local((root / "real").string())).ok());
  EXPECT_TRUE(CheckLocalTable(local, Local((root / "new-table").string())).ok())
      << "a table that does not exist yet";
  EXPECT_TRUE(CheckLocalTable(local, Local((root / "a" / "new" / "deep").string())).ok());
  for (const fs::path& table : {root / "escape", root / "logged", root / "staged",
                                root / "alias", root / "a" / "evil", root / "escape" / "t"}) {
    EXPECT_THAT(Refusal(local, table.string()),
                AllOf(HasSubstr("crosses a symbolic link"), HasSubstr(table.string()),
                      HasSubstr("[local] root " + root.string())))
        << table;
  }
  const LocalConfig through_link{{(base / "root-link").string()}};
  EXPECT_TRUE(CheckLocalTable(through_link, Local((base / "root-link" / "real").string())).ok())
      << "a link in the root's own path is the operator's";
  fs::remove_all(base);
}

// Both ways of refusing links: openat2 and the O_NOFOLLOW walk.
TEST(CheckLocalTableTest, TheComponentWalkRefusesLinksAsOpenat2Does) {
  const fs::path base = fs::temp_directory_path() / ("dc-local-" + NewUuid());
  fs::create_directories(base / "root" / "real");
  fs::create_symlink(base / "root" / "real", base / "root" / "alias");
  const LocalConfig local{{(base / "root").string()}};
  const bool before = posix::UseOpenat2ForTesting(false);
  EXPECT_TRUE(CheckLocalTable(local, Local((base / "root" / "real").string())).ok());
  EXPECT_THAT(Refusal(local, (base / "root" / "alias").string()),
              HasSubstr("crosses a symbolic link"));
  posix::UseOpenat2ForTesting(before);
  fs::remove_all(base);
}

}  // namespace
}  // namespace deltacommit::service
