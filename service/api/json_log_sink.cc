#include "service/api/json_log_sink.h"

#include <utility>

namespace deltacommit::service {
namespace {

http::LogLevel LevelOf(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug: return http::LogLevel::kDebug;
    case spdlog::level::info: return http::LogLevel::kInfo;
    case spdlog::level::warn: return http::LogLevel::kWarn;
    default: return http::LogLevel::kError;
  }
}

spdlog::level::level_enum SpdLevelOf(http::LogLevel level) {
  switch (level) {
    case http::LogLevel::kDebug: return spdlog::level::debug;
    case http::LogLevel::kInfo: return spdlog::level::info;
    case http::LogLevel::kWarn: return spdlog::level::warn;
    case http::LogLevel::kError: return spdlog::level::err;
  }
  return spdlog::level::info;
}

}  // namespace

JsonLogSink::JsonLogSink(http::JsonLogger& logger, std::string component)
    : logger_(logger), component_(std::move(component)) {}

void JsonLogSink::sink_it_(const spdlog::details::log_msg& msg) {
  logger_.Log(LevelOf(msg.level), std::string_view(msg.payload.data(), msg.payload.size()),
              {{"component", component_}});
}

std::shared_ptr<spdlog::logger> NewJsonSpdLogger(http::JsonLogger& logger,
                                                 const std::string& component,
                                                 http::LogLevel level) {
  auto json_logger = std::make_shared<spdlog::logger>(
      component, std::make_shared<JsonLogSink>(logger, component));
  json_logger->set_level(SpdLevelOf(level));
  return json_logger;
}

}  // namespace deltacommit::service
