// `deltacommit demo`, the README's first command, end to end: writer
// processes appending CSV batches as Parquet data files, racing compactions,
// and the verification that reads the data back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.h"
#include "deltacommit/log_path.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(DemoTest, WritersAppendConcurrentlyAndTheVerificationReadsEveryRowBack) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dc-demo-" + NewUuid())).string();
  CliResult r = RunCli({"demo", "--writers", "3", "--commits", "4", "--rows", "25", "--dir", dir});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("[ok] versions 0..13 contiguous, expected 14"));
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
  std::filesystem::remove_all(dir);
}

TEST(DemoTest, BadArgumentsAreRefused) {
  CliResult r = RunCli({"demo", "--writers", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--writers, --commits and --rows must be at least 1"));
}

}  // namespace
}  // namespace deltacommit::testing
