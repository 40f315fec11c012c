# `cmake --install`: the public headers (include/deltacommit/), the static
# libraries behind deltacommit::deltacommit (the front door, src/table, and
# the layers it links), DuckDB's shared library (fetched by
# scripts/fetch-duckdb.sh, not a system package, so it travels with us) and
# a CMake package: find_package(deltacommit) in another project
# (examples/embed, docs/library.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DELTACOMMIT_INSTALLED_TARGETS
    deltacommit_table deltacommit_core deltacommit_logstore deltacommit_posix deltacommit_aws
    deltacommit_s3 deltacommit_dynamodb deltacommit_parquet deltacommit_service_client
    deltacommit_service_wire deltacommit_unity_client)
# Exported as deltacommit::<layer> (deltacommit::core, ...); the front door
# is deltacommit::deltacommit (its EXPORT_NAME, src/table/CMakeLists.txt).
foreach(t ${DELTACOMMIT_INSTALLED_TARGETS})
  if(NOT t STREQUAL "deltacommit_table")
    string(REPLACE "deltacommit_" "" layer ${t})
    set_target_properties(${t} PROPERTIES EXPORT_NAME ${layer})
  endif()
endforeach()

install(TARGETS ${DELTACOMMIT_INSTALLED_TARGETS}
        EXPORT deltacommitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/deltacommit
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The real file and its SONAME link (libduckdb.so is all DuckDB ships).
install(FILES ${DUCKDB_LIBRARY} DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(DELTACOMMIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/deltacommit)
install(EXPORT deltacommitTargets NAMESPACE deltacommit:: DESTINATION ${DELTACOMMIT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/deltacommitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/deltacommitConfig.cmake
                              INSTALL_DESTINATION ${DELTACOMMIT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/deltacommitConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/deltacommitConfig.cmake
              ${PROJECT_BINARY_DIR}/deltacommitConfigVersion.cmake
        DESTINATION ${DELTACOMMIT_CMAKE_DIR})
