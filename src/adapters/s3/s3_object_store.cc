#include "deltacommit/s3/s3_object_store.h"

#include <random>

#include "deltacommit/aws/sigv4.h"
#include "deltacommit/s3/s3_xml.h"

namespace deltacommit {
namespace {

std::mt19937_64& ThreadRng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// A store that refused a write before applying it (throttling, a concurrent
// conditional write) can be retried even for non-idempotent writes.
bool RejectedBeforeApplied(const aws::HttpResponse& r) {
  if (aws::IsRejectedBeforeApplied(r)) return true;
  return r.status == 409 && aws::ParseXmlError(r).code == "ConditionalRequestConflict";
}

}  // namespace

S3ObjectStore::S3ObjectStore(S3StoreConfig config, aws::HttpClient& http,
                             aws::CredentialsProvider& credentials, Clock& clock, Sleeper& sleeper)
    : config_(std::move(config)),
      http_(http),
      credentials_(credentials),
      clock_(clock),
      sleeper_(sleeper) {}

std::string S3ObjectStore::Describe() const {
  std::string out = "s3://" + config_.bucket;
  if (!config_.key_prefix.empty()) out += "/" + config_.key_prefix;
  return out;
}

std::string S3ObjectStore::FullKey(std::string_view key) const {
  if (config_.key_prefix.empty()) return std::string(key);
  return config_.key_prefix + "/" + std::string(key);
}

std::string S3ObjectStore::Url(const std::string& object_key, const std::string& query) const {
  const std::string& endpoint = config_.service.endpoint_url;
  std::string url;
  if (config_.service.path_style) {
    url = endpoint + "/" + config_.bucket;
  } else {
    const size_t host_at = endpoint.find("://") + 3;
    url = endpoint.substr(0, host_at) + config_.bucket + "." + endpoint.substr(host_at);
  }
  url += "/" + aws::UriEncode(object_key, /*encode_slash=*/false);
  if (!query.empty()) url += "?" + query;
  return url;
}

StatusOr<aws::HttpResponse> S3ObjectStore::Send(const Call& call, Signer* signer) {
  auto build = [&]() -> StatusOr<aws::HttpRequest> {
    DC_ASSIGN_OR_RETURN(aws::Credentials creds, credentials_.GetCredentials());
    DC_RETURN_IF_ERROR(aws::CheckNotExpired(creds, clock_.NowMillis()));
    signer->credentials = creds;
    aws::HttpRequest request;
    request.method = call.method;
    request.url = Url(call.object_key, call.query);
    request.headers = call.headers;
    request.body = call.body;
    aws::SigningParams params;
    params.region = config_.service.region;
    params.service = "s3";
    params.now_ms = clock_.NowMillis();
    aws::SignRequest(request, creds, params);
    return request;
  };
  auto retryable = [&](const aws::HttpResponse& r) {
    return call.idempotent ? aws::IsTransientResponse(r) || RejectedBeforeApplied(r)
                           : RejectedBeforeApplied(r);
  };
  std::mt19937_64 rng(ThreadRng()());
  auto response =
      aws::SendWithRetry(http_, build, call.idempotent, config_.retry, sleeper_, rng, retryable);
  if (!response.ok()) {
    return response.status().WithContext(
        "S3 " + std::string(call.action) + " s3://" + config_.bucket + "/" +
        (call.resource.empty() ? call.object_key : call.resource));
  }
  return response;
}

Status S3ObjectStore::ErrorFor(const Call& call, const aws::HttpResponse& response,
                               const Signer& signer) const {
  aws::AwsErrorContext context{"S3",
                               call.action,
                               "s3://" + config_.bucket + "/" +
                                   (call.resource.empty() ? call.object_key : call.resource),
                               config_.service.endpoint_url,
                               signer.credentials.source,
                               signer.credentials.RedactedKeyId(),
                               &signer.credentials};
  return aws::ErrorToStatus(aws::ParseXmlError(response), context);
}

StatusOr<aws::HttpResponse> S3ObjectStore::Exchange(const Call& call,
                                                    std::initializer_list<long> ok_statuses) {
  Signer signer;
  DC_ASSIGN_OR_RETURN(aws::HttpResponse response, Send(call, &signer));
  for (long ok : ok_statuses) {
    if (response.status == ok) return response;
  }
  return ErrorFor(call, response, signer);
}

StatusOr<std::string> S3ObjectStore::Get(std::string_view key, std::optional<ByteRange> range) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  Call call{"GetObject", "GET", FullKey(key), "", {}, "", true, {}};
  if (range) {
    if (range->offset < 0 || range->length < 0) {
      return InvalidArgumentError("GetObject " + Describe() + "/" + std::string(key) +
                                  ": negative byte range");
    }
    if (range->length == 0) {  // S3 cannot express an empty range
      DC_RETURN_IF_ERROR(Head(key).status());
      return std::string();
    }
    call.headers.emplace_back("Range", "bytes=" + std::to_string(range->offset) + "-" +
                                           std::to_string(range->offset + range->length - 1));
  }
  // 416: the range starts at or past the end; the port says "shorter at EOF".
  DC_ASSIGN_OR_RETURN(aws::HttpResponse r, Exchange(call, {200, 206, 416}));
  if (r.status == 416) return std::string();
  return std::move(r.body);
}

StatusOr<ObjectMeta> S3ObjectStore::Head(std::string_view key) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  Call call{"HeadObject", "HEAD", FullKey(key), "", {}, "", true, {}};
  DC_ASSIGN_OR_RETURN(aws::HttpResponse r, Exchange(call, {200}));
  ObjectMeta meta;
  meta.key = std::string(key);
  meta.size = std::stoll("0" + r.Header("content-length"));
  meta.last_modified_ms = s3::ParseHttpDateMillis(r.Header("last-modified")).value_or(0);
  return meta;
}

StatusOr<std::vector<ObjectMeta>> S3ObjectStore::ListPage(const std::string& full_prefix,
                                                          const std::string& start_after,
                                                          std::string* continuation) {
  // Query parameters sorted by name, as the canonical request sorts them.
  std::string query;
  if (!continuation->empty()) query += "continuation-token=" + aws::UriEncode(*continuation, true) + "&";
  query += "list-type=2&prefix=" + aws::UriEncode(full_prefix, true);
  if (!start_after.empty()) query += "&start-after=" + aws::UriEncode(start_after, true);
  Call call{"ListObjectsV2", "GET", "", query, {}, "", true, full_prefix};
  DC_ASSIGN_OR_RETURN(aws::HttpResponse r, Exchange(call, {200}));
  DC_ASSIGN_OR_RETURN(s3::ListPage page, s3::ParseListObjectsV2(r.body));
  *continuation = page.next_continuation_token;
  return std::move(page.objects);
}

StatusOr<std::vector<ObjectMeta>> S3ObjectStore::List(std::string_view prefix,
                                                      std::string_view start_after) {
  DC_RETURN_IF_ERROR(ValidateListPrefix(prefix));
  const std::string root = config_.key_prefix.empty() ? "" : config_.key_prefix + "/";
  const std::string full_prefix = root + std::string(prefix);
  const std::string full_start = start_after.empty() ? "" : root + std::string(start_after);
  std::vector<ObjectMeta> out;
  std::string continuation;
  do {
    DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> page, ListPage(full_prefix, full_start, &continuation));
    for (ObjectMeta& m : page) {
      m.key.erase(0, root.size());
      out.push_back(std::move(m));
    }
  } while (!continuation.empty());
  return out;
}

Status S3ObjectStore::PutIfAbsent(std::string_view key, std::string_view data) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  Call call{"PutObject", "PUT", FullKey(key), "", {{"If-None-Match", "*"}}, std::string(data), false, {}};
  auto r = Exchange(call, {200});
  if (!r.ok() && r.status().IsAlreadyExists()) {
    return AlreadyExistsError("s3://" + config_.bucket + "/" + call.object_key + " already exists");
  }
  return r.status();
}

Status S3ObjectStore::Put(std::string_view key, std::string_view data) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  // Writing the same bytes again is harmless, so a plain PUT is idempotent.
  Call call{"PutObject", "PUT", FullKey(key), "", {}, std::string(data), true, {}};
  return Exchange(call, {200}).status();
}

Status S3ObjectStore::Copy(std::string_view src, std::string_view dst, bool if_absent) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(src));
  DC_RETURN_IF_ERROR(ValidateObjectKey(dst));
  if (if_absent) {
    // S3 has no destination condition on CopyObject everywhere: read the
    // source and create the destination with a conditional PUT instead.
    DC_ASSIGN_OR_RETURN(std::string data, Get(src));
    return PutIfAbsent(dst, data);
  }
  const std::string source = "/" + config_.bucket + "/" + aws::UriEncode(FullKey(src), false);
  Call call{"CopyObject", "PUT", FullKey(dst), "", {{"x-amz-copy-source", source}}, "", true, {}};
  Signer signer;
  DC_ASSIGN_OR_RETURN(aws::HttpResponse r, Send(call, &signer));
  // CopyObject may answer 200 with an error document.
  if (r.status != 200 || s3::IsErrorDocument(r.body)) {
    if (r.status == 200) r.status = 500;
    return ErrorFor(call, r, signer);
  }
  return OkStatus();
}

Status S3ObjectStore::Delete(std::string_view key) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  Call call{"DeleteObject", "DELETE", FullKey(key), "", {}, "", true, {}};
  auto r = Exchange(call, {200, 204});
  if (r.status().IsNotFound()) return OkStatus();
  return r.status();
}

}  // namespace deltacommit
