// Pieces shared by credentials.cc, credentials_files.cc, credential_process.cc,
// session_credentials.cc and aws_config.cc: environment lookup, the shared
// config/credentials files (AWS's profile file format), credential_process,
// the credentials cache, and UTC time text.
// Not part of the library's API.
//
// Thread-safety: free functions are safe to call concurrently; EnvLookup is
// safe for concurrent reads as long as nobody mutates the injected map.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/clock.h"
#include "deltacommit/status.h"

namespace deltacommit::aws::internal {

// Environment variables from an injected map (tests) or the process.
class EnvLookup {
 public:
  // `vars` (may be null: the process environment) must outlive this.
  explicit EnvLookup(const std::map<std::string, std::string>* vars) : vars_(vars) {}

  // Empty values count as unset, as in the AWS SDKs: `AWS_PROFILE=` is not a
  // request for a profile named "".
  std::optional<std::string> Get(const std::string& name) const;

  // "NAME=value" for every variable, for a child process's environment.
  std::vector<std::string> All() const;

 private:
  const std::map<std::string, std::string>* vars_;
};

// ---- profile files ---------------------------------------------------------

// One section of a profile file: lower-cased key -> value. A key with an
// empty value followed by indented "k = v" lines (AWS's sub-properties, e.g.
// `s3 =` / `  addressing_style = path`) yields "s3.addressing_style".
using IniSection = std::map<std::string, std::string>;
// Section header as written, trimmed ("default", "profile dev") -> section.
using IniFile = std::map<std::string, IniSection>;

// AWS's profile file syntax: '#'/';' comment lines, inline comments after
// whitespace, space/tab around '=', keys case-insensitive, profile names
// case-sensitive, repeated sections merged. kInvalidArgument names `path`
// and the line.
StatusOr<IniFile> ParseIni(std::string_view text, std::string_view path);

struct ProfileFiles {
  std::string credentials_path;  // empty: unknown (no HOME and no override)
  std::string config_path;
};

// AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE, else ~/.aws/credentials and
// ~/.aws/config under `home_dir`, else under $HOME from `env`.
ProfileFiles LocateProfileFiles(const EnvLookup& env, const std::string& home_dir);

// "credentials file /h/.aws/credentials, config file /h/.aws/config".
std::string DescribeProfileFiles(const ProfileFiles& files);

struct ProfileChoice {
  std::string name;
  std::string chosen_by;  // "options", "AWS_PROFILE" or "default"
  bool IsExplicit() const { return chosen_by != "default"; }
};
ProfileChoice ChooseProfile(const std::optional<std::string>& option, const EnvLookup& env);

struct ProfileSetting {
  std::string value;
  std::string path;  // the file it came from
};

// A profile merged from both files; the credentials file wins per key.
struct Profile {
  std::string name;
  std::map<std::string, ProfileSetting> settings;
  std::vector<std::string> paths;  // files that have the profile
  const ProfileSetting* Find(const std::string& key) const;
};

// The profile `name` from the config file ([profile name], or [default] /
// [profile default] for "default") and the credentials file ([name]).
// Missing files hold no profiles. Returns nullopt when neither file has it;
// kInvalidArgument for a malformed file, kPermissionDenied when unreadable.
StatusOr<std::optional<Profile>> LoadProfile(const ProfileFiles& files, const std::string& name);

// LoadProfile, but a profile that was asked for by name and is missing is
// kInvalidArgument naming the profile, who asked and the files searched.
StatusOr<std::optional<Profile>> LoadChosenProfile(const ProfileFiles& files,
                                                   const ProfileChoice& choice);

// ---- credential_process ----------------------------------------------------

struct ProcessOptions {
  std::string profile;  // for messages
  std::chrono::milliseconds timeout{60'000};
  std::vector<std::string> environment;  // "NAME=value" for the child
};

// Runs `command` through /bin/sh -c (stdin /dev/null; stdout captured, up to
// 64 KiB; stderr captured for the error message) and parses its JSON
// (Version 1, AccessKeyId, SecretAccessKey, optional SessionToken and
// Expiration). kUnauthenticated for a failed, timed-out or malformed run;
// kInternal when the process cannot be started. Messages never contain the
// output of stdout.
StatusOr<Credentials> RunCredentialProcess(const std::string& command,
                                           const ProcessOptions& options);

// Parses credential_process output. Exposed for tests.
StatusOr<Credentials> ParseCredentialProcessOutput(std::string_view json,
                                                   const std::string& profile);

// ---- caching ---------------------------------------------------------------

// Caches what `fetch` returns and fetches again `refresh_before_ms` before
// the credentials expire (credentials without an expiration are kept). One
// thread refreshes; the others keep using still-valid credentials meanwhile,
// or wait for it. After a failed refresh, still-valid credentials are used
// and the source is asked again only after 10 s. The chain's cache of
// profile credentials, and SessionCredentialsProvider's of sessions.
std::unique_ptr<CredentialsProvider> NewCachingProvider(
    std::string name, std::function<StatusOr<Credentials>()> fetch, int64_t refresh_before_ms,
    Clock& clock);

// ---- time ------------------------------------------------------------------

// "2026-11-29T10:00:00Z" (seconds; milliseconds dropped).
std::string FormatUtc(int64_t epoch_ms);

// ISO 8601 / RFC 3339 date-time with a zone: "2026-11-29T10:00:00Z",
// "...:00.123Z", "...:00+01:00", "...:00+0100". nullopt when malformed.
std::optional<int64_t> ParseIso8601(std::string_view text);

}  // namespace deltacommit::aws::internal
