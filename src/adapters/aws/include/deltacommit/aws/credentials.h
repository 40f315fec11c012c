// AWS credentials and the provider chain (AWS's conventions): explicit
// options, environment variables, shared config/credentials files with
// profiles, and credential_process. Temporary credentials carry their expiry.
//
// Secrets never appear in messages, logs or Describe() output.
//
// Thread-safety: providers are safe for concurrent use.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/status.h"

namespace deltacommit::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;              // empty for long-term keys
  std::optional<int64_t> expiration_ms;   // epoch ms, temporary credentials only
  // Where they came from, for messages: "environment (AWS_ACCESS_KEY_ID)",
  // "profile \"dev\" in /root/.aws/credentials", "credential_process of
  // profile \"dev\"", "explicit options", "request".
  std::string source;

  // "AKIA…MPLE" style: first 4 and last 4 characters of the key id only.
  std::string RedactedKeyId() const;
};

class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  // "environment", "profile dev", "chain", ...
  virtual std::string Name() const = 0;
  // kNotFound: this provider has none (the chain tries the next).
  // kUnauthenticated: found but expired (message names the provider and the
  //   expiry time in UTC) or unusable; kInvalidArgument: malformed config.
  virtual StatusOr<Credentials> GetCredentials() = 0;
};

// Where the chain looks; every field defaults to the process environment.
struct CredentialsOptions {
  // Explicit credentials win over everything when access_key_id is set.
  std::optional<Credentials> explicit_credentials;
  std::optional<std::string> profile;  // else AWS_PROFILE, else "default"
  // Environment lookup, replaceable in tests (default: getenv). Must outlive
  // the provider; a credential_process child gets exactly these variables.
  std::map<std::string, std::string>* environment = nullptr;
  std::string home_dir;  // default: $HOME
  // Refresh temporary credentials this long before they expire.
  int64_t refresh_before_expiry_ms = 5 * 60 * 1000;
  // A credential_process run taking longer is killed (with its process
  // group) and fails.
  std::chrono::milliseconds credential_process_timeout{60'000};
};

// The default chain: explicit -> environment -> shared files (profile, incl.
// credential_process). Caches temporary credentials and refreshes them before
// expiry where the source can (credential_process); refuses expired ones
// before any request is sent.
std::unique_ptr<CredentialsProvider> DefaultCredentialsChain(CredentialsOptions options,
                                                             Clock& clock = SystemClock());

// A provider that always returns `credentials` (e.g. from a service request).
std::unique_ptr<CredentialsProvider> StaticCredentialsProvider(Credentials credentials,
                                                               Clock& clock = SystemClock());

// kUnauthenticated when `c` has expired at `now_ms`, naming c.source and the
// expiry time ("2026-11-29T10:00:00Z"); OK otherwise.
Status CheckNotExpired(const Credentials& c, int64_t now_ms);

}  // namespace deltacommit::aws
