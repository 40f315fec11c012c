#include "common/s3_test_bucket.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "deltacommit/aws/sigv4.h"
#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"

namespace deltacommit::testing {

S3TestBucket::S3TestBucket(const std::string& purpose)
    : http_(aws::NewCurlHttpClient()),
      credentials_(aws::DefaultCredentialsChain({})),
      name_(purpose + "-" + NewUuid().substr(0, 13)) {
  auto service = aws::ResolveServiceConfig("s3", {});
  if (!service.ok()) std::abort();  // the environment is the test's own
  service_ = *service;
  EXPECT_EQ(Send("PUT", "", "").status, 200) << "create bucket " << name_;
  S3StoreConfig config{name_, "", service_, {}};
  store_ = std::make_unique<S3ObjectStore>(config, *http_, *credentials_);
}

S3TestBucket::~S3TestBucket() {
  Send("DELETE", "?policy=", "");
  auto left = store_->List("");
  if (left.ok()) {
    for (const ObjectMeta& m : *left) store_->Delete(m.key).IgnoreError();
  }
  EXPECT_EQ(Send("DELETE", "", "").status, 204) << "delete bucket " << name_;
}

aws::HttpResponse S3TestBucket::Send(const std::string& method, const std::string& query,
                                     const std::string& body) {
  aws::HttpRequest request;
  request.method = method;
  request.url = service_.endpoint_url + "/" + name_ + query;
  request.body = body;
  auto creds = credentials_->GetCredentials();
  EXPECT_TRUE(creds.ok()) << creds.status().ToString();
  if (!creds.ok()) return {};
  aws::SignRequest(request, *creds, {service_.region, "s3", SystemClock().NowMillis(), false});
  auto reply = http_->Send(request);
  EXPECT_TRUE(reply.ok()) << reply.status().ToString();
  return reply.ok() ? *reply : aws::HttpResponse{};
}

void S3TestBucket::Deny(const std::string& action) {
  const std::string resource = "arn:aws:s3:::" + name_ + (action == "s3:ListBucket" ? "" : "/*");
  nlohmann::json policy = {
      {"Version", "2012-10-17"},
      {"Statement",
       {{{"Effect", "Deny"}, {"Principal", "*"}, {"Action", action}, {"Resource", resource}}}}};
  aws::HttpResponse r = Send("PUT", "?policy=", policy.dump());
  EXPECT_TRUE(r.status == 200 || r.status == 204) << r.status << " " << r.body;
}

}  // namespace deltacommit::testing
