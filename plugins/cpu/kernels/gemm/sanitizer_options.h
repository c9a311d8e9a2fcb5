// AddressSanitizer's default options for a test program that reaches oneDNN from pool threads.
// Include from exactly one source file of the program.
//
// oneDNN is loaded with the CPU plugin (dlopen), so its thread_local variables live in dynamic
// TLS. The sanitizer runtimes of GCC <= 13 and LLVM <= 16 misread such blocks under glibc >= 2.25
// and LeakSanitizer's tracer crashes at exit ("Tracer caught signal 11") after every test has
// passed. Not intercepting __tls_get_addr avoids it; leak checking otherwise stays on.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_GEMM_SANITIZER_OPTIONS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_GEMM_SANITIZER_OPTIONS_H_

extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "intercept_tls_get_addr=0";
}

#endif  // TESSERA_PLUGINS_CPU_KERNELS_GEMM_SANITIZER_OPTIONS_H_
