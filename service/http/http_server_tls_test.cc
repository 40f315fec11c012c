// HttpServer over TLS with a self-signed certificate made by the openssl
// CLI: a verified round trip with libcurl, keep-alive over TLS, and clear
// errors for unreadable, non-PEM and mismatched certificate/key files.
#include <curl/curl.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "contract/temp_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/http/http_server.h"
#include "service/http/http_test_util.h"

namespace deltacommit::http {
namespace {

using ::testing::HasSubstr;
using testing::StartTestServer;

void RunOpenSsl(const std::string& arguments) {
  std::string command = "openssl " + arguments + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

// cert.pem + key.pem for 127.0.0.1, and other_key.pem (another key).
class TlsFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunOpenSsl(
        "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
        "-nodes -days 1 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " +
        Path("key.pem") + " -out " + Path("cert.pem"));
    RunOpenSsl("genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out " +
               Path("other_key.pem"));
  }
  std::string Path(const std::string& name) const {
    return dir_.path() + "/" + name;
  }

  Status StartWith(const std::string& certificate, const std::string& key) {
    HttpServerOptions options;
    options.tls = TlsFiles{certificate, key};
    HttpServer server(options, Router(), nullptr, nullptr);
    return server.Start();
  }

  TempDir dir_;
};

size_t Collect(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

struct CurlResult {
  CURLcode code = CURLE_OK;
  long status = 0;
  long connects = 0;  // new connections this transfer opened
  std::string body;
};

// One GET on `handle` (kept between calls, so its connection is reused).
CurlResult Get(CURL* handle, const std::string& url,
               const std::string& ca_file) {
  CurlResult result;
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_CAINFO, ca_file.c_str());
  curl_easy_setopt(handle, CURLOPT_PROXY, "");
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &Collect);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &result.body);
  result.code = curl_easy_perform(handle);
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &result.status);
  curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &result.connects);
  return result;
}

TEST_F(TlsFilesTest, VerifiedRoundTripAndKeepAliveOverTls) {
  Router router;
  ASSERT_TRUE(router
                  .Add("GET", "/ping",
                       [](const Request& request) {
                         return Response::Json(
                             200, "{\"peer\":\"" + request.peer + "\"}");
                       })
                  .ok());
  HttpServerOptions options;
  options.tls = TlsFiles{Path("cert.pem"), Path("key.pem")};
  auto server = StartTestServer(options, std::move(router));
  ASSERT_NE(server, nullptr);
  std::string url =
      "https://127.0.0.1:" + std::to_string(server->port()) + "/ping";

  CURL* handle = curl_easy_init();
  ASSERT_NE(handle, nullptr);
  CurlResult first = Get(handle, url, Path("cert.pem"));
  CurlResult second = Get(handle, url, Path("cert.pem"));
  curl_easy_cleanup(handle);
  ASSERT_EQ(first.code, CURLE_OK) << curl_easy_strerror(first.code);
  EXPECT_EQ(first.status, 200);
  EXPECT_THAT(first.body, HasSubstr("127.0.0.1:"));
  ASSERT_EQ(second.code, CURLE_OK) << curl_easy_strerror(second.code);
  EXPECT_EQ(second.connects, 0);  // the TLS connection was reused
  EXPECT_EQ(first.body, second.body);

  // Plain HTTP on the TLS port fails its handshake; the server carries on.
  testing::RawConnection plain(server->port());
  ASSERT_TRUE(plain.Send(testing::RawRequest("GET", "/ping")));
  EXPECT_FALSE(plain.ReadResponse(std::chrono::milliseconds(2000)).has_value());
  CURL* again = curl_easy_init();
  CurlResult after = Get(again, url, Path("cert.pem"));
  curl_easy_cleanup(again);
  EXPECT_EQ(after.code, CURLE_OK) << curl_easy_strerror(after.code);
}

TEST_F(TlsFilesTest, UntrustedCertificateIsRefusedByTheClient) {
  HttpServerOptions options;
  options.tls = TlsFiles{Path("cert.pem"), Path("key.pem")};
  auto server = StartTestServer(options, Router());
  ASSERT_NE(server, nullptr);
  RunOpenSsl(
      "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
      "-nodes -days 1 -subj /CN=other -keyout " +
      Path("k2.pem") + " -out " + Path("other_ca.pem"));
  CURL* handle = curl_easy_init();
  CurlResult result = Get(
      handle, "https://127.0.0.1:" + std::to_string(server->port()) + "/ping",
      Path("other_ca.pem"));
  curl_easy_cleanup(handle);
  EXPECT_NE(result.code, CURLE_OK);  // the test trusts nothing by accident
}

TEST_F(TlsFilesTest, MissingFileIsNamed) {
  Status missing_cert = StartWith(Path("nope.pem"), Path("key.pem"));
  EXPECT_EQ(missing_cert.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(missing_cert.message(),
              HasSubstr("cannot read TLS certificate file '" +
                        Path("nope.pem") + "': No such file or directory"));
  Status missing_key = StartWith(Path("cert.pem"), Path("gone.pem"));
  EXPECT_THAT(
      missing_key.message(),
      HasSubstr("cannot read TLS private key file '" + Path("gone.pem")));
}

TEST_F(TlsFilesTest, FileWithoutPemIsNamed) {
  std::ofstream(Path("junk.pem")) << "not a certificate\n";
  Status bad_cert = StartWith(Path("junk.pem"), Path("key.pem"));
  EXPECT_EQ(bad_cert.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_cert.message(),
              HasSubstr("TLS certificate file '" + Path("junk.pem") +
                        "' holds no usable PEM certificate"));
  Status bad_key = StartWith(Path("cert.pem"), Path("junk.pem"));
  EXPECT_THAT(bad_key.message(),
              HasSubstr("TLS private key file '" + Path("junk.pem") +
                        "' holds no usable PEM private key"));
}

TEST_F(TlsFilesTest, EncryptedKeyIsRefusedWithoutPrompting) {
  RunOpenSsl("pkey -in " + Path("key.pem") +
             " -aes256 -passout pass:secret -out " + Path("encrypted.pem"));
  Status status = StartWith(Path("cert.pem"), Path("encrypted.pem"));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("encrypted keys are not supported"));
}

TEST_F(TlsFilesTest, MismatchedKeyNamesBothFiles) {
  Status status = StartWith(Path("cert.pem"), Path("other_key.pem"));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("TLS private key file '" + Path("other_key.pem") +
                        "' does not match the certificate in '" +
                        Path("cert.pem") + "'"));
}

}  // namespace
}  // namespace deltacommit::http
