// FUZZ_CHECK: an invariant of a fuzz target. On violation it names the
// check and aborts, which libFuzzer (and the replay driver's CTest run)
// reports as a finding. Never pass it a credential: only the condition's
// text is printed, never a value.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition)                                                       \
  do {                                                                              \
    if (!(condition)) {                                                             \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, \
                   #condition);                                                     \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)
