#include "core/retention.h"

#include <array>
#include <cctype>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/core/ascii.h"

namespace deltacommit {
namespace {

constexpr int64_t kMicrosPerMilli = 1000;
constexpr int64_t kMillisPerSecond = 1000;
constexpr int64_t kMillisPerMinute = 60 * kMillisPerSecond;
constexpr int64_t kMillisPerHour = 60 * kMillisPerMinute;
constexpr int64_t kMillisPerDay = 24 * kMillisPerHour;

// Units in microseconds, so "1 microsecond" is exact until the end.
constexpr std::array<std::pair<std::string_view, int64_t>, 7> kUnits = {{
    {"week", 7 * kMillisPerDay * kMicrosPerMilli},
    {"day", kMillisPerDay * kMicrosPerMilli},
    {"hour", kMillisPerHour * kMicrosPerMilli},
    {"minute", kMillisPerMinute * kMicrosPerMilli},
    {"second", kMillisPerSecond * kMicrosPerMilli},
    {"millisecond", kMicrosPerMilli},
    {"microsecond", 1},
}};

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

// The unit's length in microseconds; 0 if not a unit accepted here.
int64_t UnitMicros(std::string_view word) {
  if (word.size() > 1 && (word.back() == 's' || word.back() == 'S')) {
    word.remove_suffix(1);
  }
  for (const auto& [name, micros] : kUnits) {
    if (EqualsIgnoreCase(word, name)) return micros;
  }
  return 0;
}

bool IsMonthOrYear(std::string_view word) {
  return EqualsIgnoreCase(word, "month") || EqualsIgnoreCase(word, "months") ||
         EqualsIgnoreCase(word, "year") || EqualsIgnoreCase(word, "years");
}

// A whole number of digits only, if it fits.
std::optional<int64_t> WholeNumber(std::string_view word) {
  if (word.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : word) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// An amount as Spark's interval strings write it: an optional sign, digits,
// and for seconds a fraction of up to 9 digits (kept to the microsecond).
struct Amount {
  bool negative = false;
  int64_t whole = 0;
  int64_t micros_fraction = 0;  // of one unit, in millionths
  bool has_fraction = false;
};

std::optional<Amount> ParseAmount(std::string_view word) {
  Amount amount;
  if (!word.empty() && (word[0] == '-' || word[0] == '+')) {
    amount.negative = word[0] == '-';
    word.remove_prefix(1);
  }
  const size_t dot = word.find('.');
  std::optional<int64_t> whole = WholeNumber(word.substr(0, dot));
  if (!whole) return std::nullopt;
  amount.whole = *whole;
  if (dot == std::string_view::npos) return amount;
  const std::string_view fraction = word.substr(dot + 1);
  if (fraction.empty() || fraction.size() > 9 || !WholeNumber(fraction)) return std::nullopt;
  amount.has_fraction = true;
  for (size_t i = 0; i < 6; ++i) {
    const int digit = i < fraction.size() ? fraction[i] - '0' : 0;
    amount.micros_fraction = amount.micros_fraction * 10 + digit;
  }
  return amount;
}

Status Bad(std::string_view text, const std::string& why) {
  return InvalidArgumentError("interval \"" + std::string(text) + "\": " + why +
                              " (expected e.g. \"interval 1 week\" or \"2 days 12 hours\")");
}

}  // namespace

StatusOr<int64_t> ParseIntervalMillis(std::string_view text) {
  std::vector<std::string_view> words = Words(text);
  size_t i = 0;
  if (!words.empty() && EqualsIgnoreCase(words[0], "interval")) i = 1;
  if (i == words.size()) return Bad(text, "no amount and unit");
  int64_t total_micros = 0;
  for (; i < words.size(); i += 2) {
    std::optional<Amount> amount = ParseAmount(words[i]);
    if (!amount) return Bad(text, "\"" + std::string(words[i]) + "\" is not a number of units");
    if (i + 1 == words.size()) {
      return Bad(text, "the amount " + std::string(words[i]) + " has no unit");
    }
    const std::string_view unit = words[i + 1];
    if (IsMonthOrYear(unit)) {
      return Bad(text, "months and years are not accepted (their length varies); give days, "
                       "e.g. \"365 days\"");
    }
    const int64_t micros = UnitMicros(unit);
    if (micros == 0) return Bad(text, "unknown unit \"" + std::string(unit) + "\"");
    if (amount->has_fraction && micros != kMillisPerSecond * kMicrosPerMilli) {
      return Bad(text, "\"" + std::string(words[i]) + "\": only seconds may have a fraction");
    }
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 2;
    if (amount->whole > kMax / micros) return Bad(text, "too long");
    const int64_t part = amount->whole * micros + amount->micros_fraction;
    total_micros += amount->negative ? -part : part;
    if (total_micros > kMax || total_micros < -kMax) return Bad(text, "too long");
  }
  // Delta refuses a negative retention; so do we.
  if (total_micros < 0) return Bad(text, "the interval is negative");
  return total_micros / kMicrosPerMilli;
}

StatusOr<int64_t> DeletedFileRetentionMillis(const Metadata& metadata) {
  auto it = metadata.configuration.find(std::string(kDeletedFileRetentionProperty));
  if (it == metadata.configuration.end()) return kDefaultDeletedFileRetentionMillis;
  auto millis = ParseIntervalMillis(it->second);
  if (!millis.ok()) {
    return InvalidArgumentError("table property " + std::string(kDeletedFileRetentionProperty) +
                                ": " + millis.status().message());
  }
  return millis;
}

}  // namespace deltacommit
