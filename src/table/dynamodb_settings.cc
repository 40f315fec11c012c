#include "deltacommit/table/dynamodb_settings.h"

#include <charconv>
#include <cstdlib>

#include "deltacommit/core/ascii.h"
#include "deltacommit/table/aws_storage_options.h"

namespace deltacommit {
namespace {

// A Spark key under either prefix, e.g. "ddb.tablename".
std::optional<std::string> SparkKey(const std::map<std::string, std::string>& options,
                                    const std::string& suffix) {
  for (const char* prefix :
       {"io.delta.storage.s3dynamodblogstore.", "spark.io.delta.storage.s3dynamodblogstore."}) {
    auto it = options.find(prefix + suffix);
    if (it != options.end()) return it->second;
  }
  return std::nullopt;
}

std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

StatusOr<int64_t> Positive(const std::string& key, const std::string& text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) {
    return InvalidArgumentError(key + "=\"" + text + "\": expected a positive integer");
  }
  return value;
}

StatusOr<bool> AutoCreate(const std::map<std::string, std::string>& options) {
  auto it = options.find("deltacommit.dynamodb.autocreate");
  if (it == options.end()) return false;
  const std::string v = AsciiLower(it->second);
  if (v == "true") return true;
  if (v == "false") return false;
  return InvalidArgumentError(std::string(kAutoCreateOption) + "=\"" + it->second +
                              "\": expected true or false");
}

// AWS_ACCESS_KEY_ID_DYNAMODB & co. (delta-rs): DynamoDB's own credentials.
StatusOr<std::optional<aws::Credentials>> DynamoDbCredentials() {
  auto key = Env("AWS_ACCESS_KEY_ID_DYNAMODB");
  auto secret = Env("AWS_SECRET_ACCESS_KEY_DYNAMODB");
  if (!key && !secret) return std::optional<aws::Credentials>();
  if (!key || !secret) {
    return InvalidArgumentError(
        std::string(key ? "AWS_SECRET_ACCESS_KEY_DYNAMODB" : "AWS_ACCESS_KEY_ID_DYNAMODB") +
        " is not set but its pair is: set both or neither");
  }
  aws::Credentials c;
  c.access_key_id = *key;
  c.secret_access_key = *secret;
  c.session_token = Env("AWS_SESSION_TOKEN_DYNAMODB").value_or("");
  c.source = "environment (AWS_ACCESS_KEY_ID_DYNAMODB)";
  return std::optional<aws::Credentials>(std::move(c));
}

Status ApplyBilling(const std::map<std::string, std::string>& o, DynamoDbSettings& s) {
  std::string mode = Env("DELTA_DYNAMO_BILLING_MODE").value_or("");
  auto rcu = SparkKey(o, "provisionedthroughput.rcu");
  auto wcu = SparkKey(o, "provisionedthroughput.wcu");
  if (rcu) {
    DC_ASSIGN_OR_RETURN(s.rcu, Positive("provisionedThroughput.rcu", *rcu));
  }
  if (wcu) {
    DC_ASSIGN_OR_RETURN(s.wcu, Positive("provisionedThroughput.wcu", *wcu));
  }
  if (mode.empty()) {
    s.provisioned = rcu.has_value() || wcu.has_value();  // Spark's keys imply it
  } else if (mode == "PROVISIONED" || mode == "provisioned") {
    s.provisioned = true;
  } else if (mode != "PAY_PER_REQUEST" && mode != "pay_per_request") {
    return InvalidArgumentError("DELTA_DYNAMO_BILLING_MODE=\"" + mode +
                                "\": expected PAY_PER_REQUEST or PROVISIONED");
  }
  return OkStatus();
}

}  // namespace

StatusOr<DynamoDbSettings> ResolveDynamoDbSettings(const std::map<std::string, std::string>& o) {
  DynamoDbSettings s;
  // Spark's key, else delta-rs's (a storage option, else the environment).
  std::optional<std::string> delta_rs_name = Env("DELTA_DYNAMO_TABLE_NAME");
  if (auto it = o.find("delta_dynamo_table_name"); it != o.end()) delta_rs_name = it->second;
  s.table_name = SparkKey(o, "ddb.tablename").value_or(delta_rs_name.value_or(s.table_name));
  if (auto ttl = SparkKey(o, "ddb.ttl")) {
    // Spark writes "86400s" as well as "86400".
    std::string t = *ttl;
    if (!t.empty() && t.back() == 's') t.pop_back();
    DC_ASSIGN_OR_RETURN(s.ttl_seconds, Positive("ddb.ttl", t));
  }
  if (auto provider = SparkKey(o, "credentials.provider");
      provider && *provider != "com.amazonaws.auth.DefaultAWSCredentialsProviderChain" &&
      *provider != "default") {
    return InvalidArgumentError("credentials.provider=\"" + *provider +
                                "\": only the default chain is supported (environment, "
                                "profiles, credential_process; or AWS_*_DYNAMODB variables)");
  }
  DC_RETURN_IF_ERROR(ApplyBilling(o, s));
  DC_ASSIGN_OR_RETURN(s.auto_create, AutoCreate(o));
  // Region and plain http as for S3 (delta-rs's storage options), unless
  // DynamoDB has its own.
  DC_ASSIGN_OR_RETURN(AwsStorageOptions aws, ReadAwsStorageOptions({}, o));
  aws::AwsConfigOverrides overrides;
  overrides.allow_http = aws.s3.allow_http;
  overrides.profile = aws.s3.profile;
  if (auto region = SparkKey(o, "ddb.region"))
    overrides.region = *region;
  else if (auto env = Env("AWS_REGION_DYNAMODB"))
    overrides.region = *env;
  else
    overrides.region = aws.s3.region;
  if (auto it = o.find("aws_endpoint_url_dynamodb"); it != o.end())
    overrides.endpoint_url = it->second;
  DC_ASSIGN_OR_RETURN(s.service, aws::ResolveServiceConfig("dynamodb", overrides));
  DC_ASSIGN_OR_RETURN(s.credentials, DynamoDbCredentials());
  return s;
}

}  // namespace deltacommit
