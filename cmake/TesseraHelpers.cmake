# Helper functions shared by every folder: tessera_cc_library, tessera_cc_test.
include_guard(GLOBAL)

set(TESSERA_WARNING_FLAGS -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)

# Sanitizer flags (TESSERA_SANITIZE) for any target, generated code included.
function(tessera_apply_sanitizers target)
  if(TESSERA_SANITIZE)
    list(JOIN TESSERA_SANITIZE "," _san)
    target_compile_options(${target} PRIVATE -fsanitize=${_san} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${_san})
    if("thread" IN_LIST TESSERA_SANITIZE)
      # Debian's protobuf and Abseil are not built with TSan, and their headers change class
      # layouts when __SANITIZE_THREAD__ is defined (protobuf's MapFieldBase grows two fields), so
      # instrumented code and the libraries would disagree about every message with a map field.
      # Without the macro the code is still fully instrumented; only the headers' optional
      # annotations are off, and the layouts match the libraries again.
      target_compile_options(${target} PRIVATE -U__SANITIZE_THREAD__)
    endif()
  endif()
endfunction()

function(tessera_apply_common_flags target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${TESSERA_WARNING_FLAGS}>)
  if(TESSERA_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  tessera_apply_sanitizers(${target})
endfunction()

# tessera_cc_library(NAME SRCS ... [HDRS ...] [DEPS ...] [PUBLIC_DEPS ...])
# A static library; include paths are relative to the repository root ("host/graph/graph.h").
function(tessera_cc_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;HDRS;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS} ${ARG_HDRS})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_DEPS})
  tessera_apply_common_flags(${name})
endfunction()

# tessera_cc_test(NAME SRCS ... [DEPS ...] [LABELS ...])
# A GoogleTest program registered with ctest. Test programs land in bin/ like the CLI, so they
# find the build tree's plugin folder exactly as the CLI does.
function(tessera_cc_test name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  tessera_apply_common_flags(${name})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 600
                       ENVIRONMENT "TESSERA_PLUGIN_PATH=")
  add_dependencies(${name} tessera_all_plugins)
endfunction()
