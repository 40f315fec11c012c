# Finds DuckDB's C API (duckdb.h + libduckdb.so) and defines the IMPORTED
# target duckdb::loaded: DuckDB as the Parquet adapter uses it. Only the
# adapter links it; the core never does. Nothing links libduckdb.so itself:
# the adapter loads it on first use (src/adapters/parquet/duckdb_api.h), so
# programs that never read or write Parquet never pay for loading it.
#
# Where it looks, first match wins:
#   1. DUCKDB_ROOT (cache variable, else environment variable): either the
#      layout of DuckDB's release archive libduckdb-linux-amd64.zip (duckdb.h
#      and libduckdb.so side by side in one folder) or {include,lib}/.
#   2. ${PROJECT_SOURCE_DIR}/.deps/duckdb, filled by scripts/fetch-duckdb.sh
#      (DuckDB 1.4.4 from npm, see docs in that script).
# The library's folder is put in the RUNPATH of every program or module
# linking the adapter, where its dlopen finds libduckdb.so.
include_guard(GLOBAL)

set(DUCKDB_ROOT "$ENV{DUCKDB_ROOT}" CACHE PATH
    "DuckDB folder: duckdb.h + libduckdb.so side by side, or include/ + lib/")

# A changed DUCKDB_ROOT must not keep finding the old, cached paths.
if(DEFINED _DUCKDB_ROOT_SEARCHED AND NOT _DUCKDB_ROOT_SEARCHED STREQUAL DUCKDB_ROOT)
  unset(DUCKDB_INCLUDE_DIR CACHE)
  unset(DUCKDB_LIBRARY CACHE)
endif()
set(_DUCKDB_ROOT_SEARCHED "${DUCKDB_ROOT}" CACHE INTERNAL "")

set(_duckdb_hints)
if(DUCKDB_ROOT)
  list(APPEND _duckdb_hints "${DUCKDB_ROOT}")
else()
  list(APPEND _duckdb_hints "${PROJECT_SOURCE_DIR}/.deps/duckdb")
endif()

find_path(DUCKDB_INCLUDE_DIR duckdb.h
          HINTS ${_duckdb_hints} PATH_SUFFIXES include NO_DEFAULT_PATH)
find_library(DUCKDB_LIBRARY NAMES duckdb
             HINTS ${_duckdb_hints} PATH_SUFFIXES lib NO_DEFAULT_PATH)

if(NOT DUCKDB_INCLUDE_DIR OR NOT DUCKDB_LIBRARY)
  if(DUCKDB_ROOT)
    set(_duckdb_where "DUCKDB_ROOT=${DUCKDB_ROOT}")
  else()
    set(_duckdb_where "${PROJECT_SOURCE_DIR}/.deps/duckdb")
  endif()
  # Cached NOTFOUND values would make the next configure skip the search.
  unset(DUCKDB_INCLUDE_DIR CACHE)
  unset(DUCKDB_LIBRARY CACHE)
  message(FATAL_ERROR
    "DuckDB (duckdb.h and libduckdb.so) not found in ${_duckdb_where}.\n"
    "Run scripts/fetch-duckdb.sh (fetches DuckDB 1.4.4 from npm into .deps/duckdb), "
    "or set DUCKDB_ROOT (cache or environment variable) to a folder holding "
    "duckdb.h and libduckdb.so side by side (libduckdb-linux-amd64.zip) or in "
    "include/ and lib/.")
endif()

if(NOT TARGET duckdb::loaded)
  add_library(duckdb::loaded INTERFACE IMPORTED GLOBAL)
  get_filename_component(DUCKDB_LIBRARY_DIR "${DUCKDB_LIBRARY}" DIRECTORY)
  set_target_properties(duckdb::loaded PROPERTIES
    # An IMPORTED target's include directories are SYSTEM for its consumers
    # (CMake's default), so DuckDB's header is not held to our warnings.
    INTERFACE_INCLUDE_DIRECTORIES "${DUCKDB_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS}"
    INTERFACE_LINK_OPTIONS "LINKER:-rpath,${DUCKDB_LIBRARY_DIR}")
  message(STATUS "DuckDB: ${DUCKDB_LIBRARY} (loaded on first use)")
endif()
