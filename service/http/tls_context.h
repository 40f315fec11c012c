// The server's TLS context, from a PEM certificate (chain) file and a PEM
// private key file. TLS 1.2 and later only.
//
// Thread-safety: pure function; the context is then shared read-only by all
// connections.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>

#include "deltacommit/status.h"
#include "service/http/http_server_options.h"

namespace deltacommit::http {

// kInvalidArgument naming the file: unreadable, no PEM certificate in the
// certificate file, no (unencrypted) PEM private key in the key file, or a
// key that does not match the certificate.
StatusOr<std::unique_ptr<boost::asio::ssl::context>> NewTlsContext(
    const TlsFiles& files);

}  // namespace deltacommit::http
