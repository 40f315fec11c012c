#include "deltacommit/core/percent_encoding.h"

namespace deltacommit {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Error messages quote the input, but never an unbounded amount of it.
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

}  // namespace deltacommit
