#include "deltacommit/actions.h"

#include <string>
#include <string_view>
#include <variant>

namespace deltacommit {
namespace {

// The protocol's top-level key for each action. The parser's dispatch table
// (action_json_parse.cc) spells the same keys.
struct ActionKey {
  std::string_view operator()(const Protocol&) const { return "protocol"; }
  std::string_view operator()(const Metadata&) const { return "metaData"; }
  std::string_view operator()(const AddFile&) const { return "add"; }
  std::string_view operator()(const RemoveFile&) const { return "remove"; }
  std::string_view operator()(const AddCdcFile&) const { return "cdc"; }
  std::string_view operator()(const SetTransaction&) const { return "txn"; }
  std::string_view operator()(const CommitInfo&) const { return "commitInfo"; }
  std::string_view operator()(const DomainMetadata&) const {
    return "domainMetadata";
  }
  std::string_view operator()(const CheckpointMetadata&) const {
    return "checkpointMetadata";
  }
  std::string_view operator()(const Sidecar&) const { return "sidecar"; }
  std::string_view operator()(const UnknownAction& a) const { return a.type; }
};

}  // namespace

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id;
  id.reserve(storage_type.size() + path_or_inline_dv.size() + 12);
  id += storage_type;
  id += path_or_inline_dv;
  // The protocol appends the offset only when present: two DVs stored in one
  // file differ only by it, while an inline DV has none.
  if (offset.has_value()) {
    id += '@';
    id += std::to_string(*offset);
  }
  return id;
}

std::string_view ActionType(const Action& action) {
  return std::visit(ActionKey{}, action);
}

}  // namespace deltacommit
