#include "service/http/redaction.h"

#include <array>
#include <cctype>
#include <string>

namespace deltacommit::http {

bool IsSecretFieldName(std::string_view name) {
  // Lower-cased and without separators, so that "Session-Token",
  // "session_token" and "sessionToken" look alike.
  std::string folded;
  for (char c : name) {
    if (c == '_' || c == '-') continue;
    folded.push_back(
        static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  static constexpr std::array<std::string_view, 10> kSecretWords = {
      "secret",     "token",      "password", "passwd",    "authorization",
      "credential", "privatekey", "apikey",   "signature", "cookie"};
  for (std::string_view word : kSecretWords) {
    if (folded.find(word) != std::string::npos) return true;
  }
  return false;
}

nlohmann::json Redact(const nlohmann::json& fields) {
  if (fields.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : fields) out.push_back(Redact(item));
    return out;
  }
  if (!fields.is_object()) return fields;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : fields.items()) {
    out[key] =
        IsSecretFieldName(key) ? nlohmann::json(kRedacted) : Redact(value);
  }
  return out;
}

}  // namespace deltacommit::http
