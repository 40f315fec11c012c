// The shared config and credentials files, parsed the way the AWS SDKs'
// common profile-file parser does (aws-sdk-rust env_config/parse.rs and
// normalize.rs follow the same cross-SDK test suite).

#include <unistd.h>  // environ

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <system_error>
#include <utility>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/core/ascii.h"

namespace deltacommit::aws::internal {
namespace {

// The profile-file format treats only space and tab as whitespace.
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && (IsBlank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Cuts a trailing comment. In property lines a comment must follow
// whitespace, so `key = abc#def` keeps "#def" (secrets may contain '#').
std::string_view StripComment(std::string_view line, bool needs_whitespace) {
  bool prev_blank = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if ((line[i] == '#' || line[i] == ';') && (prev_blank || !needs_whitespace)) {
      return Trim(line.substr(0, i));
    }
    prev_blank = IsBlank(line[i]);
  }
  return Trim(line);
}

// "profile\t  dev" -> "profile dev".
std::string NormalizeHeader(std::string_view name) {
  std::string out;
  bool in_blank = false;
  for (char c : name) {
    if (IsBlank(c)) {
      in_blank = true;
      continue;
    }
    if (in_blank && !out.empty()) out += ' ';
    in_blank = false;
    out += c;
  }
  return out;
}

struct KeyValue {
  std::string key;
  std::string value;
};

// Never echoes the line: it may hold a secret.
StatusOr<KeyValue> ParseProperty(std::string_view line, const std::string& where) {
  std::string_view text = StripComment(Trim(line), /*needs_whitespace=*/true);
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return InvalidArgumentError(where + ": expected \"key = value\"");
  }
  std::string_view key = Trim(text.substr(0, eq));
  if (key.empty()) return InvalidArgumentError(where + ": property without a name");
  return KeyValue{AsciiLower(key), std::string(Trim(text.substr(eq + 1)))};
}

class IniParser {
 public:
  explicit IniParser(std::string_view path) : path_(path) {}

  Status Line(std::string_view raw, size_t number) {
    where_ = path_ + " line " + std::to_string(number);
    std::string_view trimmed = Trim(raw);
    if (trimmed.empty() || trimmed.front() == '#' || trimmed.front() == ';') return OkStatus();
    if (raw.front() == '[') return Header(raw);
    if (section_ == nullptr) {
      return InvalidArgumentError(where_ + ": property before any [section]");
    }
    if (IsBlank(raw.front())) return Continuation(raw);
    DC_ASSIGN_OR_RETURN(KeyValue kv, ParseProperty(raw, where_));
    key_ = kv.key;
    (*section_)[kv.key] = std::move(kv.value);
    return OkStatus();
  }

  IniFile Take() && { return std::move(file_); }

 private:
  Status Header(std::string_view raw) {
    std::string_view text = StripComment(raw, /*needs_whitespace=*/false);
    if (text.size() < 2 || text.back() != ']') {
      return InvalidArgumentError(where_ + ": section header must end with ']'");
    }
    std::string name = NormalizeHeader(text.substr(1, text.size() - 2));
    if (name.empty()) return InvalidArgumentError(where_ + ": empty section name");
    section_ = &file_[name];  // a repeated section merges into the first
    key_.clear();
    return OkStatus();
  }

  // An indented line continues the last property: sub-properties when that
  // property's value was empty, else more lines of its value.
  Status Continuation(std::string_view raw) {
    if (key_.empty()) {
      return InvalidArgumentError(where_ + ": indented line without a property above it");
    }
    std::string& parent = (*section_)[key_];
    if (!parent.empty()) {
      parent += '\n';
      parent += Trim(raw);
      return OkStatus();
    }
    DC_ASSIGN_OR_RETURN(KeyValue kv, ParseProperty(raw, where_));
    (*section_)[key_ + "." + kv.key] = std::move(kv.value);
    return OkStatus();
  }

  std::string path_;
  std::string where_;
  IniFile file_;
  IniSection* section_ = nullptr;
  std::string key_;  // last property of the current section
};

// nullopt when the file does not exist.
StatusOr<std::optional<std::string>> ReadFile(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (f == nullptr) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return std::optional<std::string>();
    std::string message = "cannot read " + path + ": " + std::generic_category().message(err);
    if (err == EACCES || err == EPERM) return PermissionDeniedError(std::move(message));
    return InvalidArgumentError(std::move(message));
  }
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  if (std::ferror(f.get())) {
    return InvalidArgumentError("cannot read " + path + ": " +
                                std::generic_category().message(errno));
  }
  return std::optional<std::string>(std::move(text));
}

StatusOr<IniFile> LoadIni(const std::string& path) {
  if (path.empty()) return IniFile();
  DC_ASSIGN_OR_RETURN(std::optional<std::string> text, ReadFile(path));
  if (!text.has_value()) return IniFile();
  return ParseIni(*text, path);
}

void MergeSection(const IniFile& file, const std::string& header, const std::string& path,
                  Profile& profile) {
  auto it = file.find(header);
  if (it == file.end()) return;
  for (const auto& [key, value] : it->second) profile.settings[key] = ProfileSetting{value, path};
  profile.paths.push_back(path);
}

std::string ExpandHome(const std::string& path, const std::string& home) {
  if (path.rfind("~/", 0) == 0 && !home.empty()) return home + path.substr(1);
  return path;
}

}  // namespace

std::optional<std::string> EnvLookup::Get(const std::string& name) const {
  if (vars_ != nullptr) {
    auto it = vars_->find(name);
    if (it == vars_->end() || it->second.empty()) return std::nullopt;
    return it->second;
  }
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::vector<std::string> EnvLookup::All() const {
  std::vector<std::string> out;
  if (vars_ != nullptr) {
    for (const auto& [name, value] : *vars_) out.push_back(name + "=" + value);
    return out;
  }
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

StatusOr<IniFile> ParseIni(std::string_view text, std::string_view path) {
  IniParser parser(path);
  size_t number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (line.empty()) continue;
    DC_RETURN_IF_ERROR(parser.Line(line, number));
  }
  return std::move(parser).Take();
}

ProfileFiles LocateProfileFiles(const EnvLookup& env, const std::string& home_dir) {
  std::string home = home_dir.empty() ? env.Get("HOME").value_or("") : home_dir;
  auto locate = [&](const char* variable, const char* file) {
    if (auto set = env.Get(variable)) return ExpandHome(*set, home);
    return home.empty() ? std::string() : home + "/.aws/" + file;
  };
  return ProfileFiles{locate("AWS_SHARED_CREDENTIALS_FILE", "credentials"),
                      locate("AWS_CONFIG_FILE", "config")};
}

std::string DescribeProfileFiles(const ProfileFiles& files) {
  auto one = [](const std::string& path) {
    return path.empty() ? std::string("(unknown: HOME not set)") : path;
  };
  return "credentials file " + one(files.credentials_path) + ", config file " +
         one(files.config_path);
}

ProfileChoice ChooseProfile(const std::optional<std::string>& option, const EnvLookup& env) {
  if (option.has_value() && !option->empty()) return ProfileChoice{*option, "options"};
  if (auto set = env.Get("AWS_PROFILE")) return ProfileChoice{*set, "AWS_PROFILE"};
  return ProfileChoice{"default", "default"};
}

const ProfileSetting* Profile::Find(const std::string& key) const {
  auto it = settings.find(key);
  return it == settings.end() ? nullptr : &it->second;
}

StatusOr<std::optional<Profile>> LoadProfile(const ProfileFiles& files, const std::string& name) {
  DC_ASSIGN_OR_RETURN(IniFile config, LoadIni(files.config_path));
  DC_ASSIGN_OR_RETURN(IniFile credentials, LoadIni(files.credentials_path));
  Profile profile{name, {}, {}};
  if (name == "default") {
    // [profile default] replaces [default] entirely, as in the SDKs.
    bool prefixed = config.contains("profile default");
    MergeSection(config, prefixed ? "profile default" : "default", files.config_path, profile);
  } else {
    MergeSection(config, "profile " + name, files.config_path, profile);
  }
  // Applied last: credentials-file values win over config-file values.
  MergeSection(credentials, name, files.credentials_path, profile);
  if (profile.paths.empty()) return std::optional<Profile>();
  return std::optional<Profile>(std::move(profile));
}

StatusOr<std::optional<Profile>> LoadChosenProfile(const ProfileFiles& files,
                                                   const ProfileChoice& choice) {
  DC_ASSIGN_OR_RETURN(std::optional<Profile> profile, LoadProfile(files, choice.name));
  if (!profile.has_value() && choice.IsExplicit()) {
    return InvalidArgumentError("profile \"" + choice.name + "\" (from " + choice.chosen_by +
                                ") not found in " + DescribeProfileFiles(files) +
                                " (looked for [" + choice.name + "] and [profile " +
                                choice.name + "])");
  }
  return profile;
}

}  // namespace deltacommit::aws::internal
