// Redaction of secrets from structured log fields: a field whose name looks
// like it holds a secret (secret, token, password, authorization,
// credentials, ...) never has its value written, at any depth of nesting.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace deltacommit::http {

// What a redacted value is replaced with.
inline constexpr std::string_view kRedacted = "[redacted]";

// True for names such as "secret_access_key", "session_token", "Password",
// "authorization", "credentials", "x-amz-security-token", "private_key",
// "api-key", "cookie": compared case-insensitively, ignoring '_' and '-'.
bool IsSecretFieldName(std::string_view name);

// A copy of `fields` in which the value of every secret-named key, in every
// nested object and array, is kRedacted.
nlohmann::json Redact(const nlohmann::json& fields);

}  // namespace deltacommit::http
