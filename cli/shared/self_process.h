// Child processes of this binary: the demo's writers and compactors, and
// the bench's writers and the `deltacommit serve` it starts. They run the
// same executable (/proc/self/exe) with a hidden or ordinary subcommand, so
// no other program has to be found or installed.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace deltacommit::cli {

// Starts `self` with `args` without waiting; its stdout into `out_file` and
// its stderr into `err_file` (default: `out_file` + ".err") when `out_file`
// is given, else both inherited. -1 when it could not start.
pid_t Spawn(const std::string& self, const std::vector<std::string>& args,
            const std::string& out_file = {}, const std::string& err_file = {});

// Waits for `pid` (retrying on EINTR); its exit code, -1 when it did not
// exit normally (a signal) or could not be waited for.
int WaitForExit(pid_t pid);

// Runs this binary (`self`) with `args`, its stdout into `out_file`, its
// stderr into `out_file` + ".err"; the exit code (-1 when it did not exit).
int RunSelf(const std::string& self, const std::vector<std::string>& args,
            const std::string& out_file);

// The whole content of a file a child wrote ("" when it cannot be read).
std::string ReadChildOutput(const std::string& path);

// The path of this binary (for the processes the demo and the bench start).
std::string SelfPath(const char* argv0);

}  // namespace deltacommit::cli
