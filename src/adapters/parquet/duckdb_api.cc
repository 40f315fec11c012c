#include "adapters/parquet/duckdb_api.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

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

// Where libduckdb.so is looked for, in order: by the dynamic loader's own
// search (LD_LIBRARY_PATH, the RUNPATH of the program or module calling
// dlopen, the system's folders); beside the program or module holding this
// code, and in ../lib from it (a wheel's module; an installed prefix's bin/
// and lib/); where the build found it. (A sanitizer's dlopen interceptor
// calls dlopen from its own runtime, whose RUNPATH is not the program's:
// the loader's search then misses the build's folder.)
std::vector<std::string> Candidates() {
  std::vector<std::string> paths = {kLibrary};
  Dl_info info{};
  if (dladdr(static_cast<const void*>(&loaded), &info) != 0 && info.dli_fname != nullptr) {
    // For the program itself the name is argv[0], maybe relative or bare:
    // the kernel's account of it is the one to trust.
    std::filesystem::path object = info.dli_fname;
    std::error_code error;
    if (!object.is_absolute()) object = std::filesystem::read_symlink("/proc/self/exe", error);
    const std::filesystem::path here = object.parent_path();
    paths.push_back((here / kLibrary).string());
    paths.push_back((here / ".." / "lib" / kLibrary).string());
  }
#ifdef DC_DUCKDB_BUILD_LIBRARY
  paths.push_back(DC_DUCKDB_BUILD_LIBRARY);
#endif
  return paths;
}

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
  void* library = nullptr;
  std::string tried;
  for (const std::string& path : Candidates()) {
    library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (library != nullptr) break;
    tried += (tried.empty() ? "" : "; ") + LoaderError();
  }
  if (library == nullptr) {
    return UnavailableError(std::string("DuckDB's library ") + kLibrary +
                            " (needed to read and write Parquet) cannot be loaded: " + tried +
                            ". It is installed beside deltacommit's libraries; or set "
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
