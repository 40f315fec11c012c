#include "adapters/parquet/duckdb_api.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace deltacommit {
namespace duckdb_api {

AnyFunction functions[kFunctionCount] = {};
std::atomic<bool> loaded{false};

namespace {

constexpr const char* kNames[kFunctionCount] = {
#define DC_DUCKDB_NAME(name) #name,
    DC_DUCKDB_FUNCTIONS(DC_DUCKDB_NAME)
#undef DC_DUCKDB_NAME
};

constexpr const char kLibrary[] = "libduckdb.so";

std::string LoaderError() {
  const char* why = dlerror();
  return why != nullptr ? why : "no reason given";
}

Status Load() {
  // RTLD_LAZY: DuckDB's own calls are bound as they are first made, as
  // when it was linked; RTLD_NOW would bind its thousands of functions up
  // front. RTLD_LOCAL: its symbols stay out of the process's global scope.
  // The handle is never closed: the functions are used until the process
  // ends.
  void* library = dlopen(kLibrary, RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) {
    return UnavailableError(
        std::string("DuckDB's library ") + kLibrary +
        " (needed to read and write Parquet) cannot be loaded: " + LoaderError() +
        "; it is installed beside deltacommit's libraries, or set "
        "LD_LIBRARY_PATH to its folder");
  }
  AnyFunction resolved[kFunctionCount] = {};
  for (size_t i = 0; i < kFunctionCount; ++i) {
    void* symbol = dlsym(library, kNames[i]);
    if (symbol == nullptr) {
      return UnavailableError(std::string("DuckDB's library ") + kLibrary + " has no " + kNames[i] +
                              " (a DuckDB older than the one deltacommit was built "
                              "with?): " +
                              LoaderError());
    }
    // POSIX guarantees a dlsym result converts to a function pointer.
    static_assert(sizeof(symbol) == sizeof(AnyFunction));
    std::memcpy(&resolved[i], &symbol, sizeof(symbol));
  }
  std::memcpy(functions, resolved, sizeof(resolved));
  loaded.store(true, std::memory_order_release);
  return OkStatus();
}

}  // namespace

void LoadOrAbort() {
  const Status st = LoadDuckDb();
  if (st.ok()) return;
  std::fprintf(stderr, "deltacommit: a DuckDB function was called before DuckDB was loaded: %s\n",
               st.ToString().c_str());
  std::abort();
}

}  // namespace duckdb_api

Status LoadDuckDb() {
  static std::once_flag once;
  static Status result;
  std::call_once(once, [] { result = duckdb_api::Load(); });
  return result;
}

}  // namespace deltacommit
