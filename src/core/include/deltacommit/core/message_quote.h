// Text from a peer quoted in an error message: bounded, with control
// characters escaped, so that what a client or a service sent can neither
// forge log lines nor flood a message. Two spellings, because the messages
// of each side are documented as they are: the service quotes client input
// (QuoteForMessage), the client excerpts the service's answers (Excerpt).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace deltacommit {

// `text` in double quotes: at most `max_length` bytes (then "..." after the
// closing quote), control characters as \xNN, quotes and backslashes
// escaped.
std::string QuoteForMessage(std::string_view text, size_t max_length = 200);

// At most `max_length` bytes of `text`, unquoted, control characters as
// \xNN, "..." when cut.
std::string Excerpt(std::string_view text, size_t max_length = 200);

}  // namespace deltacommit
