// `deltacommit doctor` against S3 permissions that are really denied: each
// test makes its own bucket on Ceph RGW with a bucket policy that denies one
// action to everyone (RGW applies an explicit Deny to the bucket owner too),
// and checks that doctor names that action, the resource and the credential
// source.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/s3_test_bucket.h"
#include "common/test_servers.h"
#include "doctor_report.h"

namespace deltacommit {
namespace {

using Json = nlohmann::json;
using testing::CliResult;
using testing::RunCli;

// A bucket of its own with a policy denying one action (S3TestBucket).
class DenyingBucketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_S3();
    bucket_ = std::make_unique<testing::S3TestBucket>("dc-doctor");
    bucket_name_ = bucket_->name();
  }

  void Deny(const std::string& action) { bucket_->Deny(action); }

  // `doctor --json` on a table in the bucket.
  Json Doctor(int* exit_code) {
    CliResult r = RunCli({"doctor", "s3://" + bucket_name_ + "/t", "--json"});
    *exit_code = r.exit_code;
    return testing::DoctorReport(r);
  }

  static Json Check(const Json& report, const std::string& name) {
    return testing::DoctorCheck(report, name);
  }

  std::unique_ptr<testing::S3TestBucket> bucket_;
  std::string bucket_name_;
};

TEST_F(DenyingBucketTest, DeniedPutObjectFailsNamingActionResourceAndCredentials) {
  Deny("s3:PutObject");
  int exit_code = -1;
  Json report = Doctor(&exit_code);
  EXPECT_EQ(exit_code, 1);
  EXPECT_EQ(Check(report, "s3:ListBucket")["status"], "OK");
  EXPECT_EQ(Check(report, "s3:GetObject")["status"], "OK");
  Json put = Check(report, "s3:PutObject");
  EXPECT_EQ(put["status"], "FAIL");
  const std::string detail = put["detail"];
  for (const std::string& part : {std::string("PermissionDenied: S3 PutObject s3://") + bucket_name_ +
                                      "/t/_delta_log/.tmp/doctor-probe.",
                                  std::string("AccessDenied (HTTP 403)"),
                                  std::string("environment (AWS_ACCESS_KEY_ID)")}) {
    EXPECT_NE(detail.find(part), std::string::npos) << part << " not in " << detail;
  }
  EXPECT_EQ(Check(report, "If-None-Match")["status"], "SKIP");
  EXPECT_EQ(Check(report, "s3:DeleteObject")["status"], "SKIP");
}

TEST_F(DenyingBucketTest, DeniedDeleteObjectWarnsNamingTheProbeLeftBehind) {
  Deny("s3:DeleteObject");
  int exit_code = -1;
  Json report = Doctor(&exit_code);
  EXPECT_EQ(exit_code, 0) << report.dump(2);  // commits do not need it
  Json del = Check(report, "s3:DeleteObject");
  EXPECT_EQ(del["status"], "WARN");
  const std::string detail = del["detail"];
  EXPECT_NE(detail.find("the probe object s3://" + bucket_name_ + "/t/_delta_log/.tmp/doctor-probe."),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("AccessDenied"), std::string::npos) << detail;
  // The probe named is really there.
  const std::string key = detail.substr(detail.find("t/_delta_log/.tmp/doctor-probe."),
                                        std::string("t/_delta_log/.tmp/doctor-probe.").size() + 36);
  EXPECT_TRUE(bucket_->store().Head(key).ok()) << key;
}

TEST_F(DenyingBucketTest, DeniedListBucketFailsNamingTheListing) {
  Deny("s3:ListBucket");
  int exit_code = -1;
  Json report = Doctor(&exit_code);
  EXPECT_EQ(exit_code, 1);
  Json list = Check(report, "s3:ListBucket");
  EXPECT_EQ(list["status"], "FAIL");
  EXPECT_NE(list["detail"].get<std::string>().find("ListObjectsV2"), std::string::npos) << list;
  // Without ListBucket, AWS answers 403 for the missing key doctor reads,
  // and doctor says why; RGW still answers 404 to the bucket owner.
  Json get = Check(report, "s3:GetObject");
  if (get["status"] == "FAIL") {
    EXPECT_NE(get["detail"].get<std::string>().find("403 instead of 404"), std::string::npos)
        << get;
  } else {
    EXPECT_EQ(get["status"], "OK") << get;
  }
  EXPECT_EQ(Check(report, "s3:PutObject")["status"], "OK");
}

}  // namespace
}  // namespace deltacommit
