# Runs the MLP example generator into WORK_DIR and checks that its files equal those committed in
# EXPECTED_DIR (so the generator and the committed graph never drift apart).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${GENERATOR} ${WORK_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the generator failed with status ${rc}")
endif()
foreach(name mlp.pb mlp.pbtxt input.npy)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/${name}
                          ${EXPECTED_DIR}/${name}
                  RESULT_VARIABLE differs)
  if(NOT differs EQUAL 0)
    message(FATAL_ERROR "examples/mlp/${name} is not what the generator writes; regenerate it "
                        "with: tessera_build_mlp_example examples/mlp")
  endif()
endforeach()
message(STATUS "mlp.pb, mlp.pbtxt and input.npy match the generator")
