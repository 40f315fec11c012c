// How much load the multi-process tests put on the real servers.
//
// Under ASan or TSan every CLI process starts and runs several times slower,
// so those builds run a fraction of the load: the same code paths and the same
// races (8 writer processes still contend for every version), in CI's time.
// The optimised build runs the full load.
#pragma once

namespace deltacommit::testing {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// `full` in the optimised build, `sanitized` under a sanitizer.
constexpr int LoadUnderSanitizers(int full, int sanitized) {
  return kSanitizedBuild ? sanitized : full;
}

}  // namespace deltacommit::testing
