# Runs a command and checks its exit status and, optionally, its output:
#   cmake -DEXPECT=<code> [-DMATCH=<regex>] -DEXE=<exe> "-DARGS=<a|b|c>" -P expect_exit.cmake
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${EXE} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "expected exit ${EXPECT}, got ${rc}")
endif()
if(NOT MATCH STREQUAL "" AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "the output does not match '${MATCH}'")
endif()
