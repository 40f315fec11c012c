// Parquet's Variant binary encoding (VariantEncoding.md) decoded into JSON
// text, every offset and length checked against the bytes there are.
#include "deltacommit/parquet/variant_json.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

constexpr int kMaxDepth = 256;
// Values may share bytes (offsets can point at one value many times), so
// a small value could decode to an exponential amount of text: capped.
constexpr size_t kMaxJsonBytes = size_t{64} << 20;

Status Malformed(const std::string& what) {
  return InvalidArgumentError("malformed variant: " + what);
}

// `n` (1 to 4, or 8) little-endian bytes at `at` of `bytes`.
StatusOr<uint64_t> Unsigned(std::string_view bytes, size_t at, size_t n, const char* what) {
  if (at > bytes.size() || bytes.size() - at < n) {
    return Malformed(std::string(what) + " runs past the end");
  }
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

// The metadata's string dictionary.
class Dictionary {
 public:
  static StatusOr<Dictionary> Parse(std::string_view metadata) {
    if (metadata.empty()) return Malformed("empty metadata");
    const auto header = static_cast<unsigned char>(metadata[0]);
    if ((header & 0x0f) != 1) {
      return Malformed("metadata version " + std::to_string(header & 0x0f) + ", not 1");
    }
    const size_t offset_size = ((header >> 6) & 0x3) + 1;
    DC_ASSIGN_OR_RETURN(uint64_t count, Unsigned(metadata, 1, offset_size, "dictionary size"));
    const size_t offsets_at = 1 + offset_size;
    if (count > (metadata.size() - offsets_at) / offset_size) {
      return Malformed("dictionary of " + std::to_string(count) + " strings in " +
                       std::to_string(metadata.size()) + " bytes");
    }
    const size_t bytes_at = offsets_at + (count + 1) * offset_size;
    if (bytes_at > metadata.size()) return Malformed("dictionary offsets run past the end");
    Dictionary out;
    uint64_t previous = 0;
    for (uint64_t i = 0; i <= count; ++i) {
      DC_ASSIGN_OR_RETURN(uint64_t offset, Unsigned(metadata, offsets_at + i * offset_size,
                                                    offset_size, "dictionary offset"));
      if (offset < previous || offset > metadata.size() - bytes_at) {
        return Malformed("dictionary offset " + std::to_string(offset) + " out of order or bounds");
      }
      if (i > 0) out.strings_.push_back(metadata.substr(bytes_at + previous, offset - previous));
      previous = offset;
    }
    return out;
  }
  StatusOr<std::string_view> At(uint64_t id) const {
    if (id >= strings_.size()) {
      return Malformed("field id " + std::to_string(id) + " outside a dictionary of " +
                       std::to_string(strings_.size()));
    }
    return strings_[id];
  }

 private:
  std::vector<std::string_view> strings_;
};

// `text` as a JSON string; kInvalidArgument when it is not UTF-8.
StatusOr<std::string> JsonString(std::string_view text) {
  try {
    return nlohmann::json(std::string(text)).dump();
  } catch (const nlohmann::json::exception&) {
    return Malformed("a string is not UTF-8");
  }
}

std::string Quoted(const std::string& text) { return "\"" + text + "\""; }

// Days since 1970-01-01 as YYYY-MM-DD (the proleptic Gregorian calendar).
std::string Date(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char out[80];
  std::snprintf(out, sizeof out, "%04lld-%02lld-%02lld", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d));
  return out;
}

// A time of day and its fraction: `units` since midnight, `digits` (6 or
// 9) of them per second.
std::string TimeOfDay(int64_t units, int digits) {
  const int64_t per_second = digits == 6 ? 1'000'000 : 1'000'000'000;
  const int64_t seconds = units / per_second;
  char out[96];
  std::snprintf(out, sizeof out, "%02lld:%02lld:%02lld.%0*lld",
                static_cast<long long>(seconds / 3600), static_cast<long long>(seconds / 60 % 60),
                static_cast<long long>(seconds % 60), digits,
                static_cast<long long>(units % per_second));
  return out;
}

// `units` (micro- or nanoseconds) since the epoch as "date time[+00:00]".
std::string Timestamp(int64_t units, int digits, bool utc) {
  const int64_t per_day = (digits == 6 ? 1'000'000LL : 1'000'000'000LL) * 86400;
  int64_t days = units / per_day;
  int64_t rest = units % per_day;
  if (rest < 0) {
    rest += per_day;
    --days;
  }
  return Date(days) + " " + TimeOfDay(rest, digits) + (utc ? "+00:00" : "");
}

// An unscaled decimal (as its digits, with a sign) with `scale` digits
// after the point.
std::string DecimalText(bool negative, std::string digits, int scale) {
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
  }
  if (scale > 0) digits.insert(digits.size() - static_cast<size_t>(scale), 1, '.');
  return (negative ? "-" : "") + digits;
}

// The decimal digits of a magnitude of up to 128 bits, as 32-bit limbs,
// least significant first (no 128-bit integer type in ISO C++).
std::string Digits(std::array<uint32_t, 4> limbs) {
  std::string out;
  auto zero = [&] { return limbs[0] == 0 && limbs[1] == 0 && limbs[2] == 0 && limbs[3] == 0; };
  while (!zero()) {
    uint64_t remainder = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      const uint64_t current = (remainder << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(current / 10);
      remainder = current % 10;
    }
    out.insert(out.begin(), static_cast<char>('0' + remainder));
  }
  return out.empty() ? "0" : out;
}

std::string FloatingText(double v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  std::array<char, 64> out{};
  const auto result = std::to_chars(out.data(), out.data() + out.size(), v);
  return std::string(out.data(), result.ptr);
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      n |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

class Decoder {
 public:
  explicit Decoder(const Dictionary& dictionary) : dictionary_(dictionary) {}

  // The JSON of the value that `bytes` starts with (it may hold more).
  StatusOr<std::string> Value(std::string_view bytes, int depth) {
    if (depth > kMaxDepth) return Malformed("nested deeper than " + std::to_string(kMaxDepth));
    if (bytes.empty()) return Malformed("a value has no header byte");
    const auto header = static_cast<unsigned char>(bytes[0]);
    const unsigned basic_type = header & 0x3;
    const unsigned value_header = header >> 2;
    switch (basic_type) {
      case 0:
        return Primitive(bytes, value_header);
      case 1:
        if (bytes.size() - 1 < value_header) return Malformed("a short string runs past the end");
        return JsonString(bytes.substr(1, value_header));
      case 2:
        return Object(bytes, value_header, depth);
      default:
        return Array(bytes, value_header, depth);
    }
  }

 private:
  StatusOr<std::string> Primitive(std::string_view bytes, unsigned type) {
    auto number = [&](size_t n) { return Unsigned(bytes, 1, n, "a number"); };
    auto signed_number = [&](size_t n) -> StatusOr<int64_t> {
      DC_ASSIGN_OR_RETURN(uint64_t v, number(n));
      const int shift = static_cast<int>(64 - 8 * n);
      return static_cast<int64_t>(v << shift) >> shift;  // sign-extended
    };
    switch (type) {
      case 0:
        return std::string("null");
      case 1:
        return std::string("true");
      case 2:
        return std::string("false");
      case 3:
      case 4:
      case 5:
      case 6: {
        DC_ASSIGN_OR_RETURN(int64_t v, signed_number(size_t{1} << (type - 3)));
        return std::to_string(v);
      }
      case 7: {
        DC_ASSIGN_OR_RETURN(uint64_t bits, number(8));
        double v = 0;
        std::memcpy(&v, &bits, sizeof v);
        return FloatingText(v);
      }
      case 8:
      case 9:
      case 10:
        return Decimal(bytes, type == 8 ? 4 : type == 9 ? 8 : 16);
      case 11: {
        DC_ASSIGN_OR_RETURN(int64_t days, signed_number(4));
        return Quoted(Date(days));
      }
      case 12:
      case 13:
      case 18:
      case 19: {
        DC_ASSIGN_OR_RETURN(int64_t units, signed_number(8));
        return Quoted(Timestamp(units, type <= 13 ? 6 : 9, type == 12 || type == 18));
      }
      case 14: {
        DC_ASSIGN_OR_RETURN(uint64_t bits, number(4));
        float v = 0;
        const auto narrow = static_cast<uint32_t>(bits);
        std::memcpy(&v, &narrow, sizeof v);
        return FloatingText(static_cast<double>(v));
      }
      case 15:
      case 16: {
        DC_ASSIGN_OR_RETURN(uint64_t size, number(4));
        if (bytes.size() - 5 < size) return Malformed("a string or binary runs past the end");
        const std::string_view data = bytes.substr(5, size);
        return type == 16 ? JsonString(data) : StatusOr<std::string>(Quoted(Base64(data)));
      }
      case 17: {
        DC_ASSIGN_OR_RETURN(int64_t micros, signed_number(8));
        if (micros < 0 || micros >= 86'400'000'000LL) return Malformed("a time out of range");
        return Quoted(TimeOfDay(micros, 6));
      }
      case 20: {
        if (bytes.size() < 17) return Malformed("a UUID runs past the end");
        return Quoted(UuidText(bytes.substr(1, 16)));
      }
      default:
        return Malformed("unknown primitive type " + std::to_string(type));
    }
  }

  StatusOr<std::string> Decimal(std::string_view bytes, size_t width) {
    DC_ASSIGN_OR_RETURN(uint64_t scale, Unsigned(bytes, 1, 1, "a decimal's scale"));
    if (scale > 38) return Malformed("decimal scale " + std::to_string(scale));
    if (bytes.size() < 2 + width) return Malformed("a decimal runs past the end");
    // The unscaled value's bytes, sign-extended to 16, as 32-bit limbs.
    const bool negative = (static_cast<unsigned char>(bytes[1 + width]) & 0x80) != 0;
    std::array<uint32_t, 4> limbs{};
    for (size_t i = 0; i < 16; ++i) {
      const uint32_t byte =
          i < width ? static_cast<unsigned char>(bytes[2 + i]) : (negative ? 0xffU : 0U);
      limbs[i / 4] |= byte << (8 * (i % 4));
    }
    if (negative) {  // the magnitude: two's complement
      uint64_t carry = 1;
      for (uint32_t& limb : limbs) {
        const uint64_t sum = uint64_t{static_cast<uint32_t>(~limb)} + carry;
        limb = static_cast<uint32_t>(sum);
        carry = sum >> 32;
      }
    }
    return DecimalText(negative, Digits(limbs), static_cast<int>(scale));
  }

  // The element count, then (objects) the field ids, then the offsets.
  struct Layout {
    uint64_t count = 0;
    size_t ids_at = 0;
    size_t id_size = 0;
    size_t offsets_at = 0;
    size_t offset_size = 0;
    size_t values_at = 0;
  };

  StatusOr<Layout> ReadLayout(std::string_view bytes, bool large, size_t id_size,
                              size_t offset_size) {
    Layout l;
    l.id_size = id_size;
    l.offset_size = offset_size;
    const size_t count_size = large ? 4 : 1;
    DC_ASSIGN_OR_RETURN(l.count, Unsigned(bytes, 1, count_size, "an element count"));
    l.ids_at = 1 + count_size;
    const size_t per_element = id_size + offset_size;
    if (l.count > (bytes.size() - l.ids_at) / per_element) {
      return Malformed(std::to_string(l.count) + " elements in " + std::to_string(bytes.size()) +
                       " bytes");
    }
    l.offsets_at = l.ids_at + l.count * id_size;
    l.values_at = l.offsets_at + (l.count + 1) * offset_size;
    if (l.values_at > bytes.size()) return Malformed("element offsets run past the end");
    return l;
  }

  // Element `i`'s bytes: from its offset to the end of the values (a
  // value carries its own length).
  StatusOr<std::string_view> Element(std::string_view bytes, const Layout& l, uint64_t i) {
    DC_ASSIGN_OR_RETURN(uint64_t start,
                        Unsigned(bytes, l.offsets_at + i * l.offset_size, l.offset_size, "offset"));
    DC_ASSIGN_OR_RETURN(uint64_t end, Unsigned(bytes, l.offsets_at + l.count * l.offset_size,
                                               l.offset_size, "offset"));
    if (start >= end || end > bytes.size() - l.values_at) {
      return Malformed("element offset " + std::to_string(start) + " outside the values");
    }
    return bytes.substr(l.values_at + start, end - start);
  }

  StatusOr<std::string> Object(std::string_view bytes, unsigned header, int depth) {
    DC_ASSIGN_OR_RETURN(Layout l, ReadLayout(bytes, (header & 0x10) != 0, ((header >> 2) & 3) + 1,
                                             (header & 3) + 1));
    std::string out = "{";
    for (uint64_t i = 0; i < l.count; ++i) {
      DC_ASSIGN_OR_RETURN(uint64_t id, Unsigned(bytes, l.ids_at + i * l.id_size, l.id_size, "id"));
      DC_ASSIGN_OR_RETURN(std::string_view key, dictionary_.At(id));
      DC_ASSIGN_OR_RETURN(std::string key_json, JsonString(key));
      DC_ASSIGN_OR_RETURN(std::string_view element, Element(bytes, l, i));
      DC_ASSIGN_OR_RETURN(std::string value, Value(element, depth + 1));
      out += (i ? "," : "") + key_json + ":" + value;
      if (out.size() > kMaxJsonBytes) return TooLarge();
    }
    return out + "}";
  }

  StatusOr<std::string> Array(std::string_view bytes, unsigned header, int depth) {
    DC_ASSIGN_OR_RETURN(Layout l, ReadLayout(bytes, (header & 0x4) != 0, 0, (header & 3) + 1));
    std::string out = "[";
    for (uint64_t i = 0; i < l.count; ++i) {
      DC_ASSIGN_OR_RETURN(std::string_view element, Element(bytes, l, i));
      DC_ASSIGN_OR_RETURN(std::string value, Value(element, depth + 1));
      out += (i ? "," : "") + value;
      if (out.size() > kMaxJsonBytes) return TooLarge();
    }
    return out + "]";
  }

  static Status TooLarge() {
    return Malformed("it decodes to more than " + std::to_string(kMaxJsonBytes >> 20) +
                     " MiB of JSON");
  }

  const Dictionary& dictionary_;
};

}  // namespace

StatusOr<std::string> VariantToJson(std::string_view value, std::string_view metadata) {
  DC_ASSIGN_OR_RETURN(Dictionary dictionary, Dictionary::Parse(metadata));
  return Decoder(dictionary).Value(value, 0);
}

}  // namespace deltacommit
