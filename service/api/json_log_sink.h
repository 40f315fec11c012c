// The commit logic logs through spdlog; the service's log is JSON lines
// (JsonLogger). JsonLogSink turns each spdlog message into one JSON line
//   {"time":...,"level":"warn","msg":"<the message>","component":"commits"}
// so that an operator reads a single structured log.
//
// Thread-safety: safe for concurrent use (JsonLogger writes whole lines).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

#include "service/http/json_logger.h"

namespace deltacommit::service {

class JsonLogSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // `logger` must outlive the sink.
  JsonLogSink(http::JsonLogger& logger, std::string component);

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

 private:
  http::JsonLogger& logger_;
  const std::string component_;
};

// An spdlog logger named `component` writing to `logger` at `level` and
// above.
std::shared_ptr<spdlog::logger> NewJsonSpdLogger(http::JsonLogger& logger,
                                                 const std::string& component,
                                                 http::LogLevel level);

}  // namespace deltacommit::service
