// The provider chain and its cache. INI parsing lives in
// credentials_files.cc, running credential_process in credential_process.cc.

#include "deltacommit/aws/credentials.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "deltacommit/aws/credentials_internal.h"

namespace deltacommit::aws::internal {
namespace {

// Reads fixed-width fields off the front of an ISO 8601 string.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool Digits(size_t n, int& out) {
    if (s_.size() < n) return false;
    out = 0;
    for (size_t i = 0; i < n; ++i) {
      if (s_[i] < '0' || s_[i] > '9') return false;
      out = out * 10 + (s_[i] - '0');
    }
    s_.remove_prefix(n);
    return true;
  }
  bool Take(std::string_view chars) {
    if (s_.empty() || chars.find(s_.front()) == std::string_view::npos) return false;
    s_.remove_prefix(1);
    return true;
  }
  char Peek() const { return s_.empty() ? '\0' : s_.front(); }
  bool Done() const { return s_.empty(); }

 private:
  std::string_view s_;
};

// ".123456" -> 123 ms (extra digits truncated).
bool Fraction(Scanner& in, int64_t& ms) {
  if (!in.Take(".,")) return true;
  int digit = 0;
  int64_t scale = 100;
  if (!in.Digits(1, digit)) return false;
  do {
    ms += digit * scale;
    scale /= 10;
  } while (in.Digits(1, digit));
  return true;
}

// "Z", "+01:00" or "-0130" -> offset east of UTC in minutes.
bool Zone(Scanner& in, int& offset_minutes) {
  if (in.Take("Zz")) return true;
  bool west = in.Peek() == '-';
  int hours = 0;
  int minutes = 0;
  if (!in.Take("+-") || !in.Digits(2, hours)) return false;
  in.Take(":");
  if (!in.Digits(2, minutes) || hours > 23 || minutes > 59) return false;
  offset_minutes = (west ? -1 : 1) * (hours * 60 + minutes);
  return true;
}

}  // namespace

std::optional<int64_t> ParseIso8601(std::string_view text) {
  Scanner in(text);
  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  int zone = 0;
  int64_t ms = 0;
  bool ok = in.Digits(4, year) && in.Take("-") && in.Digits(2, month) && in.Take("-") &&
            in.Digits(2, day) && in.Take("Tt ") && in.Digits(2, hour) && in.Take(":") &&
            in.Digits(2, minute) && in.Take(":") && in.Digits(2, second) && Fraction(in, ms) &&
            Zone(in, zone) && in.Done();
  if (!ok || hour > 23 || minute > 59 || second > 59) return std::nullopt;
  std::chrono::year_month_day date{std::chrono::year(year),
                                   std::chrono::month(static_cast<unsigned>(month)),
                                   std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return std::nullopt;
  auto at = std::chrono::sys_days(date) + std::chrono::hours(hour) +
            std::chrono::minutes(minute - zone) + std::chrono::seconds(second);
  return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count() +
         ms;
}

std::string FormatUtc(int64_t epoch_ms) {
  namespace chr = std::chrono;
  chr::sys_time<chr::milliseconds> t{chr::milliseconds(epoch_ms)};
  chr::sys_days day = chr::floor<chr::days>(t);
  chr::year_month_day date(day);
  chr::hh_mm_ss<chr::seconds> time(chr::floor<chr::seconds>(t - day));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return buf;
}

}  // namespace deltacommit::aws::internal

namespace deltacommit::aws {
namespace {

using internal::EnvLookup;

// After a failed refresh, keep using still-valid credentials and try again
// only after this long, so a broken credential_process is not re-run on
// every request.
constexpr int64_t kRetryAfterFailureMs = 10'000;
// Credentials that arrive already inside the refresh window are used for at
// least this long before the source is asked again.
constexpr int64_t kMinRefreshIntervalMs = 10'000;

Status MissingSecret(const std::string& where) {
  return InvalidArgumentError(where + " has an access key id but no secret access key");
}

class StaticProvider : public CredentialsProvider {
 public:
  StaticProvider(Credentials credentials, Clock& clock)
      : credentials_(std::move(credentials)), clock_(clock) {}

  std::string Name() const override { return "static"; }

  StatusOr<Credentials> GetCredentials() override {
    if (credentials_.access_key_id.empty()) {
      return InvalidArgumentError(credentials_.source + " has no access key id");
    }
    if (credentials_.secret_access_key.empty()) return MissingSecret(credentials_.source);
    DC_RETURN_IF_ERROR(CheckNotExpired(credentials_, clock_.NowMillis()));
    return credentials_;
  }

 private:
  const Credentials credentials_;
  Clock& clock_;
};

// Read on every call: cheap, and a changed environment is seen at once.
class EnvironmentProvider : public CredentialsProvider {
 public:
  EnvironmentProvider(EnvLookup env, Clock& clock) : env_(env), clock_(clock) {}

  std::string Name() const override { return "environment"; }

  StatusOr<Credentials> GetCredentials() override {
    std::optional<std::string> id = env_.Get("AWS_ACCESS_KEY_ID");
    std::optional<std::string> secret = env_.Get("AWS_SECRET_ACCESS_KEY");
    if (!id.has_value() && !secret.has_value()) {
      return NotFoundError("environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY not set");
    }
    if (!secret.has_value() || !id.has_value()) {
      const char* set = id.has_value() ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY";
      const char* missing = id.has_value() ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID";
      return InvalidArgumentError(std::string("environment: ") + set + " is set but " + missing +
                                  " is not; set both or neither");
    }
    Credentials c{*id, *secret, env_.Get("AWS_SESSION_TOKEN").value_or(""), std::nullopt,
                  "environment (AWS_ACCESS_KEY_ID)"};
    if (std::optional<std::string> text = env_.Get("AWS_CREDENTIAL_EXPIRATION")) {
      c.expiration_ms = internal::ParseIso8601(*text);
      if (!c.expiration_ms.has_value()) {
        return InvalidArgumentError("environment: AWS_CREDENTIAL_EXPIRATION \"" + *text +
                                    "\" is not an ISO 8601 time such as 2026-11-29T10:00:00Z");
      }
    }
    DC_RETURN_IF_ERROR(CheckNotExpired(c, clock_.NowMillis()));
    return c;
  }

 private:
  const EnvLookup env_;
  Clock& clock_;
};

// Fetches credentials from the chosen profile afresh: static keys, else
// credential_process. Static keys win, as in the SDKs' chain where the
// process provider comes after the shared files.
class ProfileSource {
 public:
  ProfileSource(const CredentialsOptions& options, EnvLookup env)
      : env_(env),
        choice_(internal::ChooseProfile(options.profile, env)),
        files_(internal::LocateProfileFiles(env, options.home_dir)),
        timeout_(options.credential_process_timeout) {}

  std::string Name() const { return "profile " + choice_.name; }

  StatusOr<Credentials> Fetch() const {
    DC_ASSIGN_OR_RETURN(std::optional<internal::Profile> profile,
                        internal::LoadChosenProfile(files_, choice_));
    if (!profile.has_value()) {
      return NotFoundError("profile \"" + choice_.name + "\" (" + choice_.chosen_by +
                           "): not in " + internal::DescribeProfileFiles(files_));
    }
    if (profile->Find("aws_access_key_id") != nullptr) return StaticKeys(*profile);
    if (const internal::ProfileSetting* command = profile->Find("credential_process")) {
      if (command->value.empty()) {
        return InvalidArgumentError("profile \"" + choice_.name + "\" in " + command->path +
                                    ": credential_process is empty");
      }
      internal::ProcessOptions options{choice_.name, timeout_, env_.All()};
      return internal::RunCredentialProcess(command->value, options);
    }
    return NotFoundError("profile \"" + choice_.name + "\" (" + choice_.chosen_by +
                         ") in " + internal::DescribeProfileFiles(files_) +
                         ": has neither aws_access_key_id nor credential_process");
  }

 private:
  static StatusOr<Credentials> StaticKeys(const internal::Profile& profile) {
    const internal::ProfileSetting* id = profile.Find("aws_access_key_id");
    std::string where = "profile \"" + profile.name + "\" in " + id->path;
    const internal::ProfileSetting* secret = profile.Find("aws_secret_access_key");
    if (secret == nullptr || secret->value.empty()) return MissingSecret(where);
    if (id->value.empty()) return InvalidArgumentError(where + ": aws_access_key_id is empty");
    const internal::ProfileSetting* token = profile.Find("aws_session_token");
    return Credentials{id->value, secret->value, token != nullptr ? token->value : "",
                       std::nullopt, where};
  }

  const EnvLookup env_;
  const internal::ProfileChoice choice_;
  const internal::ProfileFiles files_;
  const std::chrono::milliseconds timeout_;
};

// Caches what `fetch` returns and fetches again `refresh_before_ms` before
// expiry. One thread refreshes; meanwhile the others keep using the cached
// credentials while they are valid, or wait for the refresh when not.
class CachingProvider : public CredentialsProvider {
 public:
  using Fetch = std::function<StatusOr<Credentials>()>;
  CachingProvider(std::string name, Fetch fetch, int64_t refresh_before_ms, Clock& clock)
      : name_(std::move(name)),
        fetch_(std::move(fetch)),
        refresh_before_ms_(refresh_before_ms),
        clock_(clock) {}

  std::string Name() const override { return name_; }

  StatusOr<Credentials> GetCredentials() override {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      int64_t now = clock_.NowMillis();
      if (cached_.has_value() && !RefreshDue(now)) return *cached_;
      bool usable = cached_.has_value() && CheckNotExpired(*cached_, now).ok();
      if (usable && (refreshing_ || now < retry_after_ms_)) return *cached_;
      if (!refreshing_) return RefreshLocked(lock);
      uint64_t generation = generation_;
      cv_.wait(lock, [&] { return generation_ != generation; });
      // Share the refresher's failure instead of running the source again.
      if (!last_error_.ok()) return last_error_;
    }
  }

 private:
  bool RefreshDue(int64_t now) const {
    if (!cached_->expiration_ms.has_value()) return false;
    int64_t expiry = *cached_->expiration_ms;
    int64_t due = std::max(expiry - refresh_before_ms_, fetched_at_ms_ + kMinRefreshIntervalMs);
    return now >= std::min(due, expiry);
  }

  // REQUIRES: `lock` holds mu_ and no refresh is running.
  StatusOr<Credentials> RefreshLocked(std::unique_lock<std::mutex>& lock) {
    refreshing_ = true;
    lock.unlock();
    StatusOr<Credentials> fetched = fetch_();
    if (fetched.ok()) {
      Status fresh = CheckNotExpired(*fetched, clock_.NowMillis());
      if (!fresh.ok()) fetched = fresh;
    }
    lock.lock();
    int64_t now = clock_.NowMillis();
    refreshing_ = false;
    ++generation_;
    last_error_ = fetched.status();
    if (fetched.ok()) {
      cached_ = *fetched;
      fetched_at_ms_ = now;
    } else {
      retry_after_ms_ = now + kRetryAfterFailureMs;
    }
    cv_.notify_all();
    if (!fetched.ok() && cached_.has_value() && CheckNotExpired(*cached_, now).ok()) {
      return *cached_;  // still valid: a failed early refresh costs nothing yet
    }
    return fetched;
  }

  const std::string name_;
  const Fetch fetch_;
  const int64_t refresh_before_ms_;
  Clock& clock_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Credentials> cached_;  // guarded by mu_
  int64_t fetched_at_ms_ = 0;          // guarded by mu_
  int64_t retry_after_ms_ = 0;         // guarded by mu_
  bool refreshing_ = false;            // guarded by mu_
  uint64_t generation_ = 0;            // guarded by mu_; counts finished refreshes
  Status last_error_;                  // guarded by mu_; of the last refresh
};

// Tries each provider in order; kNotFound moves on, anything else stops.
class ChainProvider : public CredentialsProvider {
 public:
  explicit ChainProvider(std::vector<std::unique_ptr<CredentialsProvider>> providers)
      : providers_(std::move(providers)) {}

  std::string Name() const override { return "chain"; }

  StatusOr<Credentials> GetCredentials() override {
    std::string tried;
    for (const auto& provider : providers_) {
      StatusOr<Credentials> got = provider->GetCredentials();
      if (got.ok() || !got.status().IsNotFound()) return got;
      tried += (tried.empty() ? "" : "; ") + got.status().message();
    }
    return UnauthenticatedError("no AWS credentials found; tried " + tried);
  }

 private:
  const std::vector<std::unique_ptr<CredentialsProvider>> providers_;
};

}  // namespace

std::unique_ptr<CredentialsProvider> internal::NewCachingProvider(
    std::string name, std::function<StatusOr<Credentials>()> fetch, int64_t refresh_before_ms,
    Clock& clock) {
  return std::make_unique<CachingProvider>(std::move(name), std::move(fetch), refresh_before_ms,
                                           clock);
}

std::string Credentials::RedactedKeyId() const {
  // Too short to show 8 characters without showing most of it.
  if (access_key_id.size() < 12) return "\u2026";
  return access_key_id.substr(0, 4) + "\u2026" + access_key_id.substr(access_key_id.size() - 4);
}

Status CheckNotExpired(const Credentials& c, int64_t now_ms) {
  if (!c.expiration_ms.has_value() || now_ms < *c.expiration_ms) return OkStatus();
  std::string source = c.source.empty() ? "an unnamed source" : c.source;
  return UnauthenticatedError("credentials from " + source + " expired at " +
                              internal::FormatUtc(*c.expiration_ms) + " (now " +
                              internal::FormatUtc(now_ms) +
                              "): refresh them and try again; nothing was sent");
}

std::unique_ptr<CredentialsProvider> StaticCredentialsProvider(Credentials credentials,
                                                               Clock& clock) {
  if (credentials.source.empty()) credentials.source = "static credentials";
  return std::make_unique<StaticProvider>(std::move(credentials), clock);
}

std::unique_ptr<CredentialsProvider> DefaultCredentialsChain(CredentialsOptions options,
                                                             Clock& clock) {
  if (options.explicit_credentials.has_value() &&
      !options.explicit_credentials->access_key_id.empty()) {
    Credentials c = *options.explicit_credentials;
    if (c.source.empty()) c.source = "explicit options";
    return StaticCredentialsProvider(std::move(c), clock);
  }
  EnvLookup env(options.environment);
  auto source = std::make_shared<const ProfileSource>(options, env);
  std::vector<std::unique_ptr<CredentialsProvider>> providers;
  providers.push_back(std::make_unique<EnvironmentProvider>(env, clock));
  providers.push_back(internal::NewCachingProvider(
      source->Name(), [source] { return source->Fetch(); }, options.refresh_before_expiry_ms,
      clock));
  return std::make_unique<ChainProvider>(std::move(providers));
}

}  // namespace deltacommit::aws
