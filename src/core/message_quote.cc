#include "deltacommit/core/message_quote.h"

namespace deltacommit {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

void AppendHexEscape(unsigned char c, std::string& out) {
  constexpr std::string_view kHex = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

}  // namespace

std::string QuoteForMessage(std::string_view text, size_t max_length) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < max_length; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (IsControl(c)) {
      AppendHexEscape(c, out);
    } else {
      out += static_cast<char>(c);
    }
  }
  out += text.size() > max_length ? "\"..." : "\"";
  return out;
}

std::string Excerpt(std::string_view text, size_t max_length) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_length; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (IsControl(c)) {
      AppendHexEscape(c, out);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > max_length) out += "...";
  return out;
}

}  // namespace deltacommit
