# Runs a command and checks its exit status and, optionally, its output and
# a file it writes:
#   cmake -DEXPECT=<code> [-DMATCH=<regex>] [-DFILE=<path> -DFILE_MATCH=<regex>]
#         -DEXE=<exe> "-DARGS=<a|b|c>" -P expect_exit.cmake
string(REPLACE "|" ";" args "${ARGS}")
if(DEFINED FILE)
  file(REMOVE ${FILE})  # a file from an earlier run must not pass for this one's
endif()
execute_process(COMMAND ${EXE} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "expected exit ${EXPECT}, got ${rc}")
endif()
if(NOT MATCH STREQUAL "" AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "the output does not match '${MATCH}'")
endif()
if(DEFINED FILE)
  if(NOT EXISTS ${FILE})
    message(FATAL_ERROR "${FILE} was not written")
  endif()
  file(READ ${FILE} written)
  if(NOT written MATCHES "${FILE_MATCH}")
    message(FATAL_ERROR "${FILE} does not match '${FILE_MATCH}'")
  endif()
endif()
