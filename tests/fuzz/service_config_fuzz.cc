// Fuzz target: the commit service's TOML configuration file
// (service::ParseServiceConfig, service/config/service_config.cc, over
// toml++). Invariants: an accepted file gives settings in their documented
// ranges (a listen port, positive thread and queue counts, tokens with a
// 64-digit hash and a table prefix, normalised); a refused one names where.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "service/config/service_config.h"
#include "service/config/table_uri.h"

namespace {

using namespace deltacommit;

void CheckTokens(const service::ServiceConfig& config) {
  for (const service::TokenConfig& token : config.tokens) {
    FUZZ_CHECK(!token.name.empty());
    FUZZ_CHECK(token.sha256_hex.size() == 64);
    FUZZ_CHECK(!token.tables.empty());
    for (const std::string& prefix : token.tables) {
      StatusOr<service::TableUri> uri = service::NormalizeTableUri(prefix);
      FUZZ_CHECK(uri.ok() && uri->uri == prefix);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<service::ServiceConfig> config =
      service::ParseServiceConfig(text, "fuzz.toml", "/etc/deltacommit");
  if (!config.ok()) {
    FUZZ_CHECK(config.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(config.status().message().starts_with("fuzz.toml"));
    return 0;
  }
  const service::ServerConfig& server = config->server;
  FUZZ_CHECK(!server.listen_host.empty());
  FUZZ_CHECK(server.io_threads > 0 && server.workers > 0);
  FUZZ_CHECK(server.max_queued_requests > 0 && server.max_connections > 0);
  FUZZ_CHECK(server.max_body_bytes > 0);
  FUZZ_CHECK(config->tls.certificate.empty() == config->tls.private_key.empty());
  FUZZ_CHECK(config->publish.threads > 0);
  FUZZ_CHECK(config->appends.max_batch_appends > 0);
  CheckTokens(*config);
  return 0;
}
