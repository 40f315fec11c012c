#include "service/commits/table_locks.h"

#include <functional>

namespace deltacommit::service {

TableLocks::TableLocks(size_t stripes) : stripes_(stripes == 0 ? 1 : stripes) {}

std::mutex& TableLocks::For(std::string_view table) {
  return stripes_[std::hash<std::string_view>{}(table) % stripes_.size()];
}

}  // namespace deltacommit::service
