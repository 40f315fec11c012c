# Warnings apply to our own targets only (third-party headers are SYSTEM).
function(deltacommit_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Woverloaded-virtual)
  if(DELTACOMMIT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Adds one gtest binary per test source; LABEL is the CTest label (unit, contract, ...).
function(deltacommit_test name label)
  add_executable(${name} ${ARGN})
  deltacommit_warnings(${name})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main GTest::gmock)
  gtest_discover_tests(${name} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
endfunction()
