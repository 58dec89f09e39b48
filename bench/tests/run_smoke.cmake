# Runs one bench executable for a moment and checks that it wrote valid
# Google Benchmark JSON. Only that it runs: benchmarks report, never assert.
#   cmake -DBENCH=<exe> -DREPORT=<graft_bench_report> -DFILTER=<regex> -DOUT=<json> -P run_smoke.cmake
execute_process(
  COMMAND ${BENCH} --benchmark_min_time=0.01 "--benchmark_filter=${FILTER}"
          --benchmark_out=${OUT} --benchmark_out_format=json
  RESULT_VARIABLE bench_rc)
if(NOT bench_rc EQUAL 0)
  message(FATAL_ERROR "${BENCH} exited with ${bench_rc}")
endif()
execute_process(COMMAND ${REPORT} validate ${OUT} RESULT_VARIABLE report_rc)
if(NOT report_rc EQUAL 0)
  message(FATAL_ERROR "${OUT} is not valid bench JSON (graft_bench_report validate exited ${report_rc})")
endif()
