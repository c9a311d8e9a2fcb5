# Finds gRPC's C++ library for the grpc transport plugin and the transport benchmark, and sets
# TESSERA_GRPCXX_LIBRARY to the target to link (empty when gRPC is absent: both are then skipped).
#
# Debian's gRPC CMake package (libgrpc++-dev) refuses to load, with a fatal error that stops the
# configure step, when its code generator /usr/bin/grpc_cpp_plugin (protobuf-compiler-grpc) is
# missing, although Tessera never generates gRPC code. So the package is used only when the
# generator is installed, and pkg-config's grpc++ otherwise.
include_guard(GLOBAL)

set(TESSERA_GRPCXX_LIBRARY "")
find_program(TESSERA_GRPC_CPP_PLUGIN grpc_cpp_plugin)
if(TESSERA_GRPC_CPP_PLUGIN)
  find_package(gRPC CONFIG QUIET)
endif()
if(TARGET gRPC::grpc++)
  set(TESSERA_GRPCXX_LIBRARY gRPC::grpc++)
else()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(TESSERA_GRPCXX QUIET IMPORTED_TARGET grpc++)
  endif()
  if(TESSERA_GRPCXX_FOUND)
    set(TESSERA_GRPCXX_LIBRARY PkgConfig::TESSERA_GRPCXX)
  endif()
endif()
