// `deltacommit doctor` against S3 permissions that are really denied: each
// test makes its own bucket on Ceph RGW with a bucket policy that denies one
// action to everyone (RGW applies an explicit Deny to the bucket owner too),
// and checks that doctor names that action, the resource and the credential
// source.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "adapters/aws/aws_config.h"
#include "adapters/aws/sigv4.h"
#include "adapters/s3/s3_object_store.h"
#include "cli_runner.h"
#include "common/test_servers.h"
#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

using Json = nlohmann::json;
using testing::CliResult;
using testing::RunCli;

// A bucket of its own with a policy denying `action` on its objects (or,
// for s3:ListBucket, on the bucket); removed with everything in it after.
class DenyingBucketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_S3();
    auto service = aws::ResolveServiceConfig("s3", {});
    ASSERT_TRUE(service.ok()) << service.status().ToString();
    service_ = *service;
    http_ = aws::NewCurlHttpClient();
    credentials_ = aws::DefaultCredentialsChain({});
    bucket_ = "dc-doctor-" + NewUuid().substr(0, 13);
    ASSERT_EQ(Send("PUT", "", "").status, 200) << "create bucket " << bucket_;
    S3StoreConfig config{bucket_, "", service_, {}};
    store_ = std::make_unique<S3ObjectStore>(config, *http_, *credentials_);
  }

  void TearDown() override {
    if (store_ == nullptr) return;
    Send("DELETE", "?policy=", "");
    auto left = store_->List("");
    if (left.ok()) {
      for (const ObjectMeta& m : *left) store_->Delete(m.key).IgnoreError();
    }
    EXPECT_EQ(Send("DELETE", "", "").status, 204) << "delete bucket " << bucket_;
  }

  // One signed request to the bucket (path style, as RGW is configured).
  aws::HttpResponse Send(const std::string& method, const std::string& query,
                         const std::string& body) {
    aws::HttpRequest request;
    request.method = method;
    request.url = service_.endpoint_url + "/" + bucket_ + query;
    request.body = body;
    auto creds = credentials_->GetCredentials();
    EXPECT_TRUE(creds.ok());
    aws::SignRequest(request, *creds, {service_.region, "s3", SystemClock().NowMillis(), false});
    auto reply = http_->Send(request);
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return reply.ok() ? *reply : aws::HttpResponse{};
  }

  void Deny(const std::string& action) {
    const std::string resource = "arn:aws:s3:::" + bucket_ + (action == "s3:ListBucket" ? "" : "/*");
    Json policy = {{"Version", "2012-10-17"},
                   {"Statement", {{{"Effect", "Deny"}, {"Principal", "*"}, {"Action", action},
                                   {"Resource", resource}}}}};
    aws::HttpResponse r = Send("PUT", "?policy=", policy.dump());
    ASSERT_TRUE(r.status == 200 || r.status == 204) << r.status << " " << r.body;
  }

  // `doctor --json` on a table in the bucket.
  Json Doctor(int* exit_code) {
    CliResult r = RunCli({"doctor", "s3://" + bucket_ + "/t", "--json"});
    *exit_code = r.exit_code;
    Json report = Json::parse(r.out, nullptr, false);
    EXPECT_TRUE(report.is_object()) << r.out << r.err;
    return report.is_object() ? report : Json::object();
  }

  static Json Check(const Json& report, const std::string& name) {
    for (const Json& c : report.value("checks", Json::array())) {
      if (c["check"] == name) return c;
    }
    ADD_FAILURE() << "no check " << name << " in " << report.dump();
    return Json{{"status", "<absent>"}, {"detail", ""}};
  }

  aws::AwsServiceConfig service_;
  std::unique_ptr<aws::HttpClient> http_;
  std::unique_ptr<aws::CredentialsProvider> credentials_;
  std::string bucket_;
  std::unique_ptr<S3ObjectStore> store_;
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
  for (const std::string& part : {std::string("PermissionDenied: S3 PutObject s3://") + bucket_ +
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
  EXPECT_NE(detail.find("the probe object s3://" + bucket_ + "/t/_delta_log/.tmp/doctor-probe."),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("AccessDenied"), std::string::npos) << detail;
  // The probe named is really there.
  const std::string key = detail.substr(detail.find("t/_delta_log/.tmp/doctor-probe."),
                                        std::string("t/_delta_log/.tmp/doctor-probe.").size() + 36);
  EXPECT_TRUE(store_->Head(key).ok()) << key;
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
