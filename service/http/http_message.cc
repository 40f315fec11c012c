#include "service/http/http_message.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "deltacommit/core/ascii.h"

namespace deltacommit::http {

std::optional<std::string_view> Request::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return std::nullopt;
}

std::optional<std::string_view> Request::QueryParam(
    std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::optional<std::string_view> Request::PathParam(
    std::string_view name) const {
  auto it = path_params.find(std::string(name));
  if (it == path_params.end()) return std::nullopt;
  return it->second;
}

Response Response::Json(int status, std::string body) {
  Response response;
  response.status = status;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = std::move(body);
  return response;
}

Response ErrorResponse(int status, std::string_view code,
                       std::string_view message) {
  nlohmann::json body = {
      {"error",
       {{"code", std::string(code)}, {"message", std::string(message)}}}};
  // Replace rather than throw on invalid UTF-8 in a message that quotes
  // client input.
  return Response::Json(
      status,
      body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace deltacommit::http
