#include "deltacommit/service_wire/sent_credentials.h"

#include <utility>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/core/message_quote.h"

namespace deltacommit::service_wire {
namespace {

const std::string& AllFour() {
  static const std::string names =
      std::string(kSentAccessKeyIdHeader) + ", " + std::string(kSentSecretAccessKeyHeader) + ", " +
      std::string(kSentSessionTokenHeader) + " and " + std::string(kSentExpirationHeader);
  return names;
}

}  // namespace

StatusOr<aws::HttpHeaders> SentCredentialHeaders(const aws::Credentials& credentials) {
  if (credentials.session_token.empty() || !credentials.expiration_ms) {
    return InvalidArgumentError(
        "the credentials from " + credentials.source +
        " are not temporary (no session token or no expiration): only temporary credentials are "
        "sent to a catalog, never a long-term key");
  }
  return aws::HttpHeaders{
      {std::string(kSentAccessKeyIdHeader), credentials.access_key_id},
      {std::string(kSentSecretAccessKeyHeader), credentials.secret_access_key},
      {std::string(kSentSessionTokenHeader), credentials.session_token},
      {std::string(kSentExpirationHeader), aws::internal::FormatUtc(*credentials.expiration_ms)}};
}

SentCredentials ReadSentCredentials(
    const std::function<std::optional<std::string_view>(std::string_view)>& header) {
  auto read = [&](std::string_view name) { return std::string(header(name).value_or("")); };
  return {read(kSentAccessKeyIdHeader), read(kSentSecretAccessKeyHeader),
          read(kSentSessionTokenHeader), read(kSentExpirationHeader)};
}

StatusOr<aws::Credentials> ParseSentCredentials(const SentCredentials& sent, int64_t now_ms,
                                                std::string source) {
  if (!sent.any()) {
    return FailedPreconditionError("no credentials were sent with the request (headers " +
                                   AllFour() + ")");
  }
  const std::pair<std::string_view, const std::string*> fields[] = {
      {kSentAccessKeyIdHeader, &sent.access_key_id},
      {kSentSecretAccessKeyHeader, &sent.secret_access_key},
      {kSentSessionTokenHeader, &sent.session_token},
      {kSentExpirationHeader, &sent.expiration}};
  for (const auto& [name, value] : fields) {
    if (value->empty()) {
      return InvalidArgumentError("header " + std::string(name) +
                                  " is missing or empty: temporary credentials are sent as " +
                                  AllFour() + ", all four");
    }
  }
  aws::Credentials credentials;
  credentials.access_key_id = sent.access_key_id;
  credentials.secret_access_key = sent.secret_access_key;
  credentials.session_token = sent.session_token;
  credentials.source = std::move(source);
  credentials.expiration_ms = aws::internal::ParseIso8601(sent.expiration);
  if (!credentials.expiration_ms) {
    return InvalidArgumentError("header " + std::string(kSentExpirationHeader) + " " +
                                QuoteForMessage(sent.expiration, 40) +
                                " is not an RFC 3339 time such as 2026-12-03T10:00:00Z");
  }
  if (*credentials.expiration_ms <= now_ms) {
    return UnauthenticatedError("the temporary credentials sent with the request (key " +
                                credentials.RedactedKeyId() + ") expired at " +
                                aws::internal::FormatUtc(*credentials.expiration_ms) +
                                ": send fresh ones");
  }
  return credentials;
}

}  // namespace deltacommit::service_wire
