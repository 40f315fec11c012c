#include "service/http/url_codec.h"

#include <string>

namespace deltacommit::http {

StatusOr<HeaderList> ParseQuery(std::string_view query) {
  HeaderList params;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view()
                                          : query.substr(amp + 1);
    if (piece.empty()) continue;
    size_t eq = piece.find('=');
    std::string_view name = piece.substr(0, eq);
    std::string_view value = eq == std::string_view::npos
                                 ? std::string_view()
                                 : piece.substr(eq + 1);
    DC_ASSIGN_OR_RETURN(std::string decoded_name, PercentDecode(name, true));
    DC_ASSIGN_OR_RETURN(std::string decoded_value, PercentDecode(value, true));
    params.emplace_back(std::move(decoded_name), std::move(decoded_value));
  }
  return params;
}

SplitTarget SplitRequestTarget(std::string_view target) {
  size_t question = target.find('?');
  if (question == std::string_view::npos) return {target, {}};
  return {target.substr(0, question), target.substr(question + 1)};
}

}  // namespace deltacommit::http
