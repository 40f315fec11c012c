// Fuzz target: the body of the commit service's `POST /v1/commits`
// (cli::ParseCommitBody, cli/serve_commit_body.cc), then what the handler
// checks next: the table URI (service::NormalizeTableUri), a staged
// commit's key (service::ValidateStagedCommitKey) and the actions
// (ActionParser). Invariants: no message quotes the request's secret key or
// session token; an accepted body is either an append (no version) or a
// versioned commit, with exactly one of actions and staged_file; a
// normalised table URI normalises to itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "deltacommit/action_json.h"
#include "fuzz_check.h"
#include "serve_commit_body.h"
#include "service/config/table_uri.h"

namespace {

using namespace deltacommit;

// credentials.<name> of the body when it is a string, else "".
std::string CredentialField(std::string_view body, const char* name) {
  const nlohmann::json json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return "";
  const auto credentials = json.find("credentials");
  if (credentials == json.end() || !credentials->is_object()) return "";
  const auto field = credentials->find(name);
  return field != credentials->end() && field->is_string() ? field->get<std::string>() : "";
}

// A secret long enough that finding it in a message is no coincidence.
bool Leaks(const std::string& message, const std::string& secret) {
  return secret.size() >= 8 && message.find(secret) != std::string::npos;
}

void CheckNoSecretIn(std::string_view body, const std::string& message) {
  FUZZ_CHECK(!Leaks(message, CredentialField(body, "secret_access_key")));
  FUZZ_CHECK(!Leaks(message, CredentialField(body, "session_token")));
}

void CheckTable(const std::string& table) {
  StatusOr<service::TableUri> uri = service::NormalizeTableUri(table);
  if (!uri.ok()) return;
  FUZZ_CHECK(uri->uri.starts_with("s3://" + uri->bucket));
  StatusOr<service::TableUri> again = service::NormalizeTableUri(uri->uri);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *uri);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<cli::CommitBody> body = cli::ParseCommitBody(text);
  if (!body.ok()) {
    FUZZ_CHECK(body.status().code() == StatusCode::kInvalidArgument);
    CheckNoSecretIn(text, body.status().message());
    return 0;
  }
  FUZZ_CHECK(body->actions.has_value() != body->staged_file.has_value());
  FUZZ_CHECK(body->append ? body->version == -1 && body->read_version >= 0
                          : body->version >= 0);
  if (body->credentials_problem) CheckNoSecretIn(text, *body->credentials_problem);
  CheckTable(body->table);
  if (body->staged_file) {
    const Status key = service::ValidateStagedCommitKey(*body->staged_file, body->version);
    if (!key.ok()) CheckNoSecretIn(text, key.message());
  }
  if (body->actions) {
    ActionParser parser;
    (void)parser.ParseCommit(*body->actions);
  }
  return 0;
}
