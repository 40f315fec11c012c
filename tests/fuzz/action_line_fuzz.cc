// Fuzz target: commit files, one Delta action per line (ActionParser,
// src/core/action_json_parse.cc). Invariant: a commit that parses writes
// back (ActionsToCommit) to text that parses to the same actions and writes
// to the same bytes again, so what a writer emits is what a reader reads.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/action_json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltacommit;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ActionParser parser;
  StatusOr<std::vector<Action>> actions = parser.ParseCommit(text);
  if (!actions.ok()) {
    FUZZ_CHECK(!actions.status().message().empty());
    return 0;
  }
  const std::string written = ActionsToCommit(*actions);
  StatusOr<std::vector<Action>> reread = parser.ParseCommit(written);
  FUZZ_CHECK(reread.ok());
  FUZZ_CHECK(*reread == *actions);
  FUZZ_CHECK(ActionsToCommit(*reread) == written);
  // Each action alone, as a log replay of one line sees it.
  for (const Action& action : *actions) {
    StatusOr<Action> line = parser.ParseLine(ActionToJson(action));
    FUZZ_CHECK(line.ok());
    FUZZ_CHECK(*line == action);
  }
  return 0;
}
