// JsonLogger: structured logs, one JSON object per line:
//   {"time":"2026-11-29T23:00:00.123Z","level":"info","msg":"request",
//    "request_id":"...","route":"/v1/commits","status":200,...}
// "time", "level" and "msg" come first; then the fields in name order.
// Every field passes through Redact() (redaction.h): a secret-named field
// never has its value written. Invalid UTF-8 in a value is replaced, never
// an error.
//
// Thread-safety: safe for concurrent use; each line is written whole.
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>

#include "deltacommit/clock.h"

namespace deltacommit::http {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "debug", "info", "warn", "error".
std::string_view LogLevelName(LogLevel level);

class JsonLogger {
 public:
  // Receives each line, newline included, one call at a time.
  using LineSink = std::function<void(std::string_view line)>;

  // `out` and `clock` must outlive the logger; lines below `min_level` are
  // dropped.
  explicit JsonLogger(std::ostream& out, LogLevel min_level = LogLevel::kInfo,
                      Clock& clock = SystemClock());
  // Lines go to `sink` (tests capture them this way).
  explicit JsonLogger(LineSink sink, LogLevel min_level = LogLevel::kInfo,
                      Clock& clock = SystemClock());

  // REQUIRES: `fields` is an object (or null). Fields named time, level or
  // msg are ignored: those names belong to the logger.
  void Log(LogLevel level, std::string_view msg,
           const nlohmann::json& fields = nullptr);
  void Debug(std::string_view msg, const nlohmann::json& fields = nullptr) {
    Log(LogLevel::kDebug, msg, fields);
  }
  void Info(std::string_view msg, const nlohmann::json& fields = nullptr) {
    Log(LogLevel::kInfo, msg, fields);
  }
  void Warn(std::string_view msg, const nlohmann::json& fields = nullptr) {
    Log(LogLevel::kWarn, msg, fields);
  }
  void Error(std::string_view msg, const nlohmann::json& fields = nullptr) {
    Log(LogLevel::kError, msg, fields);
  }

  bool Enabled(LogLevel level) const { return level >= min_level_; }

 private:
  const LineSink sink_;
  const LogLevel min_level_;
  Clock& clock_;
  std::mutex mu_;  // one line at a time into sink_
};

// "2026-11-29T23:00:00.123Z" for epoch milliseconds.
std::string FormatUtcMillis(int64_t epoch_millis);

}  // namespace deltacommit::http
