/* LeakSanitizer suppressions for the OpenCL tests (read by LSan in -DCATENA_SANITIZE=ON builds, unused
 * otherwise): PoCL and its LLVM keep a few small allocations alive until exit (e.g. 16 bytes allocated
 * inside libpocl.so with no catena frame on the stack). Only the vendor libraries are suppressed: a
 * leak with a catena frame is still reported. */
#ifndef CTN_TEST_OPENCL_LSAN_H
#define CTN_TEST_OPENCL_LSAN_H

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libpocl.so\nleak:libLLVM\nleak:libclang\n"; }

#endif
