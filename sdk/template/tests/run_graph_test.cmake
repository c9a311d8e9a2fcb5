# Runs scale_add.pbtxt through the installed `tessera run` with the built plugin, and checks the
# result and that TemplateScale and AddV2 ran on TEMPLATE:0.
#   cmake -DTESSERA=... -DMANIFEST=... -DTESTDATA=... -DOUTPUT_DIR=... -P run_graph_test.cmake
file(REMOVE_RECURSE "${OUTPUT_DIR}")
execute_process(
  COMMAND "${TESSERA}" run "${TESTDATA}/scale_add.pbtxt" --plugin "${MANIFEST}"
          --feed "x=${TESTDATA}/x.npy" --fetch y --log-device-placement
          --output-dir "${OUTPUT_DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "tessera run:\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tessera run exited with ${rc}")
endif()
string(FIND "${out}" "y:0  float32  [2,2]  13 26 | 19 32\n" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "expected y:0 float32 [2,2] 13 26 | 19 32 first")
endif()
foreach(node IN ITEMS "scaled (TemplateScale)" "y (AddV2)")
  string(FIND "${err}" "${node}: /job:localhost/replica:0/task:0/device:TEMPLATE:0\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "'${node}' was not placed on TEMPLATE:0")
  endif()
endforeach()
if(NOT EXISTS "${OUTPUT_DIR}/y.npy")
  message(FATAL_ERROR "tessera run did not write ${OUTPUT_DIR}/y.npy")
endif()
