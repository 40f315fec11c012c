// The libcurl HttpClient.
//
// Handles: an easy handle serves one request at a time, so the client keeps a
// pool of idle handles; a request takes the most recently returned one. Each
// handle keeps its own connection cache across curl_easy_reset(), which is
// where keep-alive reuse comes from. A CURLSH shares the DNS cache and TLS
// sessions between handles. Connections themselves are deliberately *not*
// shared (CURL_LOCK_DATA_CONNECT): libcurl documents the shared connection
// cache as unsafe across concurrent threads (known bug 11.11, curl#4915), and
// our TSan preset would rightly flag it.
//
// What goes on the wire is exactly the caller's headers plus Host (from the
// URL, unless the caller set it, as the signer does) and Content-Length for
// PUT/POST. libcurl's own additions are suppressed, because the signer signs
// every header it sees and RGW rejects chunked uploads:
//   Accept: */*          always added by libcurl -> sent empty to remove it
//   Expect: 100-continue added for large POST bodies -> removed
//   Content-Type: application/x-www-form-urlencoded  added with POSTFIELDS
//                        -> removed unless the caller set one
//   Transfer-Encoding: chunked  never: the body size is always given
//   User-Agent, Accept-Encoding  libcurl adds none unless asked
// Proxies from the environment (http_proxy, ...) are ignored: HttpOptions has
// no proxy setting, and a test against 127.0.0.1 must not leave the host.
//
// libcurl silently resends a request whose reused connection died before any
// reply byte. For GET/HEAD that is harmless; for anything else it would turn
// "maybe applied" into "applied twice", so the PREREQFUNCTION aborts the
// second send and the caller gets kUnknownOutcome.
#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/aws/http.h"
#include "deltacommit/core/ascii.h"

static_assert(LIBCURL_VERSION_NUM >= 0x075500,
              "needs libcurl >= 7.85 (PREREQFUNCTION, PROTOCOLS_STR)");

namespace deltacommit::aws {

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

bool HasHeader(const HttpHeaders& headers, std::string_view lower_name) {
  return std::any_of(headers.begin(), headers.end(), [&](const auto& h) {
    return AsciiLower(h.first) == lower_name;
  });
}

// "scheme://host:port/path" without userinfo, query or fragment: messages may
// name the endpoint and object but never a presigned query string.
std::string Redact(std::string_view url, bool with_path) {
  size_t scheme_end = url.find("://");
  std::string_view scheme =
      scheme_end == std::string_view::npos ? "" : url.substr(0, scheme_end);
  std::string_view rest =
      scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("?#"));
  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string_view path = rest.substr(authority.size());
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  std::string out(authority);
  bool has_port =
      !authority.empty() && authority.back() != ']' &&
      authority.find(':', authority.rfind(']') + 1) != std::string_view::npos;
  if (!has_port) out += AsciiLower(scheme) == "https" ? ":443" : ":80";
  if (with_path) out = std::string(scheme) + "://" + out + std::string(path);
  return out;
}

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// DNS cache and TLS sessions shared by every handle of one client.
class CurlShare {
 public:
  CurlShare() : share_(curl_share_init()) {
    if (share_ == nullptr) return;
    curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &CurlShare::Lock);
    curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &CurlShare::Unlock);
    curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
  ~CurlShare() {
    if (share_ != nullptr) curl_share_cleanup(share_);
  }
  CurlShare(const CurlShare&) = delete;
  CurlShare& operator=(const CurlShare&) = delete;

  CURLSH* get() const { return share_; }

 private:
  // One mutex per kind of data, as libcurl requires.
  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* self) {
    static_cast<CurlShare*>(self)->mutexes_[Index(data)].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* self) {
    static_cast<CurlShare*>(self)->mutexes_[Index(data)].unlock();
  }
  static size_t Index(curl_lock_data data) {
    return std::min(static_cast<size_t>(data),
                    static_cast<size_t>(CURL_LOCK_DATA_LAST));
  }

  CURLSH* share_;
  std::array<std::mutex, static_cast<size_t>(CURL_LOCK_DATA_LAST) + 1> mutexes_;
};

struct EasyDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

// Idle easy handles, most recently used last (its connections are warmest).
class HandlePool {
 public:
  explicit HandlePool(CURLSH* share) : share_(share) {}

  EasyHandle Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        EasyHandle handle = std::move(idle_.back());
        idle_.pop_back();
        return handle;
      }
    }
    EasyHandle handle(curl_easy_init());
    // Set once: curl_easy_reset() keeps the share, the connection cache and
    // the TLS session of a handle.
    if (handle != nullptr && share_ != nullptr) {
      curl_easy_setopt(handle.get(), CURLOPT_SHARE, share_);
    }
    return handle;
  }

  void Release(EasyHandle handle) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < kMaxIdle) idle_.push_back(std::move(handle));
  }

 private:
  static constexpr size_t kMaxIdle = 32;
  CURLSH* const share_;
  std::mutex mu_;
  std::vector<EasyHandle> idle_;  // guarded by mu_
};

// State of one request, shared with the libcurl callbacks.
struct Transfer {
  bool resend_allowed = false;  // GET/HEAD may be resent by libcurl itself
  int sends = 0;                // PREREQFUNCTION calls: sends libcurl began
  bool resend_blocked = false;
  HttpResponse response;
  std::array<char, CURL_ERROR_SIZE> error{};
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  static_cast<Transfer*>(user)->response.body.append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  HttpResponse& response = static_cast<Transfer*>(user)->response;
  std::string_view line(data, size * count);
  // A new status line (after 100 Continue) starts a new header block.
  if (line.starts_with("HTTP/")) {
    response.headers.clear();
  } else if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    response.headers.emplace_back(AsciiLower(Trim(line.substr(0, colon))),
                                  std::string(Trim(line.substr(colon + 1))));
  }
  return size * count;
}

int OnBeforeSend(void* user, char*, char*, int, int) {
  auto* transfer = static_cast<Transfer*>(user);
  if (++transfer->sends > 1 && !transfer->resend_allowed) {
    transfer->resend_blocked = true;
    return CURL_PREREQFUNC_ABORT;
  }
  return CURL_PREREQFUNC_OK;
}

// Collects the first setopt failure, so one check covers them all.
class Options {
 public:
  explicit Options(CURL* handle) : handle_(handle) {}
  template <typename T>
  void Set(CURLoption option, T value) {
    CURLcode code = curl_easy_setopt(handle_, option, value);
    if (first_error_ == CURLE_OK) first_error_ = code;
  }
  CURLcode first_error() const { return first_error_; }

 private:
  CURL* handle_;
  CURLcode first_error_ = CURLE_OK;
};

Status ValidateRequest(const HttpRequest& request) {
  static constexpr std::array<std::string_view, 5> kMethods = {
      "GET", "HEAD", "PUT", "POST", "DELETE"};
  if (std::find(kMethods.begin(), kMethods.end(), request.method) ==
      kMethods.end()) {
    return InvalidArgumentError("unsupported HTTP method '" + request.method +
                                "'");
  }
  if (!request.body.empty() && request.method != "PUT" &&
      request.method != "POST") {
    return InvalidArgumentError(request.method + " request with a body");
  }
  for (const auto& [name, value] : request.headers) {
    if (name.empty() || name.find_first_of(":;\r\n \t") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      // Only the name: the value may be a credential.
      return InvalidArgumentError("malformed HTTP header '" + name + "'");
    }
    if (AsciiLower(name) == "content-length" &&
        value != std::to_string(request.body.size())) {
      return InvalidArgumentError("Content-Length " + value +
                                  " does not match the body");
    }
  }
  return OkStatus();
}

HeaderList BuildHeaderList(const HttpRequest& request) {
  std::vector<std::string> lines;
  for (const auto& [name, value] : request.headers) {
    // "Name;" is libcurl's spelling of a header with an empty value.
    lines.push_back(value.empty() ? name + ";" : name + ": " + value);
  }
  // "Name:" with nothing after it removes a header libcurl would add.
  if (!HasHeader(request.headers, "accept")) lines.emplace_back("Accept:");
  if (!HasHeader(request.headers, "expect")) lines.emplace_back("Expect:");
  if (!HasHeader(request.headers, "content-type"))
    lines.emplace_back("Content-Type:");
  curl_slist* list = nullptr;
  for (const std::string& line : lines) {
    curl_slist* appended = curl_slist_append(list, line.c_str());
    if (appended == nullptr) {
      curl_slist_free_all(list);
      return nullptr;
    }
    list = appended;
  }
  return HeaderList(list);
}

void SetMethod(Options& options, const HttpRequest& request) {
  if (request.method == "HEAD") {
    options.Set(CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT" || request.method == "POST") {
    // The body from memory with its exact size: a Content-Length, never
    // chunked encoding, and no read callback to rewind.
    options.Set(CURLOPT_POST, 1L);
    options.Set(CURLOPT_POSTFIELDSIZE_LARGE,
                static_cast<curl_off_t>(request.body.size()));
    options.Set(CURLOPT_POSTFIELDS, request.body.data());
    if (request.method == "PUT") options.Set(CURLOPT_CUSTOMREQUEST, "PUT");
  } else if (request.method == "DELETE") {
    options.Set(CURLOPT_CUSTOMREQUEST, "DELETE");
  } else {
    options.Set(CURLOPT_HTTPGET, 1L);
  }
}

CURLcode Configure(CURL* handle, const HttpOptions& http_options,
                   const HttpRequest& request, curl_slist* headers,
                   Transfer& transfer) {
  Options options(handle);
  options.Set(CURLOPT_URL, request.url.c_str());
  options.Set(CURLOPT_PROTOCOLS_STR, "http,https");
  options.Set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  options.Set(CURLOPT_PROXY, "");
  options.Set(CURLOPT_NOSIGNAL, 1L);
  options.Set(CURLOPT_TCP_KEEPALIVE, 1L);
  options.Set(CURLOPT_CONNECTTIMEOUT_MS,
              static_cast<long>(http_options.connect_timeout.count()));
  options.Set(CURLOPT_TIMEOUT_MS,
              static_cast<long>(http_options.request_timeout.count()));
  options.Set(CURLOPT_HTTPHEADER, headers);
  options.Set(CURLOPT_ERRORBUFFER, transfer.error.data());
  options.Set(CURLOPT_WRITEFUNCTION, &OnBody);
  options.Set(CURLOPT_WRITEDATA, static_cast<void*>(&transfer));
  options.Set(CURLOPT_HEADERFUNCTION, &OnHeader);
  options.Set(CURLOPT_HEADERDATA, static_cast<void*>(&transfer));
  options.Set(CURLOPT_PREREQFUNCTION, &OnBeforeSend);
  options.Set(CURLOPT_PREREQDATA, static_cast<void*>(&transfer));
  SetMethod(options, request);
  return options.first_error();
}

bool IsConnectFailure(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
      return true;
    default:
      return false;
  }
}

// The PREREQFUNCTION runs just before libcurl writes the request, so "never
// called" proves the server saw nothing; once it ran, any failure may have
// left the request applied.
Status Classify(CURLcode code, const Transfer& transfer,
                const HttpRequest& request) {
  std::string detail = transfer.error[0] != '\0' ? transfer.error.data()
                                                 : curl_easy_strerror(code);
  if (transfer.resend_blocked) {
    return UnknownOutcomeError(
        request.method + " " + Redact(request.url, true) +
        ": connection lost after sending, not resent: " + detail);
  }
  if (transfer.sends > 0) {
    return UnknownOutcomeError(
        request.method + " " + Redact(request.url, true) +
        ": no complete reply, the request may have been applied: " + detail);
  }
  if (IsConnectFailure(code)) {
    return UnavailableError("request not sent: could not connect to " +
                            Redact(request.url, false) + ": " + detail);
  }
  // Malformed URL, TLS verification failure, out of memory: retrying won't
  // help.
  return InternalError("request not sent to " + Redact(request.url, false) +
                       ": " + detail);
}

class CurlHttpClient : public HttpClient {
 public:
  explicit CurlHttpClient(HttpOptions options)
      : options_(options), pool_(share_.get()) {}

  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    DC_RETURN_IF_ERROR(ValidateRequest(request));
    EasyHandle handle = pool_.Acquire();
    HeaderList headers = BuildHeaderList(request);
    if (handle == nullptr || headers == nullptr) {
      return InternalError("libcurl: out of memory for " +
                           Redact(request.url, false));
    }
    Transfer transfer;
    transfer.resend_allowed =
        request.method == "GET" || request.method == "HEAD";
    StatusOr<HttpResponse> result =
        Perform(handle.get(), request, headers.get(), transfer);
    // Reset drops the pointers into `transfer`, `headers` and the body, which
    // die here, but keeps the handle's connections for the next request.
    curl_easy_reset(handle.get());
    pool_.Release(std::move(handle));
    return result;
  }

 private:
  StatusOr<HttpResponse> Perform(CURL* handle, const HttpRequest& request,
                                 curl_slist* headers, Transfer& transfer) {
    if (CURLcode code = Configure(handle, options_, request, headers, transfer);
        code != CURLE_OK) {
      return InternalError("libcurl setup for " + Redact(request.url, false) +
                           ": " + curl_easy_strerror(code));
    }
    if (CURLcode code = curl_easy_perform(handle); code != CURLE_OK) {
      return Classify(code, transfer, request);
    }
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE,
                      &transfer.response.status);
    return std::move(transfer.response);
  }

  const HttpOptions options_;
  // Declared before pool_: handles must be cleaned up before their share.
  CurlShare share_;
  HandlePool pool_;
};

}  // namespace

std::unique_ptr<HttpClient> NewCurlHttpClient(HttpOptions options) {
  GlobalInitOnce();
  return std::make_unique<CurlHttpClient>(options);
}

}  // namespace deltacommit::aws
