#include "deltacommit/coordination_table.h"

namespace deltacommit {

Status ForEachCommitEntry(CoordinationTable& table, const std::string& table_path, int page_size,
                          const std::function<Status(const ExternalCommitEntry&)>& visit) {
  std::string start_after;
  while (true) {
    DC_ASSIGN_OR_RETURN(CommitEntryPage page, table.ListPage(table_path, start_after, page_size));
    for (const ExternalCommitEntry& entry : page.entries) {
      DC_RETURN_IF_ERROR(visit(entry));
    }
    if (!page.next_start_after) return OkStatus();
    // A next page that would not move forward would loop for ever.
    if (*page.next_start_after <= start_after) {
      return InternalError(table.Describe() + ": listing the entries of " + table_path +
                           " did not advance past \"" + start_after + "\"");
    }
    start_after = *page.next_start_after;
  }
}

}  // namespace deltacommit
