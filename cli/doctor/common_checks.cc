#include <cstdlib>

#include "deltacommit/aws/credentials_internal.h"  // FormatUtc
#include "deltacommit/s3/s3_xml.h"                 // ParseHttpDateMillis
#include "doctor/doctor.h"

namespace deltacommit::cli {
namespace {

// SigV4 signatures are refused beyond this skew; warn well before it.
constexpr int64_t kSkewFailMs = 15 * 60 * 1000;
constexpr int64_t kSkewWarnMs = 5 * 60 * 1000;

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk: return "OK";
    case Verdict::kWarn: return "WARN";
    case Verdict::kFail: return "FAIL";
    case Verdict::kSkip: return "SKIP";
  }
  return "?";
}

void DoctorReport::Add(std::string name, Verdict verdict, std::string detail) {
  checks_.push_back({std::move(name), verdict, std::move(detail)});
}

void DoctorReport::AddStatus(std::string name, const Status& status, std::string ok_detail) {
  if (status.ok()) {
    Add(std::move(name), Verdict::kOk, std::move(ok_detail));
  } else {
    Add(std::move(name), Verdict::kFail, status.ToString());
  }
}

bool DoctorReport::failed() const {
  for (const DoctorCheck& c : checks_) {
    if (c.verdict == Verdict::kFail) return true;
  }
  return false;
}

void SkipChecks(const std::vector<std::string>& names, const std::string& why,
                DoctorReport& report) {
  for (const std::string& name : names) report.Add(name, Verdict::kSkip, "not run: " + why);
}

bool CheckCredentials(const std::string& service, aws::CredentialsProvider& provider,
                      Clock& clock, DoctorReport& report) {
  const std::string name = service + " credentials";
  StatusOr<aws::Credentials> c = provider.GetCredentials();
  if (!c.ok()) {
    report.Add(name, Verdict::kFail, c.status().ToString());
    return false;
  }
  const int64_t now = clock.NowMillis();
  if (Status live = aws::CheckNotExpired(*c, now); !live.ok()) {
    report.Add(name, Verdict::kFail, live.ToString());
    return false;
  }
  std::string detail = "key " + c->RedactedKeyId() + " from " + c->source;
  if (c->expiration_ms) {
    detail += ", temporary: expires " + aws::internal::FormatUtc(*c->expiration_ms) + " (in " +
              std::to_string((*c->expiration_ms - now) / 60000) + " min)";
  } else if (!c->session_token.empty()) {
    detail += ", temporary (a session token), expiry unknown";
  } else {
    detail += ", long-term (no expiry)";
  }
  report.Add(name, Verdict::kOk, detail);
  return true;
}

bool CheckEndpoint(const std::string& service, const std::string& endpoint_url,
                   aws::HttpClient& http, Clock& clock, DoctorReport& report) {
  const std::string name = service + " endpoint";
  aws::HttpRequest request;
  request.url = endpoint_url + "/";
  StatusOr<aws::HttpResponse> reply = http.Send(request);
  if (!reply.ok()) {
    report.Add(name, Verdict::kFail, endpoint_url + " unreachable: " + reply.status().ToString());
    return false;
  }
  std::optional<int64_t> server_ms = s3::ParseHttpDateMillis(reply->Header("date"));
  if (!server_ms) {
    report.Add(name, Verdict::kOk, endpoint_url + " reachable (no Date header: clock not checked)");
    return true;
  }
  const int64_t skew = clock.NowMillis() - *server_ms;
  const std::string text = endpoint_url + " reachable; local clock " +
                           std::to_string(std::llabs(skew) / 1000) + " s " +
                           (skew >= 0 ? "ahead of" : "behind") + " the server's";
  if (std::llabs(skew) >= kSkewFailMs) {
    report.Add(name, Verdict::kFail,
               text + ": AWS refuses signatures more than 15 minutes off; fix the clock (NTP)");
  } else if (std::llabs(skew) >= kSkewWarnMs) {
    report.Add(name, Verdict::kWarn, text + ": close to the 15-minute limit of SigV4; check NTP");
  } else {
    report.Add(name, Verdict::kOk, text);
  }
  return true;
}

}  // namespace deltacommit::cli
