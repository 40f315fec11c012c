// OutputOfForkedChild: runs a function in a forked child process and
// returns what it returned, for tests of what a process and its forked
// children must not share (random engines, writer appIds).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace deltacommit::testing {

// Forks; the child runs `body`, hands its result to the parent through a
// pipe and exits at once (no atexit handlers, no test teardown). nullopt
// when the fork fails or the child does not exit 0 having written it all.
// The child must not start threads.
std::optional<std::string> OutputOfForkedChild(const std::function<std::string()>& body);

}  // namespace deltacommit::testing
