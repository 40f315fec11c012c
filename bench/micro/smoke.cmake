# ctest micro_bench_smoke: runs the smallest case of every micro-benchmark
# family for MIN_TIME and fails unless the binary exits 0, reports each
# family and reports no error (SkipWithError does not change the exit code).
#   cmake -DBENCH=path/to/micro_bench -DMIN_TIME=0.001 -P smoke.cmake
set(families
  BM_ParseAddLine BM_ParseCommitInfoLine BM_WriteAdd BM_WriteCommitInfo BM_ParseCommit/10
  BM_ParseCommitNewParser/2 BM_ParseLogPath
  BM_SignS3PutCommit/1024 BM_SignS3ListLog BM_SignDynamoDbPutItem
  BM_SigningKeyDerived BM_SigningKeyCached
  BM_CheckConflict/winners:10/blind:0 BM_CheckConflict/winners:10/blind:1
  BM_LoadSnapshotMemory/1000 BM_ReplayAdds/1000 BM_ApplyLargeCommitToHeldSnapshot/1000
  BM_ParseCommitBodyService/1 BM_ParseCommitBodyCoordinated)
string(REPLACE ";" "$|^" filter "^${families}$")
execute_process(
  COMMAND ${BENCH} --benchmark_filter=${filter} --benchmark_min_time=${MIN_TIME}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "micro_bench exited with ${result}")
endif()
if(out MATCHES "ERROR OCCURRED")
  message(FATAL_ERROR "a micro-benchmark reported an error (above)")
endif()
foreach(f ${families})
  string(FIND "${out}" "${f} " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "micro_bench did not report ${f} (renamed or filtered out?)")
  endif()
endforeach()
