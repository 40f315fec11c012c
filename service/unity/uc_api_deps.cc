#include "service/unity/uc_api_deps.h"

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

}  // namespace deltacommit::service::unity
