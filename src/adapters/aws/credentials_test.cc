#include "deltacommit/aws/credentials.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/testing/fake_clock.h"

namespace deltacommit::aws {
namespace {

using internal::FormatUtc;
using internal::ParseIso8601;

// 2026-11-29T10:00:00Z.
constexpr int64_t kTen = 1'795'946'400'000;
constexpr int64_t kMinute = 60'000;

// Secrets are compared without gtest printing them on failure.
bool Same(const std::string& a, const std::string& b) { return a == b; }
bool Mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "dc_credentials_XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

  std::string Write(const std::string& name, const std::string& text, bool executable = false) {
    std::string file = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::ofstream(file, std::ios::binary) << text;
    if (executable) ::chmod(file.c_str(), 0755);
    return file;
  }

  std::string Read(const std::string& name) const {
    std::ifstream in(path_ + "/" + name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  std::string path_;
};

class CredentialsTest : public ::testing::Test {
 protected:
  CredentialsTest() : clock_(kTen - 60 * kMinute) {
    env_ = {{"HOME", home_.path()}, {"PATH", "/usr/bin:/bin"}};
  }

  std::unique_ptr<CredentialsProvider> Chain() {
    CredentialsOptions options;
    options.environment = &env_;
    options.profile = profile_;
    options.credential_process_timeout = std::chrono::milliseconds(2000);
    return DefaultCredentialsChain(options, clock_);
  }

  void WriteCredentials(const std::string& text) { home_.Write(".aws/credentials", text); }
  void WriteConfig(const std::string& text) { home_.Write(".aws/config", text); }

  // A credential_process script in its own directory; `body` is shell.
  std::string Script(const std::string& body) {
    return scripts_.Write("process" + std::to_string(++scripts_written_) + ".sh",
                          "#!/bin/sh\n" + body, /*executable=*/true);
  }
  void UseProcess(const std::string& script, const std::string& profile = "dev") {
    WriteConfig("[profile " + profile + "]\ncredential_process = " + script + "\n");
    profile_ = profile;
  }

  static std::string ProcessJson(const std::string& key_id, const std::string& expiration) {
    return "{\"Version\": 1, \"AccessKeyId\": \"" + key_id +
           "\", \"SecretAccessKey\": \"process-secret\", \"SessionToken\": \"process-token\"" +
           (expiration.empty() ? "" : ", \"Expiration\": \"" + expiration + "\"") + "}";
  }

  TempDir home_;
  TempDir scripts_;
  int scripts_written_ = 0;
  std::map<std::string, std::string> env_;
  std::optional<std::string> profile_;
  FakeClock clock_;
};

// ---- Credentials, CheckNotExpired, time text ---------------------------------

TEST(CredentialsValueTest, RedactedKeyIdShowsOnlyFirstAndLastFour) {
  Credentials c{"AKIAIOSFODNN7EXAMPLE", "s", "", std::nullopt, "test"};
  EXPECT_EQ(c.RedactedKeyId(), "AKIA\u2026MPLE");
  c.access_key_id = "SHORTKEY";
  EXPECT_EQ(c.RedactedKeyId(), "\u2026");
}

TEST(CredentialsValueTest, CheckNotExpiredNamesSourceExpiryAndNow) {
  Credentials c{"AKIAIOSFODNN7EXAMPLE", "hidden", "", kTen, "environment (AWS_ACCESS_KEY_ID)"};
  EXPECT_TRUE(CheckNotExpired(c, kTen - 1).ok());
  Status s = CheckNotExpired(c, kTen + 5 * kMinute);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(s.message(),
                       "credentials from environment (AWS_ACCESS_KEY_ID) expired at "
                       "2026-11-29T10:00:00Z (now 2026-11-29T10:05:00Z): refresh them"))
      << s.message();
  EXPECT_FALSE(Mentions(s.message(), "hidden"));
  c.expiration_ms.reset();
  EXPECT_TRUE(CheckNotExpired(c, kTen * 2).ok());
}

TEST(CredentialsValueTest, ParsesIso8601ZoneFormsAndFractions) {
  EXPECT_EQ(ParseIso8601("2026-11-29T10:00:00Z"), kTen);
  EXPECT_EQ(ParseIso8601("2026-11-29t10:00:00z"), kTen);
  EXPECT_EQ(ParseIso8601("2026-11-29T10:00:00.250Z"), kTen + 250);
  EXPECT_EQ(ParseIso8601("2026-11-29T10:00:00.123456789Z"), kTen + 123);
  EXPECT_EQ(ParseIso8601("2026-11-29T11:30:00+01:30"), kTen);
  EXPECT_EQ(ParseIso8601("2026-11-29T08:00:00-0200"), kTen);
  EXPECT_EQ(ParseIso8601("2026-11-29 10:00:00Z"), kTen);
}

TEST(CredentialsValueTest, RejectsMalformedIso8601) {
  for (const char* bad : {"", "2026-11-29T10:00:00", "2026-02-30T10:00:00Z",
                          "2026-11-29T24:00:00Z", "2026-11-29T10:00Z", "tomorrow",
                          "2026-11-29T10:00:00Zjunk", "2026-11-29T10:00:00.Z"}) {
    EXPECT_FALSE(ParseIso8601(bad).has_value()) << bad;
  }
}

TEST(CredentialsValueTest, FormatsUtcToSeconds) {
  EXPECT_EQ(FormatUtc(kTen), "2026-11-29T10:00:00Z");
  EXPECT_EQ(FormatUtc(kTen + 5 * kMinute + 999), "2026-11-29T10:05:00Z");
  EXPECT_EQ(FormatUtc(0), "1970-01-01T00:00:00Z");
}

// ---- static and explicit ----------------------------------------------------

TEST(StaticProviderTest, ReturnsCredentialsUntilTheyExpireThenRefusesBeforeSending) {
  FakeClock clock(kTen - kMinute);
  auto provider = StaticCredentialsProvider(
      Credentials{"AKIAIOSFODNN7EXAMPLE", "static-secret", "tok", kTen, "request"}, clock);
  StatusOr<Credentials> got = provider->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(Same(got->secret_access_key, "static-secret"));
  clock.Advance(std::chrono::minutes(5));
  got = provider->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(), "credentials from request expired at"));
  EXPECT_FALSE(Mentions(got.status().message(), "static-secret"));
}

TEST_F(CredentialsTest, ExplicitCredentialsWinOverEnvironment) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT00001";
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  CredentialsOptions options;
  options.environment = &env_;
  options.explicit_credentials = Credentials{"AKIDEXPLICIT00000001", "explicit-secret", "", {}, ""};
  StatusOr<Credentials> got = DefaultCredentialsChain(options, clock_)->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDEXPLICIT00000001");
  EXPECT_EQ(got->source, "explicit options");
}

TEST_F(CredentialsTest, ExplicitKeyWithoutSecretIsInvalid) {
  CredentialsOptions options;
  options.environment = &env_;
  options.explicit_credentials = Credentials{"AKIDEXPLICIT00000001", "", "", {}, ""};
  StatusOr<Credentials> got = DefaultCredentialsChain(options, clock_)->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
}

// ---- environment --------------------------------------------------------------

TEST_F(CredentialsTest, EnvironmentCredentialsWithSessionToken) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT00001";
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  env_["AWS_SESSION_TOKEN"] = "env-token";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDENVIRONMENT00001");
  EXPECT_TRUE(Same(got->secret_access_key, "env-secret"));
  EXPECT_TRUE(Same(got->session_token, "env-token"));
  EXPECT_FALSE(got->expiration_ms.has_value());
  EXPECT_EQ(got->source, "environment (AWS_ACCESS_KEY_ID)");
}

TEST_F(CredentialsTest, EnvironmentKeyWithoutSecretNamesTheMissingVariable) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT00001";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "AWS_SECRET_ACCESS_KEY is not"))
      << got.status().message();

  env_.erase("AWS_ACCESS_KEY_ID");
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "AWS_ACCESS_KEY_ID is not"));
  EXPECT_FALSE(Mentions(got.status().message(), "env-secret"));
}

TEST_F(CredentialsTest, ExpiredEnvironmentCredentialsAreRefusedBeforeSending) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT00001";
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  env_["AWS_CREDENTIAL_EXPIRATION"] = "2026-11-29T10:00:00Z";
  auto chain = Chain();
  StatusOr<Credentials> got = chain->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->expiration_ms, kTen);

  clock_.SetMillis(kTen + 5 * kMinute);
  got = chain->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(),
                       "credentials from environment (AWS_ACCESS_KEY_ID) expired at "
                       "2026-11-29T10:00:00Z (now 2026-11-29T10:05:00Z): refresh them"))
      << got.status().message();
}

TEST_F(CredentialsTest, MalformedEnvironmentExpirationIsInvalid) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT00001";
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  env_["AWS_CREDENTIAL_EXPIRATION"] = "next tuesday";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "AWS_CREDENTIAL_EXPIRATION"));
}

TEST_F(CredentialsTest, EnvironmentWinsOverProfileFiles) {
  WriteCredentials("[default]\naws_access_key_id = AKIDFILE000000000001\n"
                   "aws_secret_access_key = file-secret\n");
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT00001";
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDENVIRONMENT00001");
}

// ---- shared files -------------------------------------------------------------

TEST_F(CredentialsTest, DefaultProfileFromCredentialsFile) {
  WriteCredentials("# keys\n[default]\naws_access_key_id = AKIDFILE000000000001\n"
                   "aws_secret_access_key = file-secret\naws_session_token = file-token\n");
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDFILE000000000001");
  EXPECT_TRUE(Same(got->secret_access_key, "file-secret"));
  EXPECT_TRUE(Same(got->session_token, "file-token"));
  EXPECT_EQ(got->source, "profile \"default\" in " + home_.path() + "/.aws/credentials");
}

TEST_F(CredentialsTest, AwsProfileSelectsSectionsInBothFiles) {
  WriteCredentials("[default]\naws_access_key_id = AKIDDEFAULT000000001\n"
                   "aws_secret_access_key = default-secret\n");
  WriteConfig("[default]\nregion = us-east-1\n[profile dev]\n"
              "aws_access_key_id = AKIDDEV0000000000001\naws_secret_access_key = dev-secret\n");
  env_["AWS_PROFILE"] = "dev";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDDEV0000000000001");
  EXPECT_EQ(got->source, "profile \"dev\" in " + home_.path() + "/.aws/config");
}

TEST_F(CredentialsTest, ProfileOptionWinsOverAwsProfile) {
  WriteCredentials("[a]\naws_access_key_id = AKIDPROFILEA00000001\naws_secret_access_key = a\n"
                   "[b]\naws_access_key_id = AKIDPROFILEB00000001\naws_secret_access_key = b\n");
  env_["AWS_PROFILE"] = "a";
  profile_ = "b";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDPROFILEB00000001");
}

TEST_F(CredentialsTest, CredentialsFileWinsOverConfigFileForTheSameProfile) {
  WriteConfig("[profile dev]\naws_access_key_id = AKIDCONFIG0000000001\n"
              "aws_secret_access_key = config-secret\n");
  WriteCredentials("[dev]\naws_access_key_id = AKIDCREDENTIALS00001\n"
                   "aws_secret_access_key = credentials-secret\n");
  profile_ = "dev";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDCREDENTIALS00001");
  EXPECT_TRUE(Same(got->secret_access_key, "credentials-secret"));
}

TEST_F(CredentialsTest, FileLocationVariablesOverrideHome) {
  TempDir elsewhere;
  env_["AWS_SHARED_CREDENTIALS_FILE"] =
      elsewhere.Write("creds", "[default]\naws_access_key_id = AKIDELSEWHERE0000001\n"
                               "aws_secret_access_key = elsewhere-secret\n");
  env_["AWS_CONFIG_FILE"] = elsewhere.path() + "/missing-config";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDELSEWHERE0000001");
}

TEST_F(CredentialsTest, MissingProfileAskedForByNameNamesProfileAndFiles) {
  WriteCredentials("[default]\naws_access_key_id = AKIDFILE000000000001\n"
                   "aws_secret_access_key = file-secret\n");
  env_["AWS_PROFILE"] = "prod";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = got.status().message();
  EXPECT_TRUE(Mentions(m, "profile \"prod\" (from AWS_PROFILE) not found")) << m;
  EXPECT_TRUE(Mentions(m, home_.path() + "/.aws/credentials")) << m;
  EXPECT_TRUE(Mentions(m, home_.path() + "/.aws/config")) << m;
}

TEST_F(CredentialsTest, NoCredentialsAnywhereListsWhatWasTried) {
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  const std::string& m = got.status().message();
  EXPECT_TRUE(Mentions(m, "no AWS credentials found")) << m;
  EXPECT_TRUE(Mentions(m, "AWS_ACCESS_KEY_ID")) << m;
  EXPECT_TRUE(Mentions(m, "profile \"default\"")) << m;
  EXPECT_TRUE(Mentions(m, home_.path() + "/.aws/credentials")) << m;
  EXPECT_TRUE(Mentions(m, home_.path() + "/.aws/config")) << m;
}

TEST_F(CredentialsTest, NoHomeAndNoFileVariablesSaysSo) {
  env_.erase("HOME");
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(), "HOME not set")) << got.status().message();
}

TEST_F(CredentialsTest, ProfileKeyWithoutSecretIsInvalid) {
  WriteCredentials("[default]\naws_access_key_id = AKIDFILE000000000001\n");
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "profile \"default\""));
}

TEST_F(CredentialsTest, MalformedFileNamesPathAndLineButNotTheLine) {
  WriteCredentials("[default]\naws_access_key_id = AKIDFILE000000000001\n"
                   "this line has the secret file-secret and no equals sign\n");
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), home_.path() + "/.aws/credentials line 3"))
      << got.status().message();
  EXPECT_FALSE(Mentions(got.status().message(), "file-secret"));
}

// ---- INI details ----------------------------------------------------------------

TEST(ParseIniTest, CommentsWhitespaceAndKeyCase) {
  StatusOr<internal::IniFile> ini = internal::ParseIni(
      "; leading comment\r\n"
      "# another\n"
      "[default]  # comment after header\n"
      "AWS_Access_Key_Id=AKIDFILE000000000001\n"
      "aws_secret_access_key \t=\t abc#def ; trailing comment\n"
      "  \n"
      "[profile   dev]\n"
      "region = eu-west-1\n"
      "s3 =\n"
      "  addressing_style = path\n"
      "  Max_Concurrent_Requests = 20\n"
      "[default]\n"
      "region = us-west-2\n",
      "test-file");
  ASSERT_TRUE(ini.ok()) << ini.status().ToString();
  const internal::IniSection& def = ini->at("default");
  EXPECT_EQ(def.at("aws_access_key_id"), "AKIDFILE000000000001");
  EXPECT_TRUE(Same(def.at("aws_secret_access_key"), "abc#def"));
  EXPECT_EQ(def.at("region"), "us-west-2");  // repeated section merged
  const internal::IniSection& dev = ini->at("profile dev");
  EXPECT_EQ(dev.at("region"), "eu-west-1");
  EXPECT_EQ(dev.at("s3.addressing_style"), "path");
  EXPECT_EQ(dev.at("s3.max_concurrent_requests"), "20");
}

TEST(ParseIniTest, RejectsPropertyBeforeSectionAndBadHeaders) {
  EXPECT_EQ(internal::ParseIni("key = value\n", "f").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(internal::ParseIni("[default\n", "f").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(internal::ParseIni("[default]\n= value\n", "f").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(internal::ParseIni("[default]\n  indented = first\n", "f").status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(CredentialsTest, PrefixedDefaultReplacesBareDefaultInConfig) {
  WriteConfig("[default]\naws_access_key_id = AKIDBARE000000000001\naws_secret_access_key = a\n"
              "[profile default]\naws_access_key_id = AKIDPREFIXED00000001\n"
              "aws_secret_access_key = b\n");
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDPREFIXED00000001");
}

// ---- credential_process ---------------------------------------------------------

TEST_F(CredentialsTest, CredentialProcessOutputIsParsed) {
  UseProcess(Script("cat <<'EOF'\n" + ProcessJson("AKIDPROCESS000000001", "2026-11-29T10:00:00Z") +
                    "\nEOF\n"));
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDPROCESS000000001");
  EXPECT_TRUE(Same(got->secret_access_key, "process-secret"));
  EXPECT_TRUE(Same(got->session_token, "process-token"));
  EXPECT_EQ(got->expiration_ms, kTen);
  EXPECT_EQ(got->source, "credential_process of profile \"dev\"");
}

TEST_F(CredentialsTest, StaticKeysInProfileWinOverCredentialProcess) {
  std::string script = Script("exit 7\n");
  WriteConfig("[profile dev]\ncredential_process = " + script +
              "\naws_access_key_id = AKIDSTATIC0000000001\naws_secret_access_key = s\n");
  profile_ = "dev";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDSTATIC0000000001");
}

TEST_F(CredentialsTest, CredentialProcessSeesTheInjectedEnvironmentOnly) {
  env_["DC_TEST_MARKER"] = "AKIDFROMINJECTEDENV1";
  UseProcess(Script("printf '{\"Version\":1,\"AccessKeyId\":\"%s\",\"SecretAccessKey\":\"x\"}' "
                    "\"$DC_TEST_MARKER\"\n"));
  StatusOr<Credentials> got = Chain()->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDFROMINJECTEDENV1");
  EXPECT_FALSE(got->expiration_ms.has_value());
}

TEST_F(CredentialsTest, CredentialProcessBadJsonSaysSoWithoutEchoingOutput) {
  UseProcess(Script("echo '{\"Version\": 1, \"SecretAccessKey\": \"leaked-secret\"'\n"));
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  const std::string& m = got.status().message();
  EXPECT_TRUE(Mentions(m, "credential_process of profile \"dev\"")) << m;
  EXPECT_TRUE(Mentions(m, "not a JSON object")) << m;
  EXPECT_FALSE(Mentions(m, "leaked-secret"));
}

TEST_F(CredentialsTest, CredentialProcessVersion2IsRefused) {
  UseProcess(Script("echo '{\"Version\": 2, \"AccessKeyId\": \"AKIDPROCESS000000001\", "
                    "\"SecretAccessKey\": \"leaked-secret\"}'\n"));
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(), "Version 2; only Version 1 is supported"))
      << got.status().message();
  EXPECT_FALSE(Mentions(got.status().message(), "leaked-secret"));
}

TEST_F(CredentialsTest, CredentialProcessMissingSecretNamesTheField) {
  UseProcess(Script("echo '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROCESS000000001\"}'\n"));
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(), "no SecretAccessKey")) << got.status().message();
}

TEST_F(CredentialsTest, CredentialProcessNonZeroExitReportsStatusAndStderr) {
  UseProcess(Script("echo '" + ProcessJson("AKIDPROCESS000000001", "") +
                    "'\necho 'token service unreachable' >&2\nexit 3\n"));
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  const std::string& m = got.status().message();
  EXPECT_TRUE(Mentions(m, "exited with status 3")) << m;
  EXPECT_TRUE(Mentions(m, "token service unreachable")) << m;
  EXPECT_FALSE(Mentions(m, "process-secret"));
}

TEST_F(CredentialsTest, CredentialProcessPastTheTimeoutIsKilled) {
  UseProcess(Script("sleep 30\necho '" + ProcessJson("AKIDPROCESS000000001", "") + "'\n"));
  auto start = std::chrono::steady_clock::now();
  CredentialsOptions options;
  options.environment = &env_;
  options.profile = profile_;
  options.credential_process_timeout = std::chrono::milliseconds(300);
  StatusOr<Credentials> got = DefaultCredentialsChain(options, clock_)->GetCredentials();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(), "did not finish within 300 ms"))
      << got.status().message();
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST_F(CredentialsTest, CredentialProcessReturningExpiredCredentialsIsRefused) {
  UseProcess(Script("echo '" + ProcessJson("AKIDPROCESS000000001", "2026-11-29T10:00:00Z") +
                    "'\n"));
  clock_.SetMillis(kTen + 5 * kMinute);
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(),
                       "credentials from credential_process of profile \"dev\" expired at "
                       "2026-11-29T10:00:00Z (now 2026-11-29T10:05:00Z)"))
      << got.status().message();
}

TEST_F(CredentialsTest, CredentialProcessMalformedExpirationIsRefused) {
  UseProcess(Script("echo '" + ProcessJson("AKIDPROCESS000000001", "soon") + "'\n"));
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(), "Expiration \"soon\" is not an ISO 8601 time"))
      << got.status().message();
}

TEST_F(CredentialsTest, EmptyCredentialProcessIsInvalid) {
  WriteConfig("[profile dev]\ncredential_process =\n");
  profile_ = "dev";
  StatusOr<Credentials> got = Chain()->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "credential_process is empty"));
}

// Each run bumps a counter and hands out credentials that expire at
// (9 + run):00, so run 1 expires at 10:00 and run 2 at 11:00.
std::string CountingScript(const std::string& dir) {
  return "n=$(cat " + dir + "/count 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > " + dir +
         "/count\n[ -f " + dir + "/fail ] && exit 1\n[ -f " + dir +
         "/slow ] && sleep 0.3\n"
         "printf '{\"Version\":1,\"AccessKeyId\":\"AKIDRUN%013d\",\"SecretAccessKey\":\"s%d\","
         "\"Expiration\":\"2026-11-29T%02d:00:00Z\"}' $n $n $((9+n))\n";
}

TEST_F(CredentialsTest, CredentialProcessIsCachedAndRerunBeforeExpiry) {
  UseProcess(Script(CountingScript(scripts_.path())));
  auto chain = Chain();  // refresh 5 minutes before expiry
  clock_.SetMillis(kTen - 60 * kMinute);
  StatusOr<Credentials> got = chain->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDRUN0000000000001");
  ASSERT_TRUE(chain->GetCredentials().ok());
  clock_.SetMillis(kTen - 6 * kMinute);
  ASSERT_TRUE(chain->GetCredentials().ok());
  EXPECT_EQ(scripts_.Read("count"), "1\n");

  clock_.SetMillis(kTen - 4 * kMinute);  // inside the refresh window
  got = chain->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDRUN0000000000002");
  EXPECT_EQ(got->expiration_ms, kTen + 60 * kMinute);
  EXPECT_EQ(scripts_.Read("count"), "2\n");
}

TEST_F(CredentialsTest, ConcurrentCallersInTheRefreshWindowRunTheProcessOnce) {
  UseProcess(Script(CountingScript(scripts_.path())));
  auto chain = Chain();
  ASSERT_TRUE(chain->GetCredentials().ok());
  scripts_.Write("slow", "");
  clock_.SetMillis(kTen - 2 * kMinute);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (chain->GetCredentials().ok()) ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(scripts_.Read("count"), "2\n");
  EXPECT_EQ(chain->GetCredentials()->access_key_id, "AKIDRUN0000000000002");
}

TEST_F(CredentialsTest, FailedRefreshKeepsValidCredentialsUntilTheyExpire) {
  UseProcess(Script(CountingScript(scripts_.path())));
  auto chain = Chain();
  ASSERT_TRUE(chain->GetCredentials().ok());
  scripts_.Write("fail", "");
  clock_.SetMillis(kTen - 2 * kMinute);
  StatusOr<Credentials> got = chain->GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "AKIDRUN0000000000001");

  clock_.SetMillis(kTen);
  got = chain->GetCredentials();
  EXPECT_EQ(got.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(Mentions(got.status().message(), "exited with status 1")) << got.status().message();
}

}  // namespace
}  // namespace deltacommit::aws
