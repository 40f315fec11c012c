#include "service/http/url_codec.h"

#include <string>

namespace deltacommit::http {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Error messages quote client input, but never an unbounded amount of it.
std::string Excerpt(std::string_view s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return std::string(s);
  return std::string(s.substr(0, kMax)) + "...";
}

}  // namespace

StatusOr<std::string> PercentDecode(std::string_view encoded,
                                    bool plus_is_space) {
  std::string out;
  out.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    char c = encoded[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (c != '%') {
      out.push_back(c);
    } else {
      int high = i + 1 < encoded.size() ? HexValue(encoded[i + 1]) : -1;
      int low = i + 2 < encoded.size() ? HexValue(encoded[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return InvalidArgumentError("malformed percent-encoding at offset " +
                                    std::to_string(i) + " of '" +
                                    Excerpt(encoded) + "'");
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    }
  }
  return out;
}

StatusOr<HeaderList> ParseQuery(std::string_view query) {
  HeaderList params;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view()
                                          : query.substr(amp + 1);
    if (piece.empty()) continue;
    size_t eq = piece.find('=');
    std::string_view name = piece.substr(0, eq);
    std::string_view value = eq == std::string_view::npos
                                 ? std::string_view()
                                 : piece.substr(eq + 1);
    DC_ASSIGN_OR_RETURN(std::string decoded_name, PercentDecode(name, true));
    DC_ASSIGN_OR_RETURN(std::string decoded_value, PercentDecode(value, true));
    params.emplace_back(std::move(decoded_name), std::move(decoded_value));
  }
  return params;
}

SplitTarget SplitRequestTarget(std::string_view target) {
  size_t question = target.find('?');
  if (question == std::string_view::npos) return {target, {}};
  return {target.substr(0, question), target.substr(question + 1)};
}

}  // namespace deltacommit::http
