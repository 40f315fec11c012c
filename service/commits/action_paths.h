// Where a commit's actions may point: the data files a commit adds or
// removes must lie inside its table, so a writer allowed one table cannot
// make the service record files of another (or of the whole bucket).
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit::service {

// OK when `path` (a URI-encoded path of an action, as the protocol writes
// it) is relative to the table root or an absolute s3://, s3a:// or s3n://
// URI under `table` ("s3://bucket/prefix"); and, once percent-decoded, has
// no ".", ".." or empty segment, no leading '/', and no control character.
// kInvalidArgument naming `path` and the rule otherwise.
Status CheckPathInTable(std::string_view table, std::string_view path);

// CheckPathInTable for every file the action names (add, remove, cdc, and
// an absolute deletion vector path); OK for actions that name none.
Status CheckActionPaths(std::string_view table, const Action& action);

}  // namespace deltacommit::service
