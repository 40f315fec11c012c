// JSON encoding of Delta actions: one action per line, as in a commit file.
//
// Parsing uses simdjson (log replay is the hot path). Writing is
// deterministic: fields in a fixed order (the protocol's), maps sorted by
// key, unknown fields after the known ones in their original order, compact
// (no spaces), no trailing newline per action.
//
// Thread-safety: ActionParser is not thread-safe (it owns simdjson buffers);
// use one per thread. The free functions are thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit {

class ActionParser {
 public:
  ActionParser();
  ~ActionParser();
  ActionParser(const ActionParser&) = delete;
  ActionParser& operator=(const ActionParser&) = delete;

  // Parses one line holding one action object ({"add": {...}}).
  // Returns InvalidArgument naming the field and the problem for malformed
  // JSON, a wrong type, a missing required field, or an object with zero or
  // several top-level keys. An unknown top-level key gives an UnknownAction.
  StatusOr<Action> ParseLine(std::string_view line);

  // Parses a whole commit file: one action per non-empty line ("\n" or
  // "\r\n"). Errors carry the 1-based line number.
  StatusOr<std::vector<Action>> ParseCommit(std::string_view content);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One action as a single JSON line (no newline).
std::string ActionToJson(const Action& action);

// A commit file: each action followed by "\n".
std::string ActionsToCommit(const std::vector<Action>& actions);

}  // namespace deltacommit
