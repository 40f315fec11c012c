#include "service/http/json_logger.h"

#include <fmt/format.h>

#include <ctime>
#include <string>
#include <utility>

#include "service/http/redaction.h"

namespace deltacommit::http {
namespace {

std::string Dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

std::string FormatUtcMillis(int64_t epoch_millis) {
  int64_t millis = epoch_millis % 1000;
  int64_t seconds = epoch_millis / 1000;
  if (millis < 0) {  // before 1970: floor, not truncate
    millis += 1000;
    seconds -= 1;
  }
  std::time_t time = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&time, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                     utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

JsonLogger::JsonLogger(std::ostream& out, LogLevel min_level, Clock& clock)
    : JsonLogger(
          [&out](std::string_view line) {
            out.write(line.data(), static_cast<std::streamsize>(line.size()));
            out.flush();
          },
          min_level, clock) {}

JsonLogger::JsonLogger(LineSink sink, LogLevel min_level, Clock& clock)
    : sink_(std::move(sink)), min_level_(min_level), clock_(clock) {}

void JsonLogger::Log(LogLevel level, std::string_view msg,
                     const nlohmann::json& fields) {
  if (!Enabled(level)) return;
  std::string line = "{\"time\":" + Dump(FormatUtcMillis(clock_.NowMillis())) +
                     ",\"level\":" + Dump(LogLevelName(level)) +
                     ",\"msg\":" + Dump(msg);
  if (fields.is_object()) {
    nlohmann::json redacted = Redact(fields);
    for (const auto& [key, value] : redacted.items()) {
      if (key == "time" || key == "level" || key == "msg") continue;
      line += "," + Dump(key) + ":" + Dump(value);
    }
  }
  line += "}\n";
  std::lock_guard<std::mutex> lock(mu_);
  sink_(line);
}

}  // namespace deltacommit::http
