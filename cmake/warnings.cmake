# Warnings apply to our own targets only (third-party headers are SYSTEM).
function(deltacommit_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Woverloaded-virtual)
  if(DELTACOMMIT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# The suites the tsan preset builds (target threaded_tests) and runs (label
# *+threads, `ctest -L threads`; scripts/test.sh): those that run threads in
# one process, those that start `deltacommit serve`, and cli_data_test (the
# CLI's one thread of its own runs a DuckDB query beside the progress
# reports). TSan over the single-threaded parsers and the golden tables
# finds nothing and would cost a quarter of the CI run; nor is it given the
# suites of many single-threaded CLI processes on one table
# (cli_concurrency_test, s3_conditional_test, s3_dynamodb_test,
# doctor_test), which preset ci and the model checker cover.
set(DELTACOMMIT_THREADED_TESTS
  transaction_test table_test log_path_test s3_dynamodb_log_store_test
  credentials_test curl_http_client_test session_credentials_test signing_key_cache_test
  dynamodb_client_integration_test dynamodb_coordination_table_integration_test
  duckdb_parquet_handler_unit_test
  object_store_contract_test posix_object_store_test posix_confined_store_test
  state_store_contract_test catalog_store_contract_test
  dynamodb_state_store_test
  s3_dynamodb_fault_test
  commit_service_s3_test commit_service_s3_concurrency_test commit_service_s3_logs_test
  serve_api_test serve_api_run_test serve_ha_test serve_sts_cli_test serve_cli_faults_test
  serve_appenders_test serve_unity_test serve_unity_commits_test
  service_client_cli_test cli_data_test)
# Every suite of the commit service, its client and the fault sweeps.
set(DELTACOMMIT_THREADED_DIRS service src/adapters/service tests/fault tests/model)
# Suites in those folders that are not in the set: the HTTP API's
# (service/api). Its handlers test does start the publisher's threads;
# adding it to the tsan job is a choice of its own.
set(DELTACOMMIT_UNTHREADED_TESTS replies_test service_api_test)
if(DELTACOMMIT_BUILD_TESTS)
  add_custom_target(threaded_tests)
endif()

# The integration suites the asan preset runs (label *+asan): those that
# drive the library in process against the real servers, and those that
# send bad and hostile input to the CLI and the service. The others start
# CLI processes by the hundred to test concurrency and crashes: preset ci
# runs them, and ASan over them would check again the code the in-process
# suites check, at many times their cost (the asan run took 1,252 s with
# them, most of it there).
set(DELTACOMMIT_ASAN_INTEGRATION_TESTS
  dynamodb_client_integration_test dynamodb_coordination_table_integration_test
  dynamodb_state_store_test commit_service_s3_test commit_service_s3_concurrency_test
  commit_service_s3_logs_test s3_dynamodb_fault_test sts_rgw_test uc_client_sequences_test
  serve_api_test serve_delta_rest_test serve_local_attacks_test bad_input_test)

function(deltacommit_threaded name out_threaded)
  file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set(threaded OFF)
  if(name IN_LIST DELTACOMMIT_THREADED_TESTS)
    set(threaded ON)
  endif()
  foreach(d ${DELTACOMMIT_THREADED_DIRS})
    if(dir STREQUAL d OR dir MATCHES "^${d}/")
      set(threaded ON)
    endif()
  endforeach()
  if(name IN_LIST DELTACOMMIT_UNTHREADED_TESTS)
    set(threaded OFF)
  endif()
  set(${out_threaded} ${threaded} PARENT_SCOPE)
endfunction()

# Adds one gtest binary per test source; LABEL is the CTest label (unit,
# contract, ...), with "+threads" on the threaded suites.
function(deltacommit_test name label)
  add_executable(${name} ${ARGN})
  if(NOT DELTACOMMIT_SANITIZE_TESTS AND DELTACOMMIT_SANITIZE_OPTIONS)
    get_target_property(options ${name} COMPILE_OPTIONS)
    list(REMOVE_ITEM options ${DELTACOMMIT_SANITIZE_OPTIONS})
    set_target_properties(${name} PROPERTIES COMPILE_OPTIONS "${options}")
  endif()
  # One source per binary: a unity file would only move it (and change the
  # path ccache keys on).
  set_target_properties(${name} PROPERTIES UNITY_BUILD OFF)
  deltacommit_warnings(${name})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main GTest::gmock)
  if(DELTACOMMIT_TEST_CXX_FLAGS)
    target_compile_options(${name} PRIVATE ${DELTACOMMIT_TEST_CXX_FLAGS})
  endif()
  # A test beside the library's code may include that code's private headers
  # ("adapters/parquet/data_sql.h"); anything else sees only public folders.
  string(FIND "${CMAKE_CURRENT_SOURCE_DIR}/" "${PROJECT_SOURCE_DIR}/src/" in_src)
  if(in_src EQUAL 0)
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  endif()
  deltacommit_threaded(${name} threaded)
  if(threaded)
    set(label "${label}+threads")
    add_dependencies(threaded_tests ${name})
  endif()
  if(name IN_LIST DELTACOMMIT_ASAN_INTEGRATION_TESTS)
    set(label "${label}+asan")
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
endfunction()
