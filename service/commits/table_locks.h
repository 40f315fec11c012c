// TableLocks: serialises the commits of one table inside one process, so
// that its requests and its background publishing do not race each other
// (across processes the state store's Ratify keeps them apart). Striped:
// tables share a fixed set of mutexes by hash, so memory does not grow with
// the number of tables; two tables on one stripe just wait for each other.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstddef>
#include <mutex>
#include <string_view>
#include <vector>

namespace deltacommit::service {

class TableLocks {
 public:
  // REQUIRES: stripes > 0.
  explicit TableLocks(size_t stripes = 64);

  // The mutex that guards `table`; the same object for the same table.
  std::mutex& For(std::string_view table);

 private:
  std::vector<std::mutex> stripes_;
};

}  // namespace deltacommit::service
