#include "service/http/tls_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace deltacommit::http {
namespace {

namespace ssl = boost::asio::ssl;

StatusOr<std::string> ReadPemFile(const std::string& path,
                                  std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidArgumentError("cannot read TLS " + std::string(what) +
                                " file '" + path +
                                "': " + std::strerror(errno));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// The reason of OpenSSL's most recent error, and the queue cleared.
std::string OpenSslReason() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no reason given";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "error " + std::to_string(code);
}

// A passphrase callback that supplies none: an encrypted key then fails to
// load instead of OpenSSL prompting on the terminal.
int NoPassphrase(char*, int, int, void*) { return 0; }

struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

StatusOr<std::unique_ptr<EVP_PKEY, KeyDeleter>> ParsePrivateKey(
    const std::string& pem, const std::string& path) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return InternalError("out of memory reading " + path);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, &NoPassphrase, nullptr);
  BIO_free(bio);
  if (key == nullptr) {
    return InvalidArgumentError(
        "TLS private key file '" + path +
        "' holds no usable PEM private key (encrypted keys are not "
        "supported): " +
        OpenSslReason());
  }
  return std::unique_ptr<EVP_PKEY, KeyDeleter>(key);
}

}  // namespace

StatusOr<std::unique_ptr<ssl::context>> NewTlsContext(const TlsFiles& files) {
  DC_ASSIGN_OR_RETURN(std::string certificate_pem,
                      ReadPemFile(files.certificate_file, "certificate"));
  DC_ASSIGN_OR_RETURN(std::string key_pem,
                      ReadPemFile(files.private_key_file, "private key"));
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds |
                       ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                       ssl::context::single_dh_use);
  boost::system::error_code ec;
  context->use_certificate_chain(
      boost::asio::buffer(certificate_pem.data(), certificate_pem.size()), ec);
  if (ec) {
    ERR_clear_error();
    return InvalidArgumentError(
        "TLS certificate file '" + files.certificate_file +
        "' holds no usable PEM certificate: " + ec.message());
  }
  DC_ASSIGN_OR_RETURN(auto key,
                      ParsePrivateKey(key_pem, files.private_key_file));
  SSL_CTX* native = context->native_handle();
  if (X509_check_private_key(SSL_CTX_get0_certificate(native), key.get()) !=
      1) {
    ERR_clear_error();
    return InvalidArgumentError(
        "TLS private key file '" + files.private_key_file +
        "' does not match the certificate in '" + files.certificate_file + "'");
  }
  if (SSL_CTX_use_PrivateKey(native, key.get()) != 1) {
    return InvalidArgumentError("TLS private key file '" +
                                files.private_key_file +
                                "' cannot be used: " + OpenSslReason());
  }
  return context;
}

}  // namespace deltacommit::http
