// S3ObjectStore against a stand-in S3 on 127.0.0.1 (plain sockets, through
// the project's libcurl client): a store whose error messages quote the
// credentials it was sent must not get them into our Status messages, which
// the commit service puts in its replies and logs.
#include "deltacommit/s3/s3_object_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace deltacommit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kKeyId[] = "ASIAECHOEDKEYID12345";
constexpr char kSecret[] = "echoedSECRET/echoed+SECRETechoedSECRET00";
constexpr char kToken[] =
    "IQoJb3JpZ2luX2VjEEchoedSessionToken/echoed+session+token/value==";

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The value of header `name` (lower-case) in a request head, or "".
std::string HeaderIn(const std::string& head, const std::string& name) {
  const std::string lower = Lower(head);
  const size_t at = lower.find("\r\n" + name + ":");
  if (at == std::string::npos) return "";
  const size_t begin = head.find_first_not_of(' ', at + 3 + name.size());
  return head.substr(begin, head.find("\r\n", begin) - begin);
}

// A stand-in S3 that answers every request 403 AccessDenied, its <Message>
// quoting the request's X-Amz-Security-Token, the access key id from its
// Authorization header and the secret (which a store knows). One
// connection at a time, closed after each answer.
class EchoingS3Stub {
 public:
  explicit EchoingS3Stub(std::string secret) : secret_(std::move(secret)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(address);
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
        listen(listener_, 8) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }

  ~EchoingS3Stub() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    if (listener_ >= 0) close(listener_);
  }

  uint16_t port() const { return port_; }
  int requests() const { return requests_.load(); }
  // What the last request carried, as the stub read it.
  std::string last_token() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_token_;
  }
  std::string last_key_id() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_key_id_;
  }

 private:
  void Serve() {
    while (!stop_.load()) {
      pollfd waiting{listener_, POLLIN, 0};
      if (poll(&waiting, 1, 50) <= 0) continue;
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      Answer(fd);
      close(fd);
    }
  }

  // Reads until `done` holds for what was read, EOF, or 2 s of silence.
  static bool ReadUntil(int fd, std::string& in, const std::function<bool()>& done) {
    while (!done()) {
      pollfd waiting{fd, POLLIN, 0};
      if (poll(&waiting, 1, 2000) <= 0) return false;
      char chunk[4096];
      const ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) return false;
      in.append(chunk, static_cast<size_t>(n));
    }
    return true;
  }

  void Answer(int fd) {
    std::string in;
    if (!ReadUntil(fd, in, [&] { return in.find("\r\n\r\n") != std::string::npos; })) return;
    const std::string head = in.substr(0, in.find("\r\n\r\n") + 2);
    const std::string length = HeaderIn(head, "content-length");
    const size_t body_end = head.size() + 2 + (length.empty() ? 0 : std::stoul(length));
    ReadUntil(fd, in, [&] { return in.size() >= body_end; });  // a PUT's body

    const std::string token = HeaderIn(head, "x-amz-security-token");
    const std::string authorization = HeaderIn(head, "authorization");
    const size_t credential = authorization.find("Credential=");
    const std::string key_id =
        credential == std::string::npos
            ? ""
            : authorization.substr(credential + 11,
                                   authorization.find('/', credential) - credential - 11);
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_token_ = token;
      last_key_id_ = key_id;
    }
    requests_.fetch_add(1);
    const std::string body =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>AccessDenied</Code>"
        "<Message>Access Denied for access key " + key_id + " with session token " + token +
        " (secret " + secret_ + ")</Message><RequestId>" + token + "</RequestId></Error>";
    const std::string reply = "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\n"
                              "Content-Length: " + std::to_string(body.size()) +
                              "\r\nConnection: close\r\n\r\n" + body;
    send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
    // Let the client read the answer before the close, not a reset.
    shutdown(fd, SHUT_WR);
    ReadUntil(fd, in, [] { return false; });
  }

  const std::string secret_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  std::string last_token_;   // guarded by mu_
  std::string last_key_id_;  // guarded by mu_
  std::thread thread_;
};

class S3ObjectStoreEchoTest : public ::testing::Test {
 protected:
  S3ObjectStoreEchoTest()
      : credentials_(aws::StaticCredentialsProvider(
            {kKeyId, kSecret, kToken, std::nullopt, "request"})) {}

  S3ObjectStore Store() {
    S3StoreConfig config;
    config.bucket = "stub-bucket";
    config.key_prefix = "tables/t";
    config.service.region = "us-east-1";
    config.service.endpoint_url = "http://127.0.0.1:" + std::to_string(stub_.port());
    config.service.allow_http = true;
    config.service.path_style = true;
    config.retry.max_attempts = 1;
    return S3ObjectStore(config, *http_, *credentials_);
  }

  // The message says what was refused and whose key, but quotes none of the
  // credentials' values.
  void ExpectRedacted(const Status& status) {
    EXPECT_EQ(status.code(), StatusCode::kPermissionDenied) << status.ToString();
    const std::string& message = status.message();
    EXPECT_THAT(message, HasSubstr("AccessDenied (HTTP 403)"));
    EXPECT_THAT(message, HasSubstr("server says: Access Denied for access key ASIA\u20262345 "
                                   "with session token [redacted session token] (secret "
                                   "[redacted secret access key])"));
    EXPECT_THAT(message, HasSubstr("credentials: key ASIA\u20262345 from request"));
    for (const char* value : {kKeyId, kSecret, kToken}) {
      EXPECT_THAT(message, Not(HasSubstr(value))) << message;
    }
    EXPECT_THAT(message, HasSubstr("request id [redacted session token]"));
  }

  EchoingS3Stub stub_{kSecret};
  std::unique_ptr<aws::HttpClient> http_ = aws::NewCurlHttpClient();
  std::unique_ptr<aws::CredentialsProvider> credentials_;
};

TEST_F(S3ObjectStoreEchoTest, CredentialsQuotedInTheErrorMessageAreRedacted) {
  ASSERT_NE(stub_.port(), 0);
  S3ObjectStore store = Store();
  ExpectRedacted(store.Get("_delta_log/00000000000000000000.json").status());
  // The stub really was sent (and so echoed) the values.
  EXPECT_EQ(stub_.last_token(), kToken);
  EXPECT_EQ(stub_.last_key_id(), kKeyId);
  ExpectRedacted(store.PutIfAbsent("_delta_log/00000000000000000001.json", "{}\n"));
  ExpectRedacted(store.List("_delta_log/").status());
  EXPECT_EQ(stub_.requests(), 3);
}

}  // namespace
}  // namespace deltacommit
