// A SQL text cut into its statements, so that `query` can run the first
// ones as they are and answer with the last one's rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace deltacommit::data_internal {

// The statements of `sql`, cut at the semicolons outside string literals
// ('...', E'...' with backslash escapes, $tag$...$tag$), quoted identifiers
// ("...") and comments (-- to the end of the line, /* */ nested). Each is
// trimmed of the blanks around it; statements holding only blanks and
// comments are dropped. Unterminated quotes or comments run to the end (the
// engine's parser then names what is wrong).
std::vector<std::string> SplitSqlStatements(std::string_view sql);

}  // namespace deltacommit::data_internal
