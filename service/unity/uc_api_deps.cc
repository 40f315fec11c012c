#include "service/unity/uc_api_deps.h"

#include <string>
#include <utility>

#include "service/config/catalog_names.h"

namespace deltacommit::service::unity {
namespace {

http::Response WithToken(const Authenticator& authenticator, const http::Request& request,
                         http::Response (*answer)(const UcError&),
                         const std::function<http::Response(const TokenConfig&)>& handle) {
  StatusOr<const TokenConfig*> token = authenticator.Authenticate(request.Header("authorization"));
  if (!token.ok()) return answer(UcErrorFor(token.status()));
  return handle(**token);
}

}  // namespace

http::Response WithUcToken(const Authenticator& authenticator, const http::Request& request,
                           const std::function<http::Response(const TokenConfig&)>& handle) {
  return WithToken(authenticator, request, &UcRestErrorAnswer, handle);
}

http::Response WithDeltaToken(const Authenticator& authenticator, const http::Request& request,
                              const std::function<http::Response(const TokenConfig&)>& handle) {
  return WithToken(authenticator, request, &DeltaApiErrorAnswer, handle);
}

StatusOr<TableName> PathTableName(const http::Request& request) {
  TableName name{std::string(request.PathParam("catalog").value_or("")),
                 std::string(request.PathParam("schema").value_or("")),
                 std::string(request.PathParam("table").value_or(""))};
  DC_RETURN_IF_ERROR(ValidateCatalogName("catalog", name.catalog));
  DC_RETURN_IF_ERROR(ValidateCatalogName("schema", name.schema));
  if (request.PathParam("table")) DC_RETURN_IF_ERROR(ValidateCatalogName("table", name.name));
  return name;
}

}  // namespace deltacommit::service::unity
