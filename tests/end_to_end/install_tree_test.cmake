# Installs the build tree into a fresh prefix and runs the installed program from another folder:
# it must find its plugins in <prefix>/lib/tessera/plugins with no environment variable.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND "${PREFIX}/bin/tessera" plugins
                WORKING_DIRECTORY "${PREFIX}/.."
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "cpu +[0-9.]+ +LOADED")
  message(FATAL_ERROR "installed 'tessera plugins' did not load the CPU plugin (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND "${PREFIX}/bin/tessera" run "${SOURCE_DIR}/examples/mlp/mlp.pb"
                        --feed "x=${SOURCE_DIR}/examples/mlp/input.npy" --fetch predicted_class
                WORKING_DIRECTORY "${PREFIX}/.."
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "predicted_class:0 +int64 +\\[6\\] +0 1 2 1 0 1")
  message(FATAL_ERROR "installed 'tessera run' failed (${rc}):\n${out}${err}")
endif()
# The SDK package (find_package(TesseraSDK)) and the plugin template are installed;
# scripts/sdk_check.sh builds the template against them.
foreach(file IN ITEMS
        lib/cmake/TesseraSDK/TesseraSDKConfig.cmake lib/cmake/TesseraSDK/TesseraSDKConfigVersion.cmake
        lib/cmake/TesseraSDK/TesseraSDKTargets.cmake lib/cmake/TesseraSDK/TesseraPlugin.cmake
        lib/cmake/TesseraSDK/WriteManifest.cmake lib/cmake/TesseraSDK/tessera_plugin.map
        include/tessera/plugin_api/plugin_api.h include/tessera/sdk/sdk.h
        share/tessera/sdk/template/CMakeLists.txt share/tessera/sdk/template/README.md)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()
file(READ "${PREFIX}/lib/cmake/TesseraSDK/TesseraSDKTargets.cmake" targets)
foreach(target IN ITEMS TesseraSDK::plugin_api TesseraSDK::sdk)
  string(FIND "${targets}" "add_library(${target} INTERFACE IMPORTED)" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "TesseraSDKTargets.cmake does not define ${target}")
  endif()
endforeach()
# No installed program or plugin has an unsafe RUNPATH/RPATH entry.
execute_process(COMMAND "${PYTHON}" "${SOURCE_DIR}/scripts/check_runpath.py" "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE runpaths ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed tree has unsafe search paths (${rc}):\n${runpaths}${err}")
endif()
message(STATUS "installed tree works:\n${out}${runpaths}")
