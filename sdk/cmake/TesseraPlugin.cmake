# tessera_add_plugin(): builds a Tessera plugin (a MODULE library exporting only TSR_Plugin_Init)
# and writes its manifest beside it. Used in-tree and, through find_package(TesseraSDK), by
# out-of-tree plugin authors (docs/sdk.md).
#
# tessera_add_plugin(NAME
#   SOURCES src...
#   [VERSION 1.2.3]                # plugin's semantic version (default: PROJECT_VERSION)
#   [VENDOR "Acme"]
#   [ABI_MIN_MINOR n]              # lowest host ABI minor the plugin needs (default: 0)
#   [PROVIDES "device:CPU" "kernels:CPU" "ops" "transport:grpc" ...]
#   [PRIORITY n]                   # provider ranking among plugins of one device type
#   [CPU_FEATURES avx2 fma ...]    # refused without dlopen on CPUs that lack them
#   [WITH_SHA256]                  # record the library's sha256 in the manifest
#   [OUTPUT_DIRECTORY dir]         # default: TESSERA_PLUGIN_OUTPUT_DIR or the binary dir
#   [MANIFEST_NAME name]           # default: NAME
#   [LINK_LIBRARIES libs...]
#   [NO_INSTALL])                  # no install() rule (test-only plugins)
#
# The target is tessera_plugin_NAME, the library libtessera_NAME.so; the target property
# TESSERA_PLUGIN_MANIFEST holds the manifest's path. `cmake --install` puts both in
# TESSERA_PLUGIN_INSTALL_DIR (default lib/tessera/plugins, the folder an installed `tessera`
# searches when the plugin is installed into its prefix). The manifest's ABI major is the SDK's:
# TesseraSDK_ABI_VERSION_MAJOR (set by find_package(TesseraSDK)) or, in the Tessera tree,
# TESSERA_ABI_VERSION_MAJOR.
include_guard(GLOBAL)

set(_TESSERA_PLUGIN_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

function(tessera_add_plugin name)
  cmake_parse_arguments(ARG "WITH_SHA256;NO_INSTALL" "VERSION;VENDOR;ABI_MIN_MINOR;PRIORITY;OUTPUT_DIRECTORY;MANIFEST_NAME"
                        "SOURCES;PROVIDES;CPU_FEATURES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_VERSION)
    set(ARG_VERSION ${PROJECT_VERSION})
  endif()
  if(NOT ARG_VENDOR)
    set(ARG_VENDOR "unknown")
  endif()
  if(NOT DEFINED ARG_ABI_MIN_MINOR)
    set(ARG_ABI_MIN_MINOR 0)
  endif()
  if(NOT DEFINED ARG_PRIORITY)
    set(ARG_PRIORITY 0)
  endif()
  if(NOT ARG_MANIFEST_NAME)
    set(ARG_MANIFEST_NAME ${name})
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    if(TESSERA_PLUGIN_OUTPUT_DIR)
      set(ARG_OUTPUT_DIRECTORY ${TESSERA_PLUGIN_OUTPUT_DIR})
    else()
      set(ARG_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()

  set(abi_major "${TesseraSDK_ABI_VERSION_MAJOR}")
  if(abi_major STREQUAL "")
    set(abi_major "${TESSERA_ABI_VERSION_MAJOR}")
  endif()
  if(NOT abi_major MATCHES "^[0-9]+$")
    message(FATAL_ERROR "tessera_add_plugin(${name}): the plugin ABI major is unknown "
                        "(TesseraSDK_ABI_VERSION_MAJOR is '${TesseraSDK_ABI_VERSION_MAJOR}'): call "
                        "find_package(TesseraSDK <major>.<minor> REQUIRED) before it")
  endif()
  set(install_dir "${TESSERA_PLUGIN_INSTALL_DIR}")
  if(install_dir STREQUAL "")
    set(install_dir lib/tessera/plugins)
  endif()

  set(target tessera_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME tessera_${name}
    PREFIX lib
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${target} PRIVATE TesseraSDK::sdk ${ARG_LINK_LIBRARIES})
  # Only the entry point is exported; -z defs proves nothing is left for the host to resolve.
  # Except under clang's sanitizers, whose runtime lives in the executable alone: a plugin's
  # __asan_* references resolve against it when the plugin is loaded.
  target_link_options(${target} PRIVATE
    -Wl,--version-script=${_TESSERA_PLUGIN_CMAKE_DIR}/tessera_plugin.map)
  if(NOT (TESSERA_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang"))
    target_link_options(${target} PRIVATE -Wl,-z,defs)
  endif()
  if(COMMAND tessera_apply_common_flags)
    tessera_apply_common_flags(${target})
  endif()
  # A plugin gets no RUNPATH: its dependencies come from the system's search path, and a RUNPATH
  # entry CMake derives from a library's folder may be empty (the current directory).
  set_target_properties(${target} PROPERTIES SKIP_BUILD_RPATH ON)

  set(provides_json "")
  foreach(p IN LISTS ARG_PROVIDES)
    string(REPLACE ":" ";" parts "${p}")
    list(GET parts 0 kind)
    list(LENGTH parts n)
    if(n GREATER 1)
      list(GET parts 1 what)
      string(APPEND provides_json "{\"kind\": \"${kind}\", \"name\": \"${what}\"}, ")
    else()
      string(APPEND provides_json "{\"kind\": \"${kind}\"}, ")
    endif()
  endforeach()
  string(REGEX REPLACE ", $" "" provides_json "${provides_json}")
  set(features_json "")
  foreach(f IN LISTS ARG_CPU_FEATURES)
    string(APPEND features_json "\"${f}\", ")
  endforeach()
  string(REGEX REPLACE ", $" "" features_json "${features_json}")

  set(manifest ${ARG_OUTPUT_DIRECTORY}/${ARG_MANIFEST_NAME}.tessera-plugin.json)
  set_target_properties(${target} PROPERTIES TESSERA_PLUGIN_MANIFEST ${manifest})
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -DMANIFEST=${manifest}
      -DLIBRARY=$<TARGET_FILE:${target}>
      -DNAME=${name} -DVERSION=${ARG_VERSION} -DVENDOR=${ARG_VENDOR}
      -DABI_MAJOR=${abi_major} -DABI_MIN_MINOR=${ARG_ABI_MIN_MINOR}
      -DPRIORITY=${ARG_PRIORITY} -DWITH_SHA256=${ARG_WITH_SHA256}
      "-DPROVIDES_JSON=${provides_json}" "-DFEATURES_JSON=${features_json}"
      -P ${_TESSERA_PLUGIN_CMAKE_DIR}/WriteManifest.cmake
    VERBATIM)
  if(TARGET tessera_all_plugins)
    add_dependencies(tessera_all_plugins ${target})
  endif()
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${install_dir})
    install(FILES ${manifest} DESTINATION ${install_dir})
  endif()
endfunction()
