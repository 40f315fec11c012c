// BucketCredentialVendor follows each bucket's vend_credentials: AssumeRole
// goes to its vendor (a fake here; sts_credential_vendor_test and the RGW
// tests cover the real one), pass_through hands the writer's own back.
#include "service/vend/bucket_credential_vendor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/testing/fake_clock.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConfig[] = R"(
[s3]
endpoint = "http://127.0.0.1:7480"
allow_http = true
vend_credentials = "pass_through"
[[s3.bucket]]
name = "sts"
vend_credentials = "assume_role"
vend_role_arn = "arn:aws:iam:::role/vend"
vend_sts_endpoint = "http://127.0.0.1:7480"
[[s3.bucket]]
name = "plain"
vend_credentials = "none"
)";

// The AssumeRole vendor's stand-in: records what it was asked.
class RecordingVendor : public CredentialVendor {
 public:
  StatusOr<VendedCredentials> Vend(const VendRequest& request) override {
    ++calls;
    aws::Credentials session;
    session.access_key_id = "ASIAVENDED";
    return VendedCredentials{session, request.location.uri};
  }
  int calls = 0;
};

class BucketCredentialVendorTest : public ::testing::Test {
 protected:
  BucketCredentialVendorTest() {
    StatusOr<ServiceConfig> config = ParseServiceConfig(kConfig, "test.toml");
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    s3_ = config->s3;
  }

  service_wire::SentCredentials Sent(int64_t lifetime_ms) {
    return {"ASIAWRITER0000000001", "writerSECRETwriterSECRET", "writer-token",
            aws::internal::FormatUtc(clock_.NowMillis() + lifetime_ms)};
  }

  StatusOr<VendedCredentials> Vend(const std::string& uri, service_wire::SentCredentials sent,
                                   VendOperation op = VendOperation::kReadWrite) {
    StatusOr<TableUri> location = NormalizeTableUri(uri);
    EXPECT_TRUE(location.ok());
    return vendor_.Vend({*location, op, "etl", std::move(sent)});
  }

  S3Config s3_;
  FakeClock clock_;
  RecordingVendor assume_role_;
  BucketCredentialVendor vendor_{s3_, assume_role_, clock_};
};

TEST_F(BucketCredentialVendorTest, APassThroughBucketHandsBackTheWritersOwnUnchanged) {
  StatusOr<VendedCredentials> own = Vend("s3://lake/main/t", Sent(3'600'000));
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_EQ(own->credentials.access_key_id, "ASIAWRITER0000000001");
  EXPECT_EQ(own->credentials.secret_access_key, "writerSECRETwriterSECRET");
  EXPECT_EQ(own->credentials.session_token, "writer-token");
  EXPECT_EQ(own->credentials.expiration_ms, clock_.NowMillis() + 3'600'000);
  EXPECT_THAT(own->credentials.source, HasSubstr("passed through"));
  EXPECT_EQ(own->url, "s3://lake/main/t");
  EXPECT_EQ(assume_role_.calls, 0);
}

TEST_F(BucketCredentialVendorTest, APassThroughBucketWithoutCredentialsSaysWhatToSend) {
  StatusOr<VendedCredentials> none = Vend("s3://lake/main/t", {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(),
              AllOf(HasSubstr("READ_WRITE credentials for s3://lake/main/t"),
                    HasSubstr("vend_credentials = \"pass_through\""),
                    HasSubstr("X-Deltacommit-Session-Token"),
                    HasSubstr("--catalog-send-credentials")));
  StatusOr<VendedCredentials> expired = Vend("s3://lake/main/t", Sent(-1));
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.status().code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(expired.status().message(),
              AllOf(HasSubstr("passes each writer's own"), HasSubstr("expired at"),
                    Not(HasSubstr("writerSECRET"))));
  service_wire::SentCredentials partial = Sent(3'600'000);
  partial.session_token.clear();
  EXPECT_EQ(Vend("s3://lake/main/t", partial).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(BucketCredentialVendorTest, AnAssumeRoleBucketNeverUsesWhatTheWriterSent) {
  StatusOr<VendedCredentials> vended = Vend("s3://sts/main/t", Sent(3'600'000));
  ASSERT_TRUE(vended.ok()) << vended.status().ToString();
  EXPECT_EQ(vended->credentials.access_key_id, "ASIAVENDED");
  EXPECT_EQ(assume_role_.calls, 1);
}

TEST_F(BucketCredentialVendorTest, ABucketWithoutVendingNamesBothWays) {
  StatusOr<VendedCredentials> none = Vend("s3://plain/t", Sent(3'600'000));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(),
              AllOf(HasSubstr("vends no credentials for bucket plain"),
                    HasSubstr("\"assume_role\""), HasSubstr("\"pass_through\"")));
  EXPECT_EQ(assume_role_.calls, 0);
}

TEST_F(BucketCredentialVendorTest, LocationsAreCheckedBeforeAnyBucketRule) {
  TableUri root = *NormalizeTableUri("s3://lake/t");
  root.key_prefix.clear();
  EXPECT_THAT(vendor_.Vend({root, VendOperation::kRead, "etl", Sent(3'600'000)}).status().message(),
              HasSubstr("never vended"));
  EXPECT_THAT(Vend("file:///tmp/t", Sent(3'600'000)).status().message(),
              HasSubstr("only s3:// locations"));
}

}  // namespace
}  // namespace deltacommit::service
