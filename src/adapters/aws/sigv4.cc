// AWS Signature Version 4 header signing; see sigv4.h. The steps follow
// AWS's published algorithm: canonical request -> string to sign -> HMAC
// with a key derived from the secret -> Authorization header.
#include "deltacommit/aws/sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/aws/signing_key_cache.h"
#include "deltacommit/core/ascii.h"

namespace deltacommit::aws {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
constexpr size_t kNpos = std::string_view::npos;

// ---- Strings -------------------------------------------------------------

bool IsSpaceOrTab(char c) { return c == ' ' || c == '\t'; }

// Every piece between `sep`s, empty ones included ("" gives one empty piece).
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  for (size_t at = s.find(sep); at != kNpos; at = s.find(sep, start)) {
    pieces.push_back(s.substr(start, at - start));
    start = at + 1;
  }
  pieces.push_back(s.substr(start));
  return pieces;
}

std::string HexLower(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  return out;
}

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// "%XX" becomes the byte; a '%' not followed by two hex digits stays literal
// (it is then re-encoded as "%25", as AWS does). '+' stays '+': SigV4 query
// strings are not form-encoded.
std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = HexDigitValue(s[i + 1]);
      const int lo = HexDigitValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// Best effort: std::string may have left copies behind when it grew.
void Wipe(std::string& secret) { OPENSSL_cleanse(secret.data(), secret.size()); }

// ---- Crypto --------------------------------------------------------------

// OpenSSL fails these only when it cannot allocate; the empty digest then
// yields a signature the server rejects (403), which the caller reports.
std::string Sha256(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md.data(), &len, EVP_sha256(), nullptr) != 1) {
    len = 0;
  }
  return std::string(reinterpret_cast<const char*>(md.data()), len);
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(),
           &len) == nullptr) {
    len = 0;
  }
  std::string out(reinterpret_cast<const char*>(mac.data()), len);
  OPENSSL_cleanse(mac.data(), mac.size());
  return out;
}

// ---- Time ----------------------------------------------------------------

// "YYYYMMDDTHHMMSSZ" in UTC; milliseconds are truncated.
std::string AmzDate(int64_t now_ms) {
  namespace chrono = std::chrono;
  const chrono::sys_time<chrono::milliseconds> now{chrono::milliseconds{now_ms}};
  const chrono::sys_days day = chrono::floor<chrono::days>(now);
  const chrono::year_month_day ymd{day};
  const chrono::hh_mm_ss<chrono::seconds> time{chrono::floor<chrono::seconds>(now - day)};
  std::array<char, 32> buf{};
  std::snprintf(buf.data(), buf.size(), "%04d%02u%02uT%02d%02d%02dZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(time.hours().count()),
                static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return std::string(buf.data());
}

// ---- URL -----------------------------------------------------------------

// The parts of an absolute URL that signing needs, as views into it.
struct UrlParts {
  std::string_view scheme;
  std::string_view host;   // without userinfo and port
  std::string_view port;   // empty when absent
  std::string_view path;   // as sent (percent-encoded); may be empty
  std::string_view query;  // without the '?'
};

void SplitAuthority(std::string_view authority, UrlParts& parts) {
  if (const size_t at = authority.rfind('@'); at != kNpos) authority.remove_prefix(at + 1);
  const size_t colon = authority.rfind(':');
  const size_t bracket = authority.rfind(']');  // an IPv6 literal has colons
  if (colon != kNpos && (bracket == kNpos || colon > bracket)) {
    parts.port = authority.substr(colon + 1);
    authority = authority.substr(0, colon);
  }
  parts.host = authority;
}

UrlParts SplitUrl(std::string_view url) {
  UrlParts parts;
  url = url.substr(0, url.find('#'));  // a fragment is never sent
  std::string_view rest = url;
  if (const size_t sep = url.find("://"); sep != kNpos) {
    parts.scheme = url.substr(0, sep);
    rest = url.substr(sep + 3);
    const size_t end = rest.find_first_of("/?");
    SplitAuthority(rest.substr(0, end), parts);
    rest = end == kNpos ? std::string_view() : rest.substr(end);
  }
  const size_t question = rest.find('?');
  parts.path = rest.substr(0, question);
  if (question != kNpos) parts.query = rest.substr(question + 1);
  return parts;
}

std::string HostHeaderValue(const UrlParts& url) {
  const bool default_port = url.port.empty() ||
                            (EqualsIgnoreCase(url.scheme, "https") && url.port == "443") ||
                            (EqualsIgnoreCase(url.scheme, "http") && url.port == "80");
  std::string host(url.host);
  if (!default_port) {
    host += ':';
    host += url.port;
  }
  return host;
}

// ---- Canonical request parts ----------------------------------------------

// Non-S3 services: drop empty and "." segments, let ".." remove its parent,
// keep a trailing '/', then encode each segment again (so an encoded "%20"
// becomes "%2520", AWS's "double encoding").
std::string NormalizedEncodedPath(std::string_view path) {
  const std::vector<std::string_view> pieces = Split(path, '/');
  std::vector<std::string_view> segments;
  for (std::string_view piece : pieces) {
    if (piece.empty() || piece == ".") continue;
    if (piece == "..") {
      if (!segments.empty()) segments.pop_back();
      continue;
    }
    segments.push_back(piece);
  }
  const std::string_view last = pieces.back();
  const bool directory = last.empty() || last == "." || last == "..";
  std::string out;
  for (std::string_view segment : segments) {
    out += '/';
    out += UriEncode(segment, /*encode_slash=*/true);
  }
  if (out.empty() || directory) out += '/';
  return out;
}

std::string CanonicalUri(std::string_view path, UriPathStyle style) {
  if (style == UriPathStyle::kNormalizeAndEncode) return NormalizedEncodedPath(path);
  // S3 signs what is sent: the S3 adapter already encoded the key the way S3
  // canonicalises it, and decoding first would change "%2F" into a '/'.
  return path.empty() ? std::string("/") : std::string(path);
}

// Each name and value decoded, then encoded the SigV4 way; sorted by name,
// then value; "name=" for a parameter without a value.
std::string CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  for (std::string_view param : Split(query, '&')) {
    if (param.empty()) continue;
    const size_t eq = param.find('=');
    const std::string_view value = eq == kNpos ? std::string_view() : param.substr(eq + 1);
    params.emplace_back(UriEncode(PercentDecode(param.substr(0, eq)), true),
                        UriEncode(PercentDecode(value), true));
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

// Trims, and collapses each run of spaces/tabs into one space (quotes too:
// the test suite's get-header-value-trim signs "a b c" for "a   b   c").
std::string NormalizeHeaderValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  bool pending_space = false;
  for (char c : value) {
    if (IsSpaceOrTab(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

struct CanonicalHeaders {
  std::string entries;  // "name:value\n" per distinct name
  std::string signed_names;  // "host;x-amz-date"
};

// Lower-cased names, sorted; repeated names keep their values in request
// order, joined by ','. Authorization is left out: it cannot sign itself.
CanonicalHeaders CanonicalizeHeaders(const HttpHeaders& headers) {
  std::vector<std::pair<std::string, std::string>> lowered;
  for (const auto& [name, value] : headers) {
    std::string lower = AsciiLower(name);
    if (lower == "authorization") continue;
    lowered.emplace_back(std::move(lower), NormalizeHeaderValue(value));
  }
  std::stable_sort(lowered.begin(), lowered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  CanonicalHeaders result;
  for (size_t i = 0; i < lowered.size(); ++i) {
    const bool repeated = i > 0 && lowered[i].first == lowered[i - 1].first;
    if (repeated) {
      result.entries.back() = ',';  // replaces the previous entry's '\n'
    } else {
      if (!result.signed_names.empty()) result.signed_names += ';';
      result.signed_names += lowered[i].first;
      result.entries += lowered[i].first;
      result.entries += ':';
    }
    result.entries += lowered[i].second;
    result.entries += '\n';
  }
  return result;
}

struct CanonicalRequestParts {
  std::string text;
  std::string signed_headers;
};

CanonicalRequestParts BuildCanonicalRequest(const HttpRequest& request,
                                            std::string_view payload_hash,
                                            UriPathStyle path_style) {
  const UrlParts url = SplitUrl(request.url);
  CanonicalHeaders headers = CanonicalizeHeaders(request.headers);
  std::string text = request.method;
  text += '\n';
  text += CanonicalUri(url.path, path_style);
  text += '\n';
  text += CanonicalQuery(url.query);
  text += '\n';
  text += headers.entries;
  text += '\n';
  text += headers.signed_names;
  text += '\n';
  text += payload_hash;
  return {std::move(text), std::move(headers.signed_names)};
}

// ---- Headers of the request ------------------------------------------------

bool HasHeader(const HttpHeaders& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return EqualsIgnoreCase(h.first, name); });
}

void RemoveHeader(HttpHeaders& headers, std::string_view name) {
  std::erase_if(headers, [&](const auto& h) { return EqualsIgnoreCase(h.first, name); });
}

// Replaces every header called `name` (any case) with one.
void SetHeader(HttpHeaders& headers, std::string_view name, std::string value) {
  RemoveHeader(headers, name);
  headers.emplace_back(std::string(name), std::move(value));
}

// "AWS4-HMAC-SHA256 Credential=<key id>/<scope>, SignedHeaders=<names>,
// Signature=<hex>": the key id is public; the secret never gets here.
std::string AuthorizationValue(std::string_view access_key_id, std::string_view scope,
                               std::string_view signed_headers, std::string_view signature) {
  std::string out(kAlgorithm);
  out += " Credential=";
  out += access_key_id;
  out += '/';
  out += scope;
  out += ", SignedHeaders=";
  out += signed_headers;
  out += ", Signature=";
  out += signature;
  return out;
}

}  // namespace

std::string UriEncode(std::string_view s, bool encode_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
                            c == '~';
    if (unreserved || (c == '/' && !encode_slash)) {
      out += ch;
      continue;
    }
    out += '%';
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  return out;
}

std::string Sha256Hex(std::string_view data) { return HexLower(Sha256(data)); }

std::string CanonicalRequest(const HttpRequest& request, std::string_view payload_hash,
                             UriPathStyle path_style) {
  return BuildCanonicalRequest(request, payload_hash, path_style).text;
}

std::string StringToSign(std::string_view canonical_request, std::string_view amz_date,
                         std::string_view scope) {
  std::string out(kAlgorithm);
  out += '\n';
  out += amz_date;
  out += '\n';
  out += scope;
  out += '\n';
  out += Sha256Hex(canonical_request);
  return out;
}

// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service),
// "aws4_request"). Intermediate keys are wiped: each one signs for a day.
std::string DeriveSigningKey(std::string_view secret, std::string_view date8,
                             std::string_view region, std::string_view service) {
  std::string key = "AWS4";
  key += secret;
  for (std::string_view part : {date8, region, service, std::string_view("aws4_request")}) {
    std::string next = HmacSha256(key, part);
    Wipe(key);
    key = std::move(next);
  }
  return key;
}

void SignRequest(HttpRequest& request, const Credentials& credentials,
                 const SigningParams& params) {
  const bool s3 = params.service == "s3";
  if (!HasHeader(request.headers, "host")) {
    request.headers.emplace_back("Host", HostHeaderValue(SplitUrl(request.url)));
  }
  const std::string amz_date = AmzDate(params.now_ms);
  SetHeader(request.headers, "x-amz-date", amz_date);
  if (credentials.session_token.empty()) {
    RemoveHeader(request.headers, "x-amz-security-token");
  } else {
    SetHeader(request.headers, "x-amz-security-token", credentials.session_token);
  }
  const std::string payload_hash = (s3 && params.unsigned_payload)
                                       ? std::string(kUnsignedPayload)
                                       : Sha256Hex(request.body);
  if (s3) SetHeader(request.headers, "x-amz-content-sha256", payload_hash);
  RemoveHeader(request.headers, "authorization");

  const std::string date8 = amz_date.substr(0, 8);
  const std::string scope = date8 + "/" + params.region + "/" + params.service + "/aws4_request";
  const CanonicalRequestParts canonical = BuildCanonicalRequest(
      request, payload_hash, s3 ? UriPathStyle::kS3 : UriPathStyle::kNormalizeAndEncode);
  std::string key = SigningKeyCache::Shared().Key(credentials.secret_access_key, date8,
                                                   params.region, params.service);
  const std::string signature =
      HexLower(HmacSha256(key, StringToSign(canonical.text, amz_date, scope)));
  Wipe(key);

  request.headers.emplace_back(
      "Authorization", AuthorizationValue(credentials.access_key_id, scope,
                                          canonical.signed_headers, signature));
}

}  // namespace deltacommit::aws
