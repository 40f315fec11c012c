// `deltacommit demo`, the README's first command, end to end: a commit
// service on a local table directory (or none: --log-store local), writer
// processes appending CSV batches as Parquet data files through it, racing
// compactions, and the verification that reads the data back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "common/cli_runner.h"
#include "deltacommit/log_path.h"

namespace deltacommit::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class DemoModeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DemoModeTest, WritersAppendConcurrentlyAndTheVerificationReadsEveryRowBack) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dc-demo-" + NewUuid())).string();
  CliResult r = RunCli({"demo", "--writers", "3", "--commits", "4", "--rows", "25", "--dir", dir,
                        "--log-store", GetParam()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Through the service, appends queued together may share a version.
  EXPECT_THAT(r.out, ContainsRegex("\\[ok\\] versions 0\\.\\.[0-9]+ contiguous"));
  EXPECT_THAT(r.out, HasSubstr("[ok] 12 of 12 appends acknowledged"));
  EXPECT_THAT(r.out, HasSubstr("[ok] racing compactions: exactly one committed"));
  EXPECT_THAT(r.out, HasSubstr("[ok] rows read back from the Parquet files 300 (300 distinct ids) "
                               "= rows written 300"));
  EXPECT_THAT(r.out, Not(HasSubstr("FAILED")));
  EXPECT_THAT(r.out, HasSubstr("RESULT: OK"));
  // The data files are real: one Parquet file per append in the table.
  int parquet = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/events")) {
    if (entry.path().extension() == ".parquet") ++parquet;
  }
  EXPECT_GE(parquet, 12);
  if (GetParam() == "service") {
    // Every append and both compactions went through the service, which
    // shut down cleanly.
    EXPECT_THAT(r.out, HasSubstr("commit service: http://127.0.0.1:"));
    EXPECT_THAT(r.out, HasSubstr("at versions the service assigned"));
    const std::string log = Slurp(dir + "/serve.log");
    int appends = 0;
    for (size_t at = log.find("\"mode\":\"append\""); at != std::string::npos;
         at = log.find("\"mode\":\"append\"", at + 1)) {
      ++appends;
    }
    EXPECT_EQ(appends, 12) << log;
    EXPECT_THAT(log, HasSubstr("\"msg\":\"shut down\""));
  } else {
    EXPECT_FALSE(std::filesystem::exists(dir + "/serve.log"));
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(LogStores, DemoModeTest, ::testing::Values("service", "local"));

TEST(DemoTest, BadArgumentsAreRefused) {
  CliResult r = RunCli({"demo", "--writers", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--writers, --commits and --rows must be at least 1"));
  CliResult mode = RunCli({"demo", "--log-store", "s3-dynamodb"});
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_THAT(mode.err, HasSubstr("--log-store \"s3-dynamodb\": the demo runs service (default) "
                                  "or local"));
}

}  // namespace
}  // namespace deltacommit::testing
