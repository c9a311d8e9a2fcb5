# The transport suite, included from kit/CMakeLists.txt. Its cases are a library of their own
# (tessera_kit_transport_cases, needing only the registry): the kit's library links it, and so
# does tests/conformance/transport_conformance_test, which the ThreadSanitizer stage builds
# without the rest of the kit. transport_suite.cc (RunTransportSuite) is in the kit's library.

tessera_cc_library(tessera_kit_transport_cases
  SRCS transport_cases.cc transport_fixture.cc transport_call_cases.cc transport_pull_cases.cc
       transport_failure_cases.cc transport_tls_cases.cc
  HDRS transport_cases.h transport_fixture.h
  PUBLIC_DEPS tessera_registry absl::status absl::strings absl::time Threads::Threads)
target_include_directories(tessera_kit_transport_cases PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)

# The TLS cases' certificates (tls/make_test_certs.sh wrote them), found next to the program:
# <bin>/../share/tessera/plugin_check/tls in the build tree and in the installed tree.
set(TESSERA_KIT_TLS_FILES ca.pem client.key client.pem other_ca.pem other_client.key
    other_client.pem server.key server.pem)
list(TRANSFORM TESSERA_KIT_TLS_FILES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/tls/)
file(COPY ${TESSERA_KIT_TLS_FILES}
     DESTINATION ${PROJECT_BINARY_DIR}/${CMAKE_INSTALL_DATADIR}/tessera/plugin_check/tls)
install(FILES ${TESSERA_KIT_TLS_FILES}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tessera/plugin_check/tls)

# A broken transport the suite must catch: loopback whose Reply_SendTensor drops the last byte of
# tensors over 1 KiB.
tessera_add_plugin(fake_lossy_transport
  SOURCES fakes/fake_lossy_transport.cc ${PROJECT_SOURCE_DIR}/plugins/testing/loopback_transport.cc
          ${PROJECT_SOURCE_DIR}/plugins/testing/loopback_workers.cc
  VENDOR "Tessera tests"
  PROVIDES "transport:lossy"
  OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib/tessera/kit_fakes
  LINK_LIBRARIES Threads::Threads
  NO_INSTALL)
target_include_directories(tessera_plugin_fake_lossy_transport PRIVATE ${PROJECT_SOURCE_DIR})

if(TESSERA_BUILD_TESTS)
  # RunTransportSuite against the fake (the failing cases and their messages) and against the
  # build's gRPC and loopback transports (no failure); the case runner's bounds.
  tessera_cc_test(kit_transport_suite_test
    SRCS transport_suite_test.cc
    DEPS tessera_plugin_check_core)
  target_compile_definitions(kit_transport_suite_test PRIVATE
    TESSERA_PLUGIN_DIR="${TESSERA_PLUGIN_OUTPUT_DIR}"
    TESSERA_LOOPBACK_PLUGIN_DIR="${PROJECT_BINARY_DIR}/lib/tessera/test_plugins/loopback"
    TESSERA_KIT_FAKES_DIR="${PROJECT_BINARY_DIR}/lib/tessera/kit_fakes")
endif()
