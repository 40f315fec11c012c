// Fuzz target: what the AWS credentials chain reads from outside the
// process (deltacommit/aws/credentials_internal.h): the shared config and
// credentials files (internal::ParseIni), the JSON a credential_process
// prints (internal::ParseCredentialProcessOutput, without running anything)
// and the ISO 8601 times of its Expiration (internal::ParseIso8601, with
// FormatUtc and CheckNotExpired).
//
// Invariants:
// - ParseIni never echoes a line (it may hold a secret): a refusal is
//   kInvalidArgument "<path> line <n>: ...", holds no planted secret, and is
//   the same when every byte that is not syntax ('\n', '\r', '[', ']', '=',
//   '#', ';', space, tab) changes; an accepted file has non-empty, trimmed,
//   blank-normalised section names, and lower-case, trimmed keys.
// - credential_process output: a refusal is kUnauthenticated naming the
//   process and never quotes the SecretAccessKey or SessionToken; accepted
//   credentials have a key id, a secret and the process as source; their
//   expiry, written back by FormatUtc, parses to the same second; they are
//   expired from that instant on, and the message says so without a secret.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/credentials_internal.h"
#include "fuzz_check.h"

namespace {

using namespace deltacommit;
using namespace deltacommit::aws;

// Planted in the seeds, where real files keep secrets.
constexpr std::string_view kSecretKey =
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr std::string_view kSessionToken =
    "FwoGZXIvYXdzEFuzzSessionTokenQ29tbWl0U2VydmljZQ";
constexpr char kPath[] = "/home/fuzz/.aws/credentials";
constexpr char kProfile[] = "fuzz";

bool HasPlantedSecret(std::string_view message) {
  return message.find(kSecretKey) != std::string_view::npos ||
         message.find(kSessionToken) != std::string_view::npos;
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// ---- profile files ---------------------------------------------------------

// `text` with every byte that the profile-file syntax does not look at
// replaced by 'x'.
std::string SyntaxOnly(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (std::string_view("\n\r[]=#; \t").find(c) == std::string_view::npos)
      c = 'x';
  }
  return out;
}

bool Trimmed(std::string_view s) {
  return s.empty() || (!IsBlank(s.front()) && !IsBlank(s.back()));
}

void CheckIni(std::string_view text) {
  StatusOr<internal::IniFile> file = internal::ParseIni(text, kPath);
  const std::string masked = SyntaxOnly(text);
  StatusOr<internal::IniFile> masked_file = internal::ParseIni(masked, kPath);
  FUZZ_CHECK(file.ok() == masked_file.ok());
  if (!file.ok()) {
    const std::string& message = file.status().message();
    FUZZ_CHECK(file.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(message.starts_with(std::string(kPath) + " line "));
    FUZZ_CHECK(!HasPlantedSecret(message));
    FUZZ_CHECK(masked_file.status().message() == message);
    return;
  }
  for (const auto& [name, section] : *file) {
    FUZZ_CHECK(!name.empty() && Trimmed(name));
    FUZZ_CHECK(name.find('\t') == std::string::npos &&
               name.find("  ") == std::string::npos);
    for (const auto& [key, value] : section) {
      FUZZ_CHECK(!key.empty() && Trimmed(key));
      FUZZ_CHECK(key.find('=') == std::string::npos);
      for (char c : key) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
      FUZZ_CHECK(Trimmed(value));
    }
  }
}

// ---- credential_process ----------------------------------------------------

// Floor of `ms` to a whole second.
int64_t FloorSecond(int64_t ms) {
  return ms / 1000 * 1000 - (ms % 1000 < 0 ? 1000 : 0);
}

// FormatUtc writes a four-digit year; within that range its text parses back
// to the same second.
void CheckTime(int64_t ms) {
  const std::string text = internal::FormatUtc(ms);
  if (text.size() != 20 || text.front() < '0' || text.front() > '9') return;
  const std::optional<int64_t> again = internal::ParseIso8601(text);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(*again == FloorSecond(ms));
}

using MessageOf = std::function<std::string(std::string_view output)>;

std::string RefusalOf(std::string_view output) {
  StatusOr<Credentials> c =
      internal::ParseCredentialProcessOutput(output, kProfile);
  return c.ok() ? std::string() : c.status().message();
}

// True when the message for `output` quotes the value of member `name`: the
// output holds `"name":"value"` (compact, no escapes; other spellings are
// not checked), the message contains the value, and it changes when only
// that value changes. Another member with the same text (an Expiration or
// Version the message quotes) is not a leak.
bool Quotes(std::string_view output, std::string_view name,
            const MessageOf& message_of) {
  const std::string message = message_of(output);
  const nlohmann::json json =
      nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains(name)) return false;
  const nlohmann::json& field = json[std::string(name)];
  if (!field.is_string()) return false;
  const std::string secret = field.get<std::string>();
  if (secret.size() < 8 || message.find(secret) == std::string::npos)
    return false;
  const std::string member = "\"" + std::string(name) + "\":\"" + secret + "\"";
  const size_t at = output.find(member);
  if (at == std::string_view::npos) return false;
  std::string changed(output);
  const size_t value_at = at + member.size() - 1 - secret.size();
  for (size_t i = 0; i < secret.size(); ++i) {
    changed[value_at + i] = secret[i] == 'q' ? 'z' : 'q';
  }
  return message_of(changed) != message;
}

void CheckProcessOutput(std::string_view output) {
  const std::string who =
      std::string("credential_process of profile \"") + kProfile + "\"";
  StatusOr<Credentials> c =
      internal::ParseCredentialProcessOutput(output, kProfile);
  if (!c.ok()) {
    FUZZ_CHECK(c.status().code() == StatusCode::kUnauthenticated);
    FUZZ_CHECK(c.status().message().starts_with(who + ": "));
    FUZZ_CHECK(!Quotes(output, "SecretAccessKey", RefusalOf));
    FUZZ_CHECK(!Quotes(output, "SessionToken", RefusalOf));
    return;
  }
  FUZZ_CHECK(!c->access_key_id.empty() && !c->secret_access_key.empty());
  FUZZ_CHECK(c->source == who);
  if (!c->expiration_ms) return;
  CheckTime(*c->expiration_ms);
  FUZZ_CHECK(CheckNotExpired(*c, *c->expiration_ms - 1).ok());
  const Status expired = CheckNotExpired(*c, *c->expiration_ms);
  FUZZ_CHECK(expired.code() == StatusCode::kUnauthenticated);
  FUZZ_CHECK(!HasPlantedSecret(expired.message()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckIni(text);
  CheckProcessOutput(text);
  // AWS_CREDENTIAL_EXPIRATION and a process's Expiration.
  if (std::optional<int64_t> ms = internal::ParseIso8601(text.substr(0, 64)))
    CheckTime(*ms);
  return 0;
}
