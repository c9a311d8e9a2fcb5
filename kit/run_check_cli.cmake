# Runs tessera-plugin-check as a ctest and checks its exit status and output:
#   cmake -DPROGRAM=... "-DARGS=a|b" -DEXPECT_EXIT=1 "-DEXPECT_OUTPUT=regex" -P run_check_cli.cmake
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${args}
  RESULT_VARIABLE exit_status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
if(NOT exit_status STREQUAL EXPECT_EXIT)
  message(FATAL_ERROR "tessera-plugin-check exited with ${exit_status}, expected ${EXPECT_EXIT}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT "${output}${errors}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "the output does not match '${EXPECT_OUTPUT}'")
endif()
