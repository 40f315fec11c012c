#include "deltacommit/table/aws_storage_options.h"

#include <initializer_list>
#include <utility>

#include "deltacommit/core/ascii.h"

namespace deltacommit {
namespace {

using Storage = std::map<std::string, std::string>;

// The first of `keys` present in `storage`: (key, value).
std::optional<std::pair<std::string, std::string>> First(const Storage& storage,
                                                         std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (auto it = storage.find(key); it != storage.end()) return *it;
  }
  return std::nullopt;
}

StatusOr<std::optional<bool>> Bool(const Storage& storage,
                                   std::initializer_list<const char*> keys) {
  auto found = First(storage, keys);
  if (!found) return std::optional<bool>();
  const std::string v = AsciiLower(found->second);
  if (v == "true" || v == "1") return std::optional<bool>(true);
  if (v == "false" || v == "0") return std::optional<bool>(false);
  return InvalidArgumentError("storage option " + found->first + "=\"" + found->second +
                              "\": expected true or false");
}

StatusOr<std::optional<aws::Credentials>> Credentials(const Storage& storage) {
  auto key = First(storage, {"aws_access_key_id", "access_key_id"});
  auto secret = First(storage, {"aws_secret_access_key", "secret_access_key"});
  if (!key && !secret) return std::optional<aws::Credentials>();
  if (!key || !secret) {
    return InvalidArgumentError(std::string("storage option ") +
                                (key ? "aws_secret_access_key" : "aws_access_key_id") +
                                " is missing while its pair is given: give both or neither");
  }
  aws::Credentials c;
  c.access_key_id = key->second;
  c.secret_access_key = secret->second;
  if (auto token = First(storage, {"aws_session_token", "aws_token", "session_token", "token"})) {
    c.session_token = token->second;
  }
  c.source = "storage options (" + key->first + ")";
  return std::optional<aws::Credentials>(std::move(c));
}

}  // namespace

StatusOr<AwsStorageOptions> ReadAwsStorageOptions(const TableOptions& o, const Storage& storage) {
  AwsStorageOptions out;
  if (!o.region.empty()) {
    out.s3.region = o.region;
  } else if (auto region =
                 First(storage, {"aws_region", "region", "aws_default_region", "default_region"})) {
    out.s3.region = region->second;
  }
  if (!o.endpoint_url.empty()) {
    out.s3.endpoint_url = o.endpoint_url;
  } else if (auto endpoint =
                 First(storage, {"aws_endpoint_url", "aws_endpoint", "endpoint_url", "endpoint"})) {
    out.s3.endpoint_url = endpoint->second;
  }
  if (!o.profile.empty()) {
    out.s3.profile = o.profile;
  } else if (auto profile = First(storage, {"aws_profile", "profile"})) {
    out.s3.profile = profile->second;
  }
  DC_ASSIGN_OR_RETURN(out.s3.allow_http, Bool(storage, {"aws_allow_http", "allow_http"}));
  DC_ASSIGN_OR_RETURN(
      std::optional<bool> virtual_hosted,
      Bool(storage, {"aws_virtual_hosted_style_request", "virtual_hosted_style_request"}));
  if (virtual_hosted) out.s3.path_style = !*virtual_hosted;
  DC_ASSIGN_OR_RETURN(out.credentials, Credentials(storage));
  return out;
}

aws::CredentialsOptions ChainOptions(const AwsStorageOptions& aws) {
  aws::CredentialsOptions chain;
  chain.profile = aws.s3.profile;
  chain.explicit_credentials = aws.credentials;
  return chain;
}

}  // namespace deltacommit
