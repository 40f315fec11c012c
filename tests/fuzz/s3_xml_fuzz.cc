// Fuzz target: the XML an S3-compatible store (or its STS) answers, as the
// S3 adapter reads it: ListObjectsV2 pages (s3::ParseListObjectsV2), error
// bodies (aws::ParseXmlError, s3::IsErrorDocument, aws::ErrorToStatus), the
// dates of listings and headers, and GetSessionToken replies
// (aws::ParseStsCredentials). Invariants: a truncated page names
// its continuation token; an error always has a code and maps to a non-OK
// Status; a GetSessionToken reply that fails to parse never quotes its
// secret key or session token.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <pugixml.hpp>

#include "deltacommit/aws/errors.h"
#include "deltacommit/aws/sts_client.h"
#include "deltacommit/s3/s3_xml.h"
#include "fuzz_check.h"

namespace {

using namespace deltacommit;

void CheckListPage(std::string_view xml) {
  StatusOr<s3::ListPage> page = s3::ParseListObjectsV2(xml);
  if (!page.ok()) {
    FUZZ_CHECK(page.status().code() == StatusCode::kDataLoss);
    return;
  }
  pugi::xml_document doc;
  doc.load_buffer(xml.data(), xml.size());
  const bool truncated =
      std::string_view(doc.child("ListBucketResult").child_value("IsTruncated")) == "true";
  FUZZ_CHECK(truncated != page->next_continuation_token.empty());
}

void CheckErrorBody(std::string_view xml) {
  for (long http_status : {200L, 403L, 404L, 412L, 503L}) {
    aws::HttpResponse response;
    response.status = http_status;
    response.body.assign(xml);
    const aws::AwsError error = aws::ParseXmlError(response);
    FUZZ_CHECK(!error.code.empty());
    const Status status = aws::ErrorToStatus(
        error, {"S3", "GetObject", "s3://bucket/key", "http://127.0.0.1:7480", "environment",
                "AKIA****"});
    FUZZ_CHECK(!status.ok());
    FUZZ_CHECK(!status.message().empty());
    (void)aws::IsRetryableError(error);
  }
  (void)s3::IsErrorDocument(xml);
}

// True when `message` quotes the text of `element` (a secret): it contains
// the text, and it changes when only that text changes in `xml`. A fixed
// phrase of the parser's messages, or the quoted expiration, that happens
// to equal the text is not a leak. Texts written with entities or CDATA are
// not checked.
bool Quotes(std::string_view xml, pugi::xml_node element, const std::string& message) {
  const std::string secret = element.child_value();
  if (secret.size() < 8 || message.find(secret) == std::string::npos) return false;
  const pugi::xml_node text = element.first_child();
  const ptrdiff_t offset = text.offset_debug();
  if (text.type() != pugi::node_pcdata || offset < 0 ||
      xml.substr(static_cast<size_t>(offset), secret.size()) != secret) {
    return false;
  }
  std::string changed(xml);
  for (size_t i = 0; i < secret.size(); ++i) {
    changed[static_cast<size_t>(offset) + i] = secret[i] == 'q' ? 'z' : 'q';
  }
  StatusOr<aws::Credentials> again = aws::ParseStsCredentials(changed, "GetSessionToken", "fuzz");
  return again.ok() || again.status().message() != message;
}

void CheckSessionToken(std::string_view xml) {
  StatusOr<aws::Credentials> credentials = aws::ParseStsCredentials(xml, "GetSessionToken", "fuzz");
  if (credentials.ok()) {
    FUZZ_CHECK(!credentials->access_key_id.empty());
    FUZZ_CHECK(credentials->expiration_ms.has_value());
    return;
  }
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) return;  // the message quotes nothing then
  const pugi::xml_node fields =
      doc.child("GetSessionTokenResponse").child("GetSessionTokenResult").child("Credentials");
  const std::string& message = credentials.status().message();
  FUZZ_CHECK(!Quotes(xml, fields.child("SecretAccessKey"), message));
  FUZZ_CHECK(!Quotes(xml, fields.child("SessionToken"), message));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  CheckListPage(xml);
  CheckErrorBody(xml);
  CheckSessionToken(xml);
  // Dates arrive in a listing's <LastModified> and a Last-Modified header.
  const std::string_view date = xml.substr(0, 64);
  (void)s3::ParseIso8601Millis(date);
  (void)s3::ParseHttpDateMillis(date);
  return 0;
}
